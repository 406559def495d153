"""The daemon's connection in ``daemon.json``, ``fibsbot status`` and systemd's ``STATUS=``: logged
in as whom since when, or the server down since when and why, in the console's words."""

from __future__ import annotations

import asyncio
import io
import os
import socket
import time

from fibsbot.arena.outage import BOT, PASSWORD, free_port, write_config
from fibsbot.config import load_settings
from fibsbot.console import Console
from fibsbot.daemon import prepare_logging, run_daemon
from fibsbot.owner.connection import ConnectionState, connection_text
from fibsbot.owner.readers import daemon_state
from fibsbot.owner.status import collect_status, format_status
from tests.test_service_notify import NotifyListener, path_socket


class Clock:
    def __init__(self) -> None:
        self.now = 0

    def __call__(self) -> str:
        self.now += 1
        return f"t{self.now}"


def test_an_outage_is_dated_from_its_first_failure_until_a_login_ends_it():
    state = ConnectionState("fibs.com", 4321, clock=Clock())
    assert connection_text(state.as_dict()) == "waiting for server fibs.com:4321 since t1"
    refused = {"error": "connection refused", "kind": "refused", "host": "fibs.com", "port": 4321}
    assert state.follow("connection_lost", refused)
    assert not state.follow("connecting", {"host": "fibs.com", "port": 4321})  # each retry: no change
    assert not state.follow("connection_lost", refused)
    down = state.as_dict()
    assert connection_text(down) == "server fibs.com:4321 unreachable (connection refused), since t2: retrying"
    silent = {"error": "waited 30 s", "kind": "no welcome", "host": "fibs.com", "port": 4321}
    assert state.follow("connection_lost", silent)  # another kind: the reason changes, not the date
    assert state.as_dict()["since"] == "t2"
    assert "accepts connections but sends no welcome (waited 30 s), since t2" in connection_text(state.as_dict())
    assert state.follow("logged_in", {"user": "mybot"})
    assert connection_text(state.as_dict()) == "logged in as mybot on fibs.com:4321 since t3"
    assert state.follow("connection_lost", {"error": "connection reset by peer", "kind": "lost"})
    assert connection_text(state.as_dict()) == "connection lost: connection reset by peer, since t4: retrying"
    state.follow("login_refused", {"user": "mybot", "host": "fibs.com", "port": 4321, "refusals": 1, "limit": None})
    assert state.as_dict()["reason"] == "login refused: fibs.com:4321 does not accept user mybot with this password"


async def test_a_daemon_whose_server_is_down_says_since_when_and_why_everywhere(tmp_path, monkeypatch):
    port = free_port()  # nothing listens there
    monkeypatch.setenv("FIBSBOT_PASSWORD", PASSWORD)
    # the daemon is this test's process, whose command line does not name fibsbot
    monkeypatch.setattr("fibsbot.owner.readers._process_alive", lambda pid: pid == os.getpid())
    listener = NotifyListener(path_socket(tmp_path))
    monkeypatch.setenv("NOTIFY_SOCKET", listener.env_value)
    listener.start()
    settings = load_settings(write_config(tmp_path, "127.0.0.1", port, (0.05, 0.2), 30.0))
    prepare_logging(settings)
    out, stop = io.StringIO(), asyncio.Event()
    attempts = []

    class Counting(Console):
        def on_session(self, what, details):
            attempts.append(what == "connection_lost")
            super().on_session(what, details)

    daemon = asyncio.create_task(run_daemon(settings, stop, Counting(BOT, out, timestamps=False, colours=False)))
    try:
        deadline = time.monotonic() + 60
        while sum(attempts) < 4 and time.monotonic() < deadline and not daemon.done():
            await asyncio.sleep(0.05)
        assert sum(attempts) >= 4, out.getvalue()
        state = daemon_state(settings.data_dir)
        status = format_status(collect_status(settings.data_dir))
    finally:
        stop.set()
        await asyncio.wait_for(daemon, 20)
        listener.close()
    connection = state["connection"]
    reason = f"server 127.0.0.1:{port} unreachable (connection refused)"
    assert connection["state"] == "down" and connection["reason"] == reason, connection
    # the console said the same reason once; the status line and STATUS= say it with its date
    assert out.getvalue().count(f"{reason}: retrying every 0.2 s") == 1, out.getvalue()
    daemon_line = next(line for line in status.splitlines() if line.startswith("daemon: "))
    assert daemon_line.startswith("daemon: running"), daemon_line
    assert daemon_line.endswith(f"; {reason}, since {connection['since']}: retrying"), daemon_line
    assert connection_text(connection) in listener.statuses(), listener.statuses()
    assert listener.statuses()[0] == f"waiting for server 127.0.0.1:{port} since {state['started']}"


async def test_without_notify_socket_the_daemon_sends_nothing(tmp_path, monkeypatch):
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    monkeypatch.setenv("WATCHDOG_USEC", "100000")  # a watchdog asked for, and no socket to ping
    monkeypatch.setenv("FIBSBOT_PASSWORD", PASSWORD)
    sent = []
    real_sendto = socket.socket.sendto

    def spy(self, *args):
        sent.append(self.family)
        return real_sendto(self, *args)

    monkeypatch.setattr(socket.socket, "sendto", spy)
    settings = load_settings(write_config(tmp_path, "127.0.0.1", free_port(), (0.05, 0.2), 30.0))
    prepare_logging(settings)
    stop = asyncio.Event()
    daemon = asyncio.create_task(run_daemon(settings, stop))
    await asyncio.sleep(1.0)
    stop.set()
    await asyncio.wait_for(daemon, 20)
    assert daemon_state(settings.data_dir)["connection"]["state"] == "down"  # it ran, and tried
    assert socket.AF_UNIX not in sent
