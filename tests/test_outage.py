"""`fibsbot run` never gives up on a failure that time mends: a server down at start, a
resolver that fails (EAI_AGAIN, EAI_NONAME), a server that accepts and never welcomes.
The daemon runs as a real process against the local server (``fibsbot.arena.outage``),
with its backoff made small through the settings; the outages last seconds here, and
minutes in ``scripts/checks/outage_drill.py``."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time

import pytest

from fibsbot.arena.outage import BOT, DaemonProcess, SilentServer, free_port, run_outage, write_config

QUICK = (0.2, 1.0)  # reconnect_backoff_base and _max


def said(console: list[str]) -> list[str]:
    """The sentences of the console lines, without the timestamp and the level."""
    return [line.split("] ", 1)[1] for line in console if "] " in line]


def ended_attempts(folder) -> list[dict]:
    path = folder / "data" / "log" / "fibsbot.jsonl"
    return [entry for entry in map(json.loads, path.read_text().splitlines()) if entry["event"] == "connection ended"]


def test_a_server_down_at_start_is_waited_for_and_said_once(tmp_path):
    """The defect: refused at start, the daemon exited 75 after about 3 s, and systemd's start
    limit ended the service after a minute of outage."""
    result = asyncio.run(run_outage("refused", 3.0, tmp_path, backoff=QUICK, login_wait_s=60, min_attempts=3))
    lines = said(result.console)
    assert result.exit_during_outage is None, "\n".join(result.console)
    assert result.login_after_s is not None, "\n".join(result.console)
    assert result.attempts >= 3  # it kept trying, and said so once
    unreachable = [line for line in lines if "unreachable" in line]
    assert unreachable == [
        f"server 127.0.0.1:{port_of(lines)} unreachable (connection refused): "
        "retrying every 1 s at most until it answers"
    ]
    start = lines.index(unreachable[0])
    assert lines[start + 1 : start + 3] == [f"connected to 127.0.0.1:{port_of(lines)}", f"logged in as {BOT}"]
    assert result.exit_code == 0
    assert not any("error" in line for line in lines)


def port_of(lines: list[str]) -> int:
    first = next(line for line in lines if line.startswith("connecting to "))
    return int(first.rsplit(":", 1)[1])


def test_a_resolver_that_fails_with_eai_noname_then_eai_again_is_waited_for(tmp_path):
    """The defect: every resolver error, EAI_AGAIN included, was `no such host` and exit 2,
    which the unit never restarts."""
    result = asyncio.run(run_outage("lookup", 3.0, tmp_path, backoff=QUICK, login_wait_s=60))
    lines = said(result.console)
    assert result.exit_during_outage is None, "\n".join(result.console)
    assert result.login_after_s is not None, "\n".join(result.console)
    unreachable = [line for line in lines if "unreachable" in line]
    assert len(unreachable) == 1 and "cannot resolve fibs.test: name or service not known" in unreachable[0]
    start = lines.index(unreachable[0])
    assert lines[start + 1 : start + 3] == [f"connected to fibs.test:{port_of(lines)}", f"logged in as {BOT}"]
    # both errors reached the daemon, each retried: -2 is EAI_NONAME, -3 EAI_AGAIN
    errors = [entry["error"] for entry in ended_attempts(tmp_path)]
    assert any("gaierror(-2," in error for error in errors) and any("gaierror(-3," in error for error in errors)
    assert all(entry["kind"] == "lookup" for entry in ended_attempts(tmp_path))
    assert result.exit_code == 0


def test_a_server_that_never_welcomes_is_retried_and_said_once(tmp_path):
    result = asyncio.run(run_outage("silent", 4.0, tmp_path, backoff=QUICK, login_timeout=0.3, login_wait_s=60))
    lines = said(result.console)
    assert result.exit_during_outage is None and result.login_after_s is not None, "\n".join(result.console)
    silent = [line for line in lines if "sends no welcome" in line]
    assert silent == [
        f"server 127.0.0.1:{port_of(lines)} accepts connections but sends no welcome (waited 0.3 s): "
        "retrying every 1 s at most until it answers"
    ]
    assert sum(entry["kind"] == "no welcome" for entry in ended_attempts(tmp_path)) >= 2
    assert f"logged in as {BOT}" in lines and result.exit_code == 0


def test_sigterm_while_waiting_for_the_welcome_says_no_logout(tmp_path):
    """The defect: `nc -l -k 127.0.0.1 4399`, then SIGTERM: `logged out (mybot)`, though it never logged in."""

    async def scenario() -> tuple[int | None, list[str], float]:
        server = SilentServer()
        port = free_port()
        await server.start(port)
        daemon = DaemonProcess(write_config(tmp_path, "127.0.0.1", port, (2.0, 30.0), 30.0), tmp_path)
        try:
            await daemon.start()
            deadline = time.monotonic() + 60
            # the client's connection, left open, not a probe that closes at once
            while not (server.open and connecting(daemon)) and daemon.returncode is None:
                assert time.monotonic() < deadline, daemon.console()
                await asyncio.sleep(0.2)
            asked = time.monotonic()
            code = await daemon.stop(signal.SIGTERM)
            return code, daemon.console(), time.monotonic() - asked
        finally:
            await daemon.stop(signal.SIGKILL)
            await server.close()

    code, console, _ = asyncio.run(scenario())
    lines = said(console)
    assert not any("logged out" in line or "logging out" in line for line in lines), "\n".join(console)
    assert code == 0, "\n".join(console)
    assert "stopping (SIGTERM)" in lines
    assert lines[-1].startswith("stopped: 0 matches finished")


def connecting(daemon: DaemonProcess) -> bool:
    return any("connecting to" in line for line in daemon.console())


@pytest.mark.parametrize("host", ["fibs.com:4321", "http://fibs.com"])
def test_a_host_that_cannot_be_a_name_is_refused_at_start(tmp_path, monkeypatch, host):
    """What a restart cannot mend still ends the start, in one line with exit 2."""
    from tests.test_cli_bad_input import assert_one_line_naming, run_cli

    for name in [name for name in os.environ if name.startswith("FIBSBOT_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("FIBSBOT_PASSWORD", "pw")
    config = write_config(tmp_path, host, 4321, QUICK, 30.0)
    code, _, err = run_cli(["run", "--config", str(config)])
    assert_one_line_naming(code, err, f"server.host: Value error, {host!r}")
