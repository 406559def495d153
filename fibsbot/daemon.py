"""``fibsbot run``: the daemon. Settings in, a connected bot out, records kept.

One process, one asyncio loop: the client reads the server while the agent thinks
in its executor; records observe.  SIGTERM and SIGINT log out cleanly (systemd
stops the unit with SIGTERM).
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import structlog

from engine.agent import load_agent
from fibsbot.client_config import bot_client
from fibsbot.config import Settings
from fibsbot.records.events import WireLog, configure_logging
from fibsbot.records.observer import MatchRecords
from fibsbot.records.queue import TrainingQueue


def prepare_logging(settings: Settings) -> Path:
    """JSON lines in ``log/fibsbot.jsonl``; the password is known to the redactor first."""
    settings.log_dir.mkdir(parents=True, exist_ok=True)
    path = settings.log_dir / "fibsbot.jsonl"
    configure_logging(path, secrets=[settings.fibs_password().get_secret_value()])
    return path


async def run_daemon(settings: Settings, stop: asyncio.Event | None = None) -> None:
    log = structlog.get_logger("fibsbot.daemon")
    user, _ = settings.fibs_login()
    agent = load_agent(settings.play.agent_spec)
    queue = TrainingQueue(settings.queue_path)
    records = MatchRecords(settings.matches_dir, queue, user=user, net_version=agent.evaluator.name,
                           wire_log=WireLog(log), site=f"{settings.server.host}:{settings.server.port}")
    client = bot_client(settings, agent, [records])
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
    log.info("daemon_start", user=user, server=settings.server.host, port=settings.server.port,
             agent=agent.name, data_dir=str(settings.data_dir))
    try:
        await client.run()
    finally:
        watcher.cancel()
        queue.close()
        log.info("daemon_stop", matches=len(records.finished), queued=records.queued)
