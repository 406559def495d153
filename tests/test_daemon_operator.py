"""What an operator sees from `fibsbot run`: no silent failure at start, a refused login
said once and then an exit, and one console line for each event that matters."""

from __future__ import annotations

import asyncio
import io
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fibsbot.client.connection import BotClient, LoginGivenUp
from fibsbot.client.options import Backoff, ClientOptions
from fibsbot.client.policy import Policy, PolicySettings
from fibsbot.config import load_settings
from fibsbot.console import Console
from fibsbot.daemon import DataDirUnwritable, check_writable, prepare_logging, run_daemon
from fibsbot.server.testing import ClipTestClient, run_local_server
from tests.test_daemon import PASSWORD, logged_in, sparring_client, write_config

QUICK_BACKOFF = Backoff(initial_s=0.05, max_s=0.2)


async def run_command(config, password: str, timeout: float = 60.0, *options: str) -> tuple[int | None, str]:
    """``fibsbot run --config CONFIG`` as its own process: (exit code or None if it ran on, stderr)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        "import sys; from fibsbot.cli import main; sys.exit(main())",
        "run",
        "--config",
        str(config),
        *options,
        env=dict(os.environ, FIBSBOT_PASSWORD=password, NO_COLOR="1"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        _, err = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError:  # still running: the defect itself
        proc.kill()
        _, err = await proc.communicate()
        return None, err.decode()
    return proc.returncode, err.decode()


# --- records that cannot be kept --------------------------------------------------------------


def block_matches_folder(data_dir, how: str) -> str:
    """Make ``DATA/matches`` refuse new files; returns the reason the daemon should give."""
    matches = data_dir / "matches"
    data_dir.mkdir(parents=True)
    if how == "file":  # unwritable for root too
        matches.write_text("not a folder")
        return "is a file, not a folder"
    if os.geteuid() != 0:
        matches.mkdir()
        matches.chmod(0o555)
        return "cannot write there (permission denied)"
    # root writes through permission bits; a kernel folder stands in for a read-only mount
    # (sysfs takes no new files, for root neither), which root cannot make without privileges
    kernel = Path("/sys/kernel")
    try:
        check_writable(kernel)
    except DataDirUnwritable:
        matches.symlink_to(kernel, target_is_directory=True)
        return "cannot write there"
    pytest.skip("running as root, and no folder here refuses root's files (/sys/kernel takes them)")


@pytest.mark.parametrize("how", ["file", "read-only folder"])
def test_unwritable_matches_stop_the_daemon_before_it_logs_in(tmp_path, how):
    reason = block_matches_folder(tmp_path / "data", how)

    async def scenario() -> tuple[int | None, str, bool]:
        async with run_local_server(seed=1) as (host, port, core):
            config = write_config(tmp_path, port)
            code, err = await run_command(config, PASSWORD, timeout=45)
            return code, err, "daemonbot" in core.accounts  # an account: it logged in at least once

    try:
        code, err, seen = asyncio.run(scenario())
    finally:
        if how != "file" and not (tmp_path / "data" / "matches").is_symlink():
            (tmp_path / "data" / "matches").chmod(0o755)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert "matches" in lines[0] and reason in lines[0] and "could not keep its records" in lines[0], lines[0]
    assert not seen  # it never logged in, so it accepted no match


def test_the_write_test_leaves_nothing_behind_and_names_a_blocked_parent(tmp_path):
    check_writable(tmp_path / "new" / "matches")
    assert list((tmp_path / "new" / "matches").iterdir()) == []
    (tmp_path / "blocked").write_text("")
    with pytest.raises(DataDirUnwritable, match="not a directory"):
        check_writable(tmp_path / "blocked" / "matches")


async def test_run_daemon_refuses_unwritable_records_before_connecting(tmp_path, monkeypatch):
    monkeypatch.setenv("FIBSBOT_PASSWORD", PASSWORD)
    settings = load_settings(write_config(tmp_path, 9))  # port 9: nothing may be tried
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "matches").write_text("")
    console = io.StringIO()
    with pytest.raises(DataDirUnwritable):
        await asyncio.wait_for(run_daemon(settings, console=Console("daemonbot", console)), 30)
    assert "connecting" not in console.getvalue()


# --- a refused login ------------------------------------------------------------------------


async def make_account(host: str, port: int, name: str, password: str) -> None:
    client = await ClipTestClient.connect(host, port)
    assert await client.login(name, password)
    client.close()


def test_a_wrong_password_is_said_once_and_stops_the_daemon_after_three_refusals(tmp_path):
    async def scenario() -> tuple[int | None, str]:
        async with run_local_server(seed=1) as (host, port, core):
            await make_account(host, port, "daemonbot", PASSWORD)
            return await run_command(write_config(tmp_path, port), "not-the-password", timeout=45)

    code, err = asyncio.run(scenario())
    assert code == 2, err
    assert "Traceback" not in err
    refusals = [line for line in err.splitlines() if "login refused" in line]
    assert len(refusals) == 1 and "[warning" in refusals[0] and "stopping after 3 refusals" in refusals[0]
    last = err.strip().splitlines()[-1]
    assert last.startswith("fibsbot run: error:") and "refused the login of daemonbot 3 times" in last
    assert "retry_refused_login" in last
    log = (tmp_path / "data" / "log" / "fibsbot.jsonl").read_text()
    assert log.count('"login refused"') == 3 and "not-the-password" not in log


def test_quiet_keeps_only_the_refusal_and_the_error(tmp_path):
    async def scenario() -> tuple[int | None, str]:
        async with run_local_server(seed=1) as (host, port, core):
            await make_account(host, port, "daemonbot", PASSWORD)
            return await run_command(write_config(tmp_path, port), "not-the-password", 45, "--quiet")

    code, err = asyncio.run(scenario())
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 2, err
    assert "[warning  ] login refused" in lines[0] and lines[1].startswith("fibsbot run: error:")


class RefusalCounter(Console):
    def __init__(self, stream) -> None:
        super().__init__("daemonbot", stream, timestamps=False, colours=False)
        self.refusals = 0

    def on_session(self, what, details) -> None:
        self.refusals += what == "login_refused"
        super().on_session(what, details)


async def test_with_retry_refused_login_the_daemon_keeps_trying_and_says_it_once(tmp_path, monkeypatch):
    monkeypatch.setenv("FIBSBOT_PASSWORD", "not-the-password")
    monkeypatch.setenv("FIBSBOT_SERVER__RETRY_REFUSED_LOGIN", "true")
    async with run_local_server(seed=1) as (host, port, core):
        await make_account(host, port, "daemonbot", PASSWORD)
        settings = load_settings(write_config(tmp_path, port))
        prepare_logging(settings)
        out = io.StringIO()
        console, stop = RefusalCounter(out), asyncio.Event()
        daemon = asyncio.create_task(run_daemon(settings, stop, console))
        deadline = time.monotonic() + 60
        while console.refusals < 5 and time.monotonic() < deadline and not daemon.done():
            await asyncio.sleep(0.05)
        assert console.refusals >= 5 and not daemon.done()
        stop.set()
        await asyncio.wait_for(daemon, 20)
    assert out.getvalue().count("login refused") == 1 and "retrying with backoff" in out.getvalue()


async def test_the_client_gives_up_after_its_limit_and_a_login_resets_the_count():
    async with run_local_server(seed=1) as (host, port, core):
        await make_account(host, port, "alice", "right")
        options = ClientOptions(backoff=QUICK_BACKOFF, max_login_refusals=2)
        client = BotClient(host, port, "alice", "wrong", None, Policy(PolicySettings(user="alice")), options=options)
        with pytest.raises(LoginGivenUp, match="refused the login of alice 2 times in a row"):
            await asyncio.wait_for(client.run(), 30)
        assert client.connections == 2
    with pytest.raises(ValueError, match="max_login_refusals"):
        ClientOptions(max_login_refusals=0)


# --- the console of a whole match -----------------------------------------------------------


async def test_the_daemon_console_tells_a_match_from_login_to_stop(tmp_path, monkeypatch):
    monkeypatch.setenv("FIBSBOT_PASSWORD", PASSWORD)
    async with run_local_server(seed=8) as (host, port, core):
        settings = load_settings(write_config(tmp_path, port))
        prepare_logging(settings)
        out, stop = io.StringIO(), asyncio.Event()
        console = Console("daemonbot", out, timestamps=False, colours=False)
        daemon = asyncio.create_task(run_daemon(settings, stop, console))
        sparring = sparring_client(host, port, 0.3, QUICK_BACKOFF)
        task = asyncio.create_task(sparring.run())
        referee = await ClipTestClient.connect(host, port)
        assert await referee.login("referee", "pw")
        while not logged_in(core, "daemonbot"):
            await asyncio.sleep(0.05)
        referee.send("invite daemonbot 9")  # refused: the config plays 1 to 5 points
        referee.send("tell sparring invite daemonbot 2")
        await asyncio.wait_for(task, 60)
        referee.close()
        await asyncio.sleep(0.3)  # the who line with the new rating
        stop.set()
        await asyncio.wait_for(daemon, 10)
    lines = out.getvalue().splitlines()
    text = "\n".join(lines)
    expected_in_order = [
        "[info     ] starting: net:default@0, records in",
        f"[info     ] connecting to 127.0.0.1:{port}",
        "[info     ] logged in as daemonbot",
        "[info     ] rating 1500.00, experience 0",
        "[info     ] invitation from referee to a 9-point match: refused (it plays 1 to 5 points)",
        "[info     ] invitation from sparring to a 2-point match: accepted",
        "[info     ] match start: a 2-point match with sparring (we joined their invitation)",
        "[info     ] match ",
        "[info     ] rating 15",
        "[info     ] stopping (request): logging out",
        "[info     ] logged out (daemonbot)",
        "[info     ] stopped: 1 matches finished",
    ]
    position = 0
    for expected in expected_in_order:
        found = [k for k, line in enumerate(lines) if k >= position and line.startswith(expected)]
        assert found, f"{expected!r} missing after line {position}:\n{text}"
        position = found[0] + 1
    end = next(line for line in lines if line.startswith("[info     ] match won") or "match lost" in line)
    assert " against sparring" in end and "(experience 2" not in end
    assert "rating 1500.00, experience 0" in text and ", experience 2" in text
