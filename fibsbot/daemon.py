"""``fibsbot run``: the daemon. Settings in, a connected bot out, records kept.

One process, one asyncio loop: the client reads the server while the agent thinks
in its executor; records observe.  SIGTERM and SIGINT log out cleanly (systemd
stops the unit with SIGTERM).
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import TYPE_CHECKING

import structlog

from fibsbot.client.settings import bot_client
from fibsbot.config import Settings
from fibsbot.owner.live import OwnerRecords
from fibsbot.protocol.events import MatchResumed, MatchStart
from fibsbot.protocol.match.outputs import NullObserver
from fibsbot.records.events import WireLog, configure_logging
from fibsbot.records.observer import MatchRecords
from fibsbot.records.queue import TrainingQueue
from fibsbot.warmup import start_warmup
from nets.player import load_agent
from nets.store import NetStore

if TYPE_CHECKING:
    from fibsbot.client.connection import BotClient
    from fibsbot.warmup import SearchWarmup


def prepare_logging(settings: Settings) -> Path:
    """JSON lines in ``log/fibsbot.jsonl``; the password is known to the redactor first."""
    settings.log_dir.mkdir(parents=True, exist_ok=True)
    path = settings.log_dir / "fibsbot.jsonl"
    configure_logging(path, secrets=[settings.fibs_password().get_secret_value()])
    return path


class NetReloader(NullObserver):
    """Swaps in a newly promoted net (``fibsbot retrain``) when a match starts, so
    the daemon learns without a restart; a match is always played by one net."""

    def __init__(self, settings: Settings, records: MatchRecords) -> None:
        self.settings = settings
        self.store = NetStore(settings.data_dir / "nets")
        self.records = records
        self.client: BotClient | None = None
        self.version = self.store.current_version()
        self.search_ready: SearchWarmup | None = None  # the start's warm-up, handed to every agent it loads

    def agent_spec(self) -> str:
        current = self.store.current_path()
        if current is not None and self.settings.play.net == "default":
            return f"net:{current}@{self.settings.play.depth}"
        return self.settings.play.agent_spec

    def load_agent(self):
        """The agent of ``agent_spec``, its table level given the configured time."""
        agent = load_agent(self.agent_spec())
        if agent.think:
            agent.think = self.settings.play.think
        return agent

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


async def run_daemon(settings: Settings, stop: asyncio.Event | None = None) -> None:
    log = structlog.get_logger("fibsbot.daemon")
    user, _ = settings.fibs_login()
    queue = TrainingQueue(settings.queue_path)
    records = MatchRecords(
        settings.matches_dir,
        queue,
        user=user,
        net_version="",
        wire_log=WireLog(log),
        site=f"{settings.server.host}:{settings.server.port}",
    )
    reloader = NetReloader(settings, records)
    agent = reloader.load_agent()
    reloader.search_ready = start_warmup(agent, log, enabled=settings.play.warmup)
    records.net_version = f"{agent.evaluator.name}:{reloader.version or 'shipped'}"
    owner = OwnerRecords(settings.data_dir, user)  # status files for `fibsbot status`
    client = bot_client(settings, agent, [reloader, records, owner])
    client.driver.crawford.record = records  # a resumed match's Crawford game, from its journal
    reloader.client = client
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError):  # not the main thread
            pass

    async def stopper() -> None:
        await stop.wait()
        log.info("stopping", reason="signal or request")
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
        server=settings.server.host, port=settings.server.port, agent=agent.name, net_version=records.net_version
    )
    try:
        await client.run()
    finally:
        owner.stopped()
        watcher.cancel()
        queue.close()
        log.info("daemon_stop", matches=len(records.finished), queued=records.queued)
