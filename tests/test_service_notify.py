"""systemd's notify protocol (``fibsbot.service.notify``): READY, STATUS, WATCHDOG and STOPPING
reach a notify socket of the test's own, a path one and an abstract one, as they would reach
systemd's; a loop that stops turning stops the watchdog's pings; without ``NOTIFY_SOCKET``
nothing is sent.  The daemon runs as a real process against the local server, as systemd
starts it (``fibsbot.arena.outage.DaemonProcess``)."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import tempfile
import time
import uuid
from pathlib import Path
from types import SimpleNamespace

import pytest
from structlog.testing import capture_logs

from fibsbot.arena.outage import BOT, DaemonProcess, write_config
from fibsbot.owner.live import OwnerRecords
from fibsbot.protocol.events import GameSaved, Logout, MatchStart
from fibsbot.server.testing import run_local_server
from fibsbot.service.notify import FREEZE_ENV, Notifier, socket_address, watchdog_period
from fibsbot.service.status import ServiceStatus

WATCHDOG_USEC = 1_000_000  # pings every 0.5 s
START_WAIT_S = 120.0  # a loaded machine imports numba slowly


class NotifyListener:
    """A datagram socket standing in for systemd's: every message, with the time it came."""

    def __init__(self, address: str) -> None:
        self.env_value = address
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(socket_address(address))
        self.sock.setblocking(False)
        self.messages: list[tuple[float, dict[str, str]]] = []
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            data = await loop.sock_recv(self.sock, 65536)
            fields = dict(line.split("=", 1) for line in data.decode().splitlines() if "=" in line)
            self.messages.append((time.monotonic(), fields))

    def receive_now(self) -> list[dict[str, str]]:
        """What came so far, read without a loop."""
        got = []
        while True:
            try:
                data = self.sock.recv(65536)
            except BlockingIOError:
                return got
            got.append(dict(line.split("=", 1) for line in data.decode().splitlines()))

    def times_of(self, key: str) -> list[float]:
        return [t for t, fields in self.messages if key in fields]

    def statuses(self) -> list[str]:
        return [fields["STATUS"] for _, fields in self.messages if "STATUS" in fields]

    async def wait_for(self, test, timeout: float, daemon: DaemonProcess | None = None) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if test():
                return True
            if daemon is not None and daemon.returncode is not None:
                return test()
            await asyncio.sleep(0.05)
        return test()

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
        self.sock.close()


def path_socket(tmp_path: Path) -> str:
    """A socket path in ``tmp_path``, or in a short folder when that is past AF_UNIX's 107 bytes."""
    path = tmp_path / "notify"
    if len(str(path)) > 100:
        path = Path(tempfile.mkdtemp(prefix="fibsbot-notify-")) / "notify"
    return str(path)


def abstract_socket() -> str:
    return f"@fibsbot-test-{uuid.uuid4().hex}"


# --- the protocol ------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["path", "abstract"])
def test_messages_reach_a_path_socket_and_an_abstract_one(tmp_path, kind):
    listener = NotifyListener(path_socket(tmp_path) if kind == "path" else abstract_socket())
    notifier = Notifier({"NOTIFY_SOCKET": listener.env_value})
    try:
        notifier.ready("waiting for server fibs.com:4321")
        notifier.status("logged in as mybot")
        notifier.status("logged in as mybot")  # the same again: not sent
        notifier.watchdog()
        notifier.stopping("stopping (SIGTERM): logging out")
        notifier.status("logged in as mybot")  # the session's last events, while it logs out
        notifier.stopping("stopped: 1 matches finished, 17 positions queued")
        got = listener.receive_now()
    finally:
        notifier.close()
        listener.close()
    assert got == [
        {"READY": "1", "STATUS": "waiting for server fibs.com:4321"},
        {"STATUS": "logged in as mybot"},
        {"WATCHDOG": "1"},
        {"STOPPING": "1", "STATUS": "stopping (SIGTERM): logging out"},
        {"STOPPING": "1", "STATUS": "stopped: 1 matches finished, 17 positions queued"},
    ]


def test_without_notify_socket_nothing_is_sent(monkeypatch):
    sent = []
    real_sendto = socket.socket.sendto
    monkeypatch.setattr(socket.socket, "sendto", lambda self, *args: sent.append(args) or real_sendto(self, *args))
    notifier = Notifier({})
    notifier.ready("waiting")
    notifier.status("logged in")
    notifier.watchdog()
    notifier.stopping("stopping")
    assert not notifier.enabled and notifier.send("READY=1") is False
    assert sent == [] and notifier._socket is None


def test_a_failed_send_is_logged_once_and_never_raises(tmp_path):
    notifier = Notifier({"NOTIFY_SOCKET": str(tmp_path / "gone")})  # systemd went away
    with capture_logs() as logs:
        results = [notifier.send("WATCHDOG=1") for _ in range(5)]
    assert results == [False] * 5
    failures = [entry for entry in logs if entry["event"] == "notify_failed"]
    assert len(failures) == 1 and "gone" in failures[0]["socket"]


def test_the_watchdog_pings_at_half_its_interval_for_this_process_only():
    assert watchdog_period({"WATCHDOG_USEC": "120000000"}) == 60.0
    assert watchdog_period({"WATCHDOG_USEC": "1000000", "WATCHDOG_PID": str(os.getpid())}) == 0.5
    assert watchdog_period({"WATCHDOG_USEC": "1000000", "WATCHDOG_PID": str(os.getpid() + 1)}) is None
    assert watchdog_period({}) is None and watchdog_period({"WATCHDOG_USEC": "0"}) is None
    assert watchdog_period({"WATCHDOG_USEC": "soon"}) is None


def test_status_says_the_connection_the_match_a_saved_match_and_a_full_disk(tmp_path):
    listener = NotifyListener(path_socket(tmp_path))
    owner = OwnerRecords(tmp_path / "data", "mybot")
    owner.started(server="fibs.com", port=4321, agent="net:default@table")
    service = ServiceStatus(Notifier({"NOTIFY_SOCKET": listener.env_value}), owner)
    observers = (owner, service)  # as the daemon orders them: the owner's state first

    def event(e, opponent=None, length=None):
        snapshot = SimpleNamespace(in_match=opponent is not None, opponent=opponent, match_length=length)
        for observer in observers:
            observer.on_event(e, snapshot)

    def session(what, **details):
        for observer in observers:
            observer.on_session(what, details)

    try:
        session("logged_in", user="mybot")
        event(MatchStart(opponent="alice", length=5, we_joined=True), "alice", 5)
        service.disk_changed("the disk is full (queue: No space left on device)")
        event(GameSaved(player="alice", reason="dropped"))
        service.disk_changed(None)
        session("connection_lost", error="connection refused", kind="refused", host="fibs.com", port=4321)
        got = [message["STATUS"] for message in listener.receive_now()]
    finally:
        listener.close()
    since = owner.state["connection"]["since"]
    logged_in = got[0].split("; ")[0]
    assert logged_in.startswith("logged in as mybot on fibs.com:4321 since ")
    assert got[1:] == [
        f"{logged_in}; playing a 5-point match with alice",
        f"{logged_in}; playing a 5-point match with alice; "
        "the disk is full (queue: No space left on device): not taking matches",
        f"{logged_in}; match with alice saved, waiting for alice; "
        "the disk is full (queue: No space left on device): not taking matches",
        f"{logged_in}; match with alice saved, waiting for alice",
        f"server fibs.com:4321 unreachable (connection refused), since {since}: retrying; "
        "match with alice saved, waiting for alice",
    ]


def test_status_says_saved_after_a_bare_logout_line_of_the_opponent(tmp_path):
    """A foreign clone sends ``8 oppo oppo drops connection.`` and never ``The game was saved.``:
    the driver leaves the match by the logout line, and STATUS says so as the console does."""
    listener = NotifyListener(path_socket(tmp_path))
    owner = OwnerRecords(tmp_path / "data", "mybot")
    owner.started(server="fibs.com", port=4321, agent="net:default@table")
    service = ServiceStatus(Notifier({"NOTIFY_SOCKET": listener.env_value}), owner)
    try:
        for observer in (owner, service):
            observer.on_session("logged_in", {"user": "mybot"})
        playing = SimpleNamespace(in_match=True, opponent="oppo", match_length=5, saved_opponent=None)
        left = SimpleNamespace(in_match=False, opponent=None, match_length=None, saved_opponent="oppo")
        for observer in (owner, service):
            observer.on_event(MatchStart(opponent="oppo", length=5, we_joined=True), playing)
        for observer in (owner, service):
            observer.on_event(Logout(name="oppo", message="oppo drops connection."), left)
        got = [message["STATUS"] for message in listener.receive_now()]
    finally:
        listener.close()
    assert got[-1].endswith("; match with oppo saved, waiting for oppo")


# --- the daemon under a notify socket ------------------------------------------------------------


async def start_daemon(folder: Path, port: int, listener: NotifyListener, **env: str) -> DaemonProcess:
    config = write_config(folder, "127.0.0.1", port, (0.2, 1.0), 30.0)
    extra = {"NOTIFY_SOCKET": listener.env_value, "WATCHDOG_USEC": str(WATCHDOG_USEC), **env}
    daemon = DaemonProcess(config, folder, extra)
    await daemon.start()
    return daemon


def gaps(times: list[float]) -> list[float]:
    return [b - a for a, b in zip(times, times[1:], strict=False)]


def test_the_daemon_says_ready_status_pings_and_stopping(tmp_path):
    """READY before the login, then the login in STATUS; pings every half interval; a frozen loop
    stops them (and they come back with it); SIGTERM sends STOPPING=1."""

    async def scenario():
        listener = NotifyListener(path_socket(tmp_path))
        listener.start()
        async with run_local_server(seed=1) as (host, port, core):
            daemon = await start_daemon(tmp_path, port, listener, **{FREEZE_ENV: "3"})
            try:
                ready = await listener.wait_for(lambda: listener.times_of("READY"), START_WAIT_S, daemon)
                assert ready, "\n".join(daemon.console())
                logged_in = await listener.wait_for(
                    lambda: any(f"logged in as {BOT}" in s for s in listener.statuses()), 60, daemon
                )
                assert logged_in, (listener.statuses(), daemon.console())
                await asyncio.sleep(3.0)
                before_freeze = listener.times_of("WATCHDOG")
                daemon.proc.send_signal(signal.SIGUSR1)  # the loop sleeps 3 s
                frozen_at = time.monotonic()
                await asyncio.sleep(5.0)
                after = [t for t in listener.times_of("WATCHDOG") if t > frozen_at]
                code = await daemon.stop(signal.SIGTERM)
                await asyncio.sleep(0.2)
            finally:
                await daemon.stop(signal.SIGKILL)
        listener.close()
        return listener, before_freeze, frozen_at, after, code, daemon.console()

    listener, before_freeze, frozen_at, after, code, console = asyncio.run(scenario())
    ready_at = listener.times_of("READY")[0]
    statuses = listener.statuses()
    assert statuses[0].startswith("waiting for server 127.0.0.1:"), statuses  # READY's: before the login
    assert any(s.startswith(f"logged in as {BOT} on 127.0.0.1:") for s in statuses), statuses
    # about two pings a second from READY to the freeze (a loaded machine may delay some)
    steady = [t for t in before_freeze if t >= ready_at]
    rate = (len(steady) - 1) / (steady[-1] - steady[0])
    assert 1.2 <= rate <= 2.5, (rate, gaps(steady))
    assert max(gaps(steady)) < 1.0, gaps(steady)  # none missed while the loop turned
    # the frozen loop: no ping for its 3 s, then they come back
    assert after, "no ping after the freeze"
    assert after[0] - max(before_freeze) >= 2.5, (after[0] - max(before_freeze), gaps(before_freeze + after))
    assert len(after) >= 2
    # SIGTERM: STOPPING=1 with the console's words, then the daemon's last line
    stopping = [fields for _, fields in listener.messages if "STOPPING" in fields]
    assert stopping and stopping[0]["STATUS"] == "stopping (SIGTERM): logging out", stopping
    assert statuses[statuses.index(stopping[0]["STATUS"]) :] == [
        "stopping (SIGTERM): logging out",
        "stopped: 0 matches finished, 0 positions queued",
    ]  # what the session does while it logs out does not replace how the stop goes
    assert code == 0, "\n".join(console)


def test_an_abstract_socket_gets_ready_and_a_watchdog_kill_shows_the_stuck_frame(tmp_path):
    """Under ``PYTHONFAULTHANDLER`` (as the units set it) systemd's watchdog kill (SIGABRT) leaves
    every thread's stack on the console: here the test hook's sleep that blocks the loop."""

    async def scenario():
        listener = NotifyListener(abstract_socket())
        listener.start()
        async with run_local_server(seed=1) as (host, port, core):
            daemon = await start_daemon(tmp_path, port, listener, PYTHONFAULTHANDLER="1", **{FREEZE_ENV: "30"})
            try:
                ready = await listener.wait_for(lambda: listener.times_of("READY"), START_WAIT_S, daemon)
                assert ready, "\n".join(daemon.console())
                await listener.wait_for(lambda: len(listener.times_of("WATCHDOG")) >= 2, 30, daemon)
                daemon.proc.send_signal(signal.SIGUSR1)
                await asyncio.sleep(2.0)
                pings = len(listener.times_of("WATCHDOG"))
                await asyncio.sleep(2.0)
                stalled = len(listener.times_of("WATCHDOG")) == pings
                daemon.proc.send_signal(signal.SIGABRT)  # what WatchdogSec= sends when the pings stop
                code = await asyncio.wait_for(daemon.proc.wait(), 30)
            finally:
                await daemon.stop(signal.SIGKILL)
        listener.close()
        return stalled, code, "\n".join(daemon.console())

    stalled, code, console = asyncio.run(scenario())
    assert stalled, console
    assert code == -signal.SIGABRT, console
    assert "Fatal Python error: Aborted" in console and "in freeze" in console, console
