"""Bad input that needs a network or a process of its own: `fibsbot run` with a wrong
password, and a reader that closes the pipe early (``fibsbot status | head -3``).  The walk of every other
command is ``tests/test_cli_bad_input.py``."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest

from fibsbot.server.testing import ClipTestClient, run_local_server
from tests.test_cli_bad_input import run_cli
from tests.test_daemon import PASSWORD, write_config

OPENING = "4HPwATDgc/ABMA"


# a port where nothing listens and a name that does not resolve are waited for, not
# errors (the server or the network may be on its way): tests/test_outage.py


def test_run_with_a_wrong_password_ends_with_one_error_line(tmp_path):
    async def scenario() -> tuple[int | None, str]:
        async with run_local_server(seed=1) as (host, port, _core):
            owner = await ClipTestClient.connect(host, port)
            assert await owner.login("daemonbot", PASSWORD)  # the account exists with another password
            owner.close()
            config = write_config(tmp_path, port)
            env = {name: value for name, value in os.environ.items() if not name.startswith("FIBSBOT_")}
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-c",
                "import sys; from fibsbot.cli import main; sys.exit(main())",
                *("run", "--config", str(config)),
                env=dict(env, FIBSBOT_PASSWORD="not-the-password", NO_COLOR="1"),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            try:
                _, err = await asyncio.wait_for(proc.communicate(), 60)
            except TimeoutError:  # retrying for ever: the defect
                proc.kill()
                _, err = await proc.communicate()
            return proc.returncode, err.decode()

    code, err = asyncio.run(scenario())
    assert code == 2, err
    assert "Traceback" not in err
    # the console's lines of the start come first; the error is the last line, and the only one
    errors = [line for line in err.splitlines() if ": error: " in line]
    assert errors == [err.strip().splitlines()[-1]], err
    assert errors[0].startswith("fibsbot run: error:") and "refused the login of daemonbot" in errors[0]


def test_a_reader_that_leaves_early_ends_the_command_quietly():
    """``fibsbot moves ... | head -0``: the reader closes before the first line is written."""
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; from fibsbot.cli import main; sys.exit(main())"]
        + ["moves", "--position-id", OPENING, "--dice", "6", "5"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # long before the command has started, let alone written
    err = proc.stderr.read().decode()
    proc.wait(60)
    proc.stderr.close()
    assert err == ""  # no "broken pipe" error, no "Exception ignored" at exit
    assert proc.returncode == 128 + 13  # as a Unix tool killed by SIGPIPE


def test_a_broken_pipe_that_is_not_our_output_is_not_hidden(monkeypatch):
    from fibsbot.cli import app

    def fails(_args) -> int:
        raise BrokenPipeError(32, "Broken pipe")  # as a socket's would, with stdout still read

    monkeypatch.setitem(app.COMMANDS, "moves", (*app.COMMANDS["moves"][:2], fails))
    with pytest.raises(BrokenPipeError):
        run_cli(["moves", "--position-id", OPENING, "--dice", "6", "5"])
