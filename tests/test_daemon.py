"""The daemon against the local server: a whole match, records, secrets, SIGTERM."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time

from fibsbot.arena.sparring import PubevalSparring
from fibsbot.client.connection import BotClient
from fibsbot.client.options import Backoff, ClientOptions
from fibsbot.client.policy import Policy, PolicySettings
from fibsbot.config import load_settings
from fibsbot.daemon import prepare_logging, run_daemon
from fibsbot.server.testing import ClipTestClient, run_local_server
from nets.player import load_agent

PASSWORD = "s3cret-Horse-battery"


def write_config(tmp_path, port: int):
    config = tmp_path / "fibsbot.toml"
    config.write_text(f"""
data_dir = "{tmp_path / "data"}"
admins = ["referee"]
[server]
host = "127.0.0.1"
port = {port}
user = "daemonbot"
reconnect_backoff_base = 0.05
reconnect_backoff_max = 0.5
[play]
ply = 0
[invitations]
min_length = 1
max_length = 5
""")
    return config


def sparring_client(host: str, port: int, roll_delay_s: float, backoff: Backoff | None = None) -> BotClient:
    """The sparring bot of the daemon tests: pubeval's moves, one match, obeying the referee."""
    options = ClientOptions(
        backoff=backoff or Backoff(initial_s=0.05, max_s=0.5), roll_delay_s=roll_delay_s, max_matches=1
    )
    return BotClient(
        host,
        port,
        "sparring",
        "pw",
        PubevalSparring(load_agent("net:default@0")),
        Policy(PolicySettings(user="sparring", admins=frozenset({"referee"}))),
        options=options,
        rng=random.Random(1),
    )


async def test_daemon_plays_a_match_and_never_logs_its_password(tmp_path, monkeypatch):
    monkeypatch.setenv("FIBSBOT_PASSWORD", PASSWORD)
    async with run_local_server(seed=8) as (host, port, core):
        settings = load_settings(write_config(tmp_path, port))
        log_path = prepare_logging(settings)
        stop = asyncio.Event()
        daemon = asyncio.create_task(run_daemon(settings, stop))
        sparring = sparring_client(host, port, 0.3)
        task = asyncio.create_task(sparring.run())
        referee = await ClipTestClient.connect(host, port)
        assert await referee.login("referee", "pw")
        await asyncio.sleep(0.5)
        referee.send("tell sparring invite daemonbot 1")
        await asyncio.wait_for(task, 60)  # the sparring bot stops after its one match
        referee.close()
        stop.set()
        await asyncio.wait_for(daemon, 10)
    mats = list((tmp_path / "data" / "matches").glob("*.mat"))
    assert len(mats) == 1 and "Wins" in mats[0].read_text()
    text = log_path.read_text()
    assert "daemon_start" in text and "match_end" in text and "login daemonbot" not in text.replace("********", "")
    assert PASSWORD not in text
    for path in (tmp_path / "data").rglob("*"):
        if path.is_file():
            assert PASSWORD.encode() not in path.read_bytes(), path


def test_run_command_logs_in_and_stops_cleanly_on_sigterm(tmp_path):
    async def scenario() -> tuple[int, str]:
        async with run_local_server(seed=1) as (host, port, core):
            config = write_config(tmp_path, port)
            env = dict(os.environ, FIBSBOT_PASSWORD=PASSWORD)
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-c",
                "import sys; from fibsbot.cli import main; sys.exit(main())",
                "run",
                "--config",
                str(config),
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            watcher = await ClipTestClient.connect(host, port)
            assert await watcher.login("watcher", "pw")
            deadline = time.monotonic() + 60
            while not logged_in(core, "daemonbot") and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            ps = subprocess.run(["ps", "-ww", "-eo", "args"], capture_output=True, text=True).stdout
            proc.send_signal(signal.SIGTERM)
            await asyncio.wait_for(proc.wait(), 20)
            watcher.close()
            return proc.returncode, ps

    code, ps = asyncio.run(scenario())
    assert code == 0
    assert "--config" in ps and PASSWORD not in ps  # never in a process listing


def logged_in(core, name: str) -> bool:
    return any(getattr(session, "name", None) == name for session in core.sessions.values())
