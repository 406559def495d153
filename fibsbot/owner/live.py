"""What the running bot leaves for its owner: its own state, and the server's rating lines.

``OwnerRecords`` is a match observer (it only watches).  ``started`` writes
``DIR/owner/daemon.json`` (pid, start time, server, user, engine), ``stopped``
marks it stopped; every who-info or own-info line about our user whose rating or
experience differs from the last one seen is appended to ``DIR/owner/ratings.jsonl``.
A failure here is logged and never reaches the bot.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import Any, TextIO

import structlog

from fibsbot.owner.readers import DAEMON_FILE, RATINGS_FILE, RETRAINS_FILE, owner_dir, read_jsonl
from fibsbot.protocol.events import OwnInfo, WhoInfo
from fibsbot.protocol.match.outputs import NullObserver
from fibsbot.records.atomic import write_atomically
from fibsbot.records.events import open_log_file

log = structlog.get_logger("fibsbot.owner")


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


class OwnerRecords(NullObserver):
    def __init__(self, data_dir: Path, user: str) -> None:
        self.folder = owner_dir(data_dir)
        self.user = user
        self.state: dict[str, Any] = {}
        self._last: tuple[float | None, int | None] | None = None  # (rating, experience) last recorded
        self._ratings: TextIO | None = None

    def started(self, **details: Any) -> None:
        """The daemon is up: ``details`` are server, port, agent and the like."""
        self.state = {"pid": os.getpid(), "started": _now(), "user": self.user, **details}
        self._write_state()

    def stopped(self) -> None:
        if self.state:
            self.state["stopped"] = _now()
            self._write_state()
        if self._ratings is not None:
            self._ratings.close()
            self._ratings = None

    def _write_state(self) -> None:
        try:
            write_atomically(self.folder / DAEMON_FILE, json.dumps(self.state, indent=1) + "\n")
        except OSError:
            log.warning("owner_state_unwritable", path=str(self.folder / DAEMON_FILE), exc_info=True)

    def on_event(self, event, snapshot) -> None:
        if isinstance(event, (WhoInfo, OwnInfo)) and event.name == self.user:
            try:
                self.rating(event.rating, event.experience)
            except Exception:  # noqa: BLE001 - a record problem must never reach the bot
                log.warning("rating_not_recorded", exc_info=True)

    def rating(self, rating: float, experience: int) -> None:
        """Append the server's figures for our user when they changed."""
        if self._last is None:
            earlier = read_jsonl(self.folder / RATINGS_FILE)
            self._last = (earlier[-1].get("rating"), earlier[-1].get("experience")) if earlier else None
        figures = (float(rating), int(experience))
        if figures == self._last:
            return
        if self._ratings is None:
            self._ratings = open_log_file(self.folder / RATINGS_FILE)
        self._ratings.write(json.dumps({"time": _now(), "rating": figures[0], "experience": figures[1]}) + "\n")
        self._last = figures


def record_retrain(data_dir: Path, report: dict) -> None:
    """Append a retrain's report, with the time it finished, to ``DIR/training/retrains.jsonl``
    (``last_report.json`` keeps only the last one; the report plots them all)."""
    with open_log_file(Path(data_dir) / "training" / RETRAINS_FILE) as out:
        out.write(json.dumps({"finished": _now(), **report}, default=str) + "\n")
