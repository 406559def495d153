"""`fibsbot server`: argument errors, and a real run answering a login."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

import fibsbot.cli.server  # noqa: F401 - registers the command
from fibsbot.cli import main


@pytest.mark.parametrize(
    "argv, problem",
    [
        (["server", "--port", "70000"], "--port must be 0..65535"),
        (["server", "--idle-timeout", "0"], "bad server settings"),
    ],
)
def test_bad_arguments_are_one_line_errors(argv, problem, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert problem in err and "Traceback" not in err


def test_the_command_serves_logins():
    code = "import fibsbot.cli.server, fibsbot.cli as c, sys; sys.exit(c.main(sys.argv[1:]))"
    process = subprocess.Popen(
        [sys.executable, "-c", code, "server", "--port", "0", "--seed", "3", "--ready"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        line = process.stdout.readline()
        assert line.startswith("fibsbot server listening on 127.0.0.1:")
        port = int(line.rsplit(":", 1)[1])
        import socket

        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            sock.sendall(b"login cli_test 1008 zed pw\r\nbye\r\n")
            received, deadline = b"", time.monotonic() + 5
            while time.monotonic() < deadline:
                chunk = sock.recv(4096)
                if not chunk:
                    break
                received += chunk
        assert b"login: 1 zed " in received and b"\r\n2 zed " in received and b"Goodbye." in received
    finally:
        process.terminate()
        process.wait(timeout=5)
