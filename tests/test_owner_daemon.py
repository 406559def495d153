"""The daemon leaves its state and the server's rating lines for `fibsbot status`."""

from __future__ import annotations

import asyncio
import json
import os

from fibsbot.config import load_settings
from fibsbot.daemon import prepare_logging, run_daemon
from fibsbot.server.testing import run_local_server
from tests.test_cli import run_cli
from tests.test_daemon import write_config


async def test_the_daemon_writes_its_state_and_rating_lines(tmp_path, monkeypatch):
    monkeypatch.setenv("FIBSBOT_PASSWORD", "pw-for-the-test")
    owner = tmp_path / "data" / "owner"
    async with run_local_server(seed=3) as (host, port, core):
        settings = load_settings(write_config(tmp_path, port))
        prepare_logging(settings)
        stop = asyncio.Event()
        daemon = asyncio.create_task(run_daemon(settings, stop))
        for _ in range(200):
            if (owner / "ratings.jsonl").exists():
                break
            await asyncio.sleep(0.05)
        state = json.loads((owner / "daemon.json").read_text())
        assert state["pid"] == os.getpid() and state["user"] == "daemonbot" and "stopped" not in state
        assert (state["server"], state["port"]) == ("127.0.0.1", port) and state["agent"].startswith("net:")
        stop.set()
        await asyncio.wait_for(daemon, 10)
    lines = [json.loads(x) for x in (owner / "ratings.jsonl").read_text().splitlines()]
    assert lines and lines[0]["rating"] == 1500.0 and lines[0]["experience"] == 0
    assert json.loads((owner / "daemon.json").read_text())["stopped"]
    code, out, err = run_cli(["status", "--data-dir", str(tmp_path / "data")])
    assert code == 0, err
    assert "daemon: not running" in out and "rating: 1500.00, experience 0" in out
