"""What the running bot leaves for its owner: its own state, and the server's rating lines.

``OwnerRecords`` is a match observer (it only watches).  ``started`` writes
``DIR/owner/daemon.json`` (pid, start time, server, user, engine), ``stopped``
marks it stopped; while the daemon runs the file also says which match is in play
(``match``: none while the bot is between matches, disconnected, or its opponent left),
which saved matches' opponents the server said are refusing games (``refusing``), and the
connection to the server (``connection``: logged in, or down since when and why;
``fibsbot.owner.connection``), and whether the opponents of those matches are on the server
(``opponents``: ``fibsbot.owner.presence``).
Every who-info or own-info line about our user whose rating or experience differs
from the account's last one is appended to ``DIR/owner/ratings.jsonl`` with the
server and user it is for, so that two accounts sharing a data directory (the arena's
``fibsbot``, the daemon's own) keep their figures apart.
A failure here is logged and never reaches the bot.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import Any, TextIO

import structlog

from fibsbot.owner.connection import ConnectionState
from fibsbot.owner.presence import follow_presence
from fibsbot.owner.readers import DAEMON_FILE, OWNER_FORMAT, RATINGS_FILE, RETRAINS_FILE, owner_dir, read_jsonl
from fibsbot.protocol.events import Logout, MatchResumed, MatchStart, OwnInfo, ServerError, WhoInfo
from fibsbot.protocol.match.outputs import NullObserver
from fibsbot.protocol.notices import refusing_games
from fibsbot.records.atomic import write_atomically
from fibsbot.records.events import open_log_file

log = structlog.get_logger("fibsbot.owner")


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


class OwnerRecords(NullObserver):
    """``server`` names the account's server in the rating rows (``host:port``, as the match
    journals' ``site``); only a started daemon (``started``) writes ``daemon.json``."""

    def __init__(self, data_dir: Path, user: str, server: str | None = None) -> None:
        self.folder = owner_dir(data_dir)
        self.user = user
        self.server = server
        self.state: dict[str, Any] = {}
        self._last: tuple[float | None, int | None] | None = None  # (rating, experience) last recorded
        self._ratings: TextIO | None = None
        self.connection: ConnectionState | None = None

    def started(self, **details: Any) -> None:
        """The daemon is up: ``details`` are server, port, agent and the like."""
        self.state = {"pid": os.getpid(), "started": _now(), "user": self.user, **details, "match": None}
        self.state["refusing"] = []
        if "server" in details and "port" in details:
            self.connection = ConnectionState(str(details["server"]), int(details["port"]))
            self.state["connection"] = self.connection.as_dict()
        if self.server is None and "server" in details:
            self.server = f"{details['server']}:{details['port']}" if "port" in details else str(details["server"])
        self._write_state()

    def stopped(self) -> None:
        if self.state:
            self.state["stopped"] = _now()
            self.state["match"] = None
            self._write_state()
        if self._ratings is not None:
            self._ratings.close()
            self._ratings = None

    def _write_state(self) -> None:
        try:
            state = {"format": OWNER_FORMAT, **self.state}
            write_atomically(self.folder / DAEMON_FILE, json.dumps(state, indent=1) + "\n")
        except OSError:
            log.warning("owner_state_unwritable", path=str(self.folder / DAEMON_FILE), exc_info=True)

    def on_event(self, event, snapshot) -> None:
        if isinstance(event, (WhoInfo, OwnInfo)) and event.name == self.user:
            try:
                self.rating(event.rating, event.experience)
            except Exception:  # noqa: BLE001 - a record problem must never reach the bot
                log.warning("rating_not_recorded", exc_info=True)
        if not self.state:
            return  # the arena's bot: no daemon state to keep
        changed = self._follow_refusals(event)
        if snapshot is not None:
            changed |= self._follow_match(snapshot.opponent if snapshot.in_match else None, snapshot.match_length)
            changed |= follow_presence(self.state.setdefault("opponents", {}), event, snapshot, _now)
        if changed:
            self._write_state()

    def _follow_match(self, opponent: str | None, length: int | None) -> bool:
        """The driver's match in play (``opponent`` None: none); True when the state changed."""
        known = self.state.get("match")
        if opponent is None:
            self.state["match"] = None
            return known is not None
        if known is None or known.get("opponent") != opponent:
            self.state["match"] = {"opponent": opponent, "length": length, "since": _now()}
            return True
        if known.get("length") != length:
            known["length"] = length
            return True
        return False

    def _follow_refusals(self, event) -> bool:
        """Keep ``refusing`` as the driver does: a refused invitation adds the player; their
        who line showing them ready, their logout, or a match with them removes them."""
        refusing: list[str] = self.state.setdefault("refusing", [])
        name: str | None = None
        if isinstance(event, ServerError):
            name = refusing_games(event.message)
            if name is not None and name not in refusing:
                refusing.append(name)
                return True
            return False
        if isinstance(event, WhoInfo) and event.ready:
            name = event.name
        elif isinstance(event, Logout):
            name = event.name
        elif isinstance(event, (MatchStart, MatchResumed)):
            name = event.opponent
        if name is not None and name in refusing:
            refusing.remove(name)
            return True
        return False

    def on_session(self, what: str, details: dict[str, Any]) -> None:
        """The client's session (``client.dispatch._report``): no match is in play while the
        connection is down, and a new login forgets who refused (the driver invites again);
        ``connection`` follows the session."""
        if not self.state:
            return
        changed = False
        if self.connection is not None and self.connection.follow(what, details):
            self.state["connection"] = self.connection.as_dict()
            changed = True
        if what in ("connection_lost", "logged_in") and (self.state.get("match") or self.state.get("refusing")):
            self.state["match"] = None
            self.state["refusing"] = []
            changed = True
        if what == "connection_lost" and self.state.get("opponents"):
            self.state["opponents"] = {}  # the server is out of sight: who is on it is no longer known
            changed = True
        if changed:
            self._write_state()

    def rating(self, rating: float, experience: int) -> None:
        """Append the server's figures for our user when they changed since the account's last row."""
        if self._last is None:
            mine = [row for row in read_jsonl(self.folder / RATINGS_FILE) if self._mine(row)]
            self._last = (mine[-1].get("rating"), mine[-1].get("experience")) if mine else None
        figures = (float(rating), int(experience))
        if figures == self._last:
            return
        if self._ratings is None:
            self._ratings = open_log_file(self.folder / RATINGS_FILE)
        row = {"format": OWNER_FORMAT, "time": _now(), "user": self.user, "server": self.server, "rating": figures[0]}
        self._ratings.write(json.dumps({**row, "experience": figures[1]}) + "\n")
        self._last = figures

    def _mine(self, row: dict) -> bool:
        return row.get("user") == self.user and row.get("server") == self.server


def record_retrain(data_dir: Path, report: dict) -> None:
    """Append a retrain's report, with the time it finished, to ``DIR/training/retrains.jsonl``
    (``last_report.json`` keeps only the last one; the report plots them all)."""
    with open_log_file(Path(data_dir) / "training" / RETRAINS_FILE) as out:
        out.write(json.dumps({"format": OWNER_FORMAT, "finished": _now(), **report}, default=str) + "\n")
