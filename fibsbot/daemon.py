"""``fibsbot run``: the daemon. Settings in, a connected bot out, records kept.

One process, one asyncio loop: the client reads the server while the agent thinks
in its executor; records observe.  SIGTERM and SIGINT log out cleanly (systemd
stops the unit with SIGTERM).  Under systemd (``Type=notify``) the daemon says READY
before its first connection, pings the watchdog from the loop and keeps ``STATUS=``
to the owner's state (``fibsbot.service``).

A bot that cannot keep its records must not play: ``check_data_dir`` proves, before
the first connection, that every folder the daemon writes takes a new file.  An
optional ``fibsbot.console.Console`` shows the operator what happens, one line an event.
"""

from __future__ import annotations

import asyncio
import os
import signal
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import structlog

from fibsbot.client.settings import bot_client
from fibsbot.config import ConfigError, Settings
from fibsbot.owner.live import OwnerRecords
from fibsbot.owner.readers import owner_dir
from fibsbot.protocol.events import MatchResumed, MatchStart
from fibsbot.protocol.match.outputs import NullObserver
from fibsbot.records.events import WireLog, configure_logging
from fibsbot.records.observer import MatchRecords
from fibsbot.records.queue import TrainingQueue
from fibsbot.records.space import DISK
from fibsbot.records.space import watch as watch_disk
from fibsbot.service.notify import Notifier, freeze_on_signal, watchdog_period, watchdog_pings
from fibsbot.service.status import ServiceStatus
from fibsbot.warmup import start_warmup
from nets.player import load_agent
from nets.store import NetStore

if TYPE_CHECKING:
    from fibsbot.client.connection import BotClient
    from fibsbot.console import Console
    from fibsbot.warmup import SearchWarmup


# the finished matches' files a daemon keeps in memory: it counts them all, and a year of
# matches must not grow it (``fibsbot status`` reads the folder, not this)
KEEP_FINISHED = 100


class DataDirUnwritable(ConfigError):
    """A folder the daemon writes its records to does not take new files."""


def check_writable(folder: Path) -> None:
    """Create ``folder`` if needed and write and remove a file in it; DataDirUnwritable if
    that fails.  Only trying tells: root ignores permission bits, and a read-only mount,
    a full disk or a file where the folder should be show only on writing."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, probe = tempfile.mkstemp(prefix=".fibsbot-write-test-", dir=folder)
        os.close(handle)
        os.unlink(probe)
    except OSError as exc:
        if folder.exists() and not folder.is_dir():
            reason = "it is a file, not a folder"
        else:
            reason = (exc.strerror or str(exc)).lower()
        raise DataDirUnwritable(
            f"{folder}: cannot write there ({reason}), so the bot could not keep its records; "
            "it does not log in until the folder is writable (or data_dir names another)"
        ) from None


def check_data_dir(settings: Settings) -> None:
    """Every folder the daemon writes: the queue's, the match records', the log's, the owner files'."""
    for folder in (settings.data_dir, settings.matches_dir, settings.log_dir, owner_dir(settings.data_dir)):
        check_writable(folder)


def prepare_logging(settings: Settings) -> Path:
    """JSON lines in ``log/fibsbot.jsonl``; the password is known to the redactor first."""
    settings.log_dir.mkdir(parents=True, exist_ok=True)
    path = settings.log_dir / "fibsbot.jsonl"
    configure_logging(
        path, secrets=[settings.fibs_password().get_secret_value()], max_bytes=settings.records.log_max_mb * 1024 * 1024
    )
    return path


class NetReloader(NullObserver):
    """Swaps in a newly promoted net (``fibsbot retrain``) when a match starts, so
    the daemon learns without a restart; a match is always played by one net."""

    def __init__(self, settings: Settings, records: MatchRecords, console: Console | None = None) -> None:
        self.settings = settings
        self.store = NetStore(settings.data_dir / "nets")
        self.records = records
        self.console = console
        self.client: BotClient | None = None
        self.version = self.store.current_version()
        self.search_ready: SearchWarmup | None = None  # the start's warm-up, handed to every agent it loads

    def agent_spec(self) -> str:
        current = self.store.current_path()
        if current is not None and self.settings.play.net == "default":
            return f"net:{current}@{self.settings.play.depth}"
        return self.settings.play.agent_spec

    def load_agent(self):
        """The agent of ``agent_spec``, with the configured threads."""
        return load_agent(self.agent_spec(), workers=self.settings.play.threads)

    def on_event(self, event, snapshot) -> None:
        if not isinstance(event, (MatchStart, MatchResumed)) or self.client is None:
            return
        version = self.store.current_version()
        if version is None or version == self.version:
            return
        agent = self.load_agent()
        if self.search_ready is not None:
            agent.search_ready = self.search_ready
        self.client.agent = agent
        self.records.net_version = f"{agent.evaluator.name}:{version}"
        self.version = version
        structlog.get_logger("fibsbot.daemon").info("net_reloaded", version=version, agent=agent.name)
        if self.console is not None:
            self.console.say(f"net promoted by retrain: now playing version {version} ({agent.name})")


async def run_daemon(settings: Settings, stop: asyncio.Event | None = None, console: Console | None = None) -> None:
    """Play until ``stop`` (or SIGTERM/SIGINT); DataDirUnwritable before connecting if the
    records cannot be kept, LoginGivenUp when the server keeps refusing the login."""
    log = structlog.get_logger("fibsbot.daemon")
    user, _ = settings.fibs_login()
    check_data_dir(settings)
    queue = TrainingQueue(settings.queue_path, max_rows=settings.records.queue_max_rows)
    records = MatchRecords(
        settings.matches_dir,
        queue,
        user=user,
        net_version="",
        wire_log=WireLog(log),
        site=f"{settings.server.host}:{settings.server.port}",
        keep_finished=KEEP_FINISHED,
    )
    reloader = NetReloader(settings, records, console)
    agent = reloader.load_agent()
    reloader.search_ready = start_warmup(agent, log, enabled=settings.play.warmup)
    records.net_version = f"{agent.evaluator.name}:{reloader.version or 'shipped'}"
    # status files for `fibsbot status`, the rating lines named by the account as the journals' site
    owner = OwnerRecords(settings.data_dir, user, server=f"{settings.server.host}:{settings.server.port}")
    notifier = Notifier()
    service = ServiceStatus(notifier, owner, asyncio.get_running_loop())  # after the owner: it says its state
    observers: list = [reloader, records, owner, service]
    if console is not None:
        observers.append(console)  # last: it tells what the records have already written
    client = bot_client(settings, agent, observers)
    client.driver.crawford.record = records  # a resumed match's Crawford game, from its journal
    reloader.client = client
    # a full disk: the match in play is kept in memory, new invitations refused until there is room
    client.policy.unable = watch_disk(settings.data_dir, console.say if console is not None else None)
    DISK.listeners.append(service.disk_changed)
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    stopped_by: list[str] = []

    def on_signal(name: str) -> None:
        stopped_by.append(name)
        stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, on_signal, sig.name)
        except (NotImplementedError, RuntimeError):  # not the main thread
            pass

    async def stopper() -> None:
        await stop.wait()
        reason = stopped_by[0] if stopped_by else "request"
        log.info("stopping", reason=reason)
        said = f"stopping ({reason})" + (": logging out" if client.logged_in else "")
        notifier.stopping(said)
        if console is not None:
            console.say(said)
        client.stop()

    watcher = asyncio.create_task(stopper())
    log.info(
        "daemon_start",
        user=user,
        server=settings.server.host,
        port=settings.server.port,
        agent=agent.name,
        data_dir=str(settings.data_dir),
    )
    owner.started(
        server=settings.server.host,
        port=settings.server.port,
        agent=agent.name,
        net_version=records.net_version,
        log_max_mb=settings.records.log_max_mb,  # the log's cap, for `fibsbot status`
    )
    # before the first connection: a server down at boot must not run into the start timeout
    notifier.ready(service.text())
    pinger = _start_watchdog(notifier, loop)
    warming = None
    if console is not None:
        warming = _announce_start(console, settings, agent.name, reloader.search_ready, agent.ply)
    try:
        await client.run()
    finally:
        owner.stopped()
        watcher.cancel()
        if pinger is not None:
            pinger.cancel()
        summary = f"stopped: {records.finished_count} matches finished, {records.queued} positions queued"
        notifier.stopping(summary)
        notifier.close()
        if warming is not None:
            warming.cancel()
        queue.close()
        log.info("daemon_stop", matches=records.finished_count, queued=records.queued)
        if console is not None:
            console.say(summary)


def _start_watchdog(notifier: Notifier, loop: asyncio.AbstractEventLoop) -> asyncio.Task | None:
    """The pings systemd's watchdog asks for (``WatchdogSec=``), sent from this loop so that a
    loop that stops turning stops them; and the tests' hook that freezes the loop."""
    freeze_on_signal(loop)
    period = watchdog_period()
    if period is None or not notifier.enabled:
        return None
    log = structlog.get_logger("fibsbot.daemon")
    log.info("watchdog", ping_every_s=period)
    return asyncio.create_task(watchdog_pings(notifier, period))


def _announce_start(
    console: Console, settings: Settings, agent_name: str, warmup: SearchWarmup | None, ply: int
) -> asyncio.Task | None:
    """The start line, and while the search compiles, that the bot plays at 0-ply until it is
    ready (the console says when); returns the task that watches the warm-up, if any."""
    console.say(f"starting: {agent_name}, records in {settings.data_dir}")
    if warmup is None:
        return None
    if warmup.ready:
        if warmup.outcome == "failed":  # the child could not even start
            console.search_ready(ply, "failed", 0.0)
        return None
    warmup.on_ready = lambda outcome, seconds: console.search_ready(ply, outcome, seconds)
    detail = (
        f"in the background, pid {warmup.proc.pid}, once per install"
        if warmup.proc is not None
        else "by the warm-up an earlier start left running"
    )
    console.warming(ply, detail)
    return asyncio.create_task(_watch_warmup(warmup))


async def _watch_warmup(warmup: SearchWarmup, every_s: float = 2.0) -> None:
    """Ask the warm-up now and then, so that its end is told when it comes, not at the next
    decision (the agent switches to its search at its next decision either way)."""
    while not warmup():
        await asyncio.sleep(every_s)
