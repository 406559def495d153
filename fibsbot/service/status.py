"""The daemon's state in one line for ``systemctl status`` (systemd's ``STATUS=``).

``ServiceStatus`` is a match observer placed after ``OwnerRecords``: after each event or
session change it says the owner's state as ``fibsbot status`` does (the connection:
waiting for the server, connected, logged in as whom, or down since when and why), the
match in play or a saved match waiting for its opponent, and a full disk that keeps the bot
from taking matches; the notifier sends the line when it changed.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fibsbot.owner.connection import connection_text
from fibsbot.owner.live import OwnerRecords
from fibsbot.protocol.events import GameSaved, Logout, MatchEnd, MatchResumed, MatchStart
from fibsbot.protocol.match.outputs import NullObserver, saved_by_logout
from fibsbot.service.notify import Notifier


class ServiceStatus(NullObserver):
    def __init__(self, notifier: Notifier, owner: OwnerRecords, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.notifier = notifier
        self.owner = owner
        self.loop = loop
        self._opponent: str | None = None  # of the match in play, as the console follows it
        self.saved_with: str | None = None  # the opponent of the match saved last, until a match starts
        self.disk_full: str | None = None  # why, while the disk is full (``fibsbot.records.space``)

    def text(self) -> str:
        state = self.owner.state
        parts = [connection_text(state.get("connection"))]
        match = state.get("match")
        if match:
            kind = f"a {match['length']}-point match" if match.get("length") else "an unlimited match"
            parts.append(f"playing {kind} with {match['opponent']}")
        elif self.saved_with is not None:
            refusing = " (refusing games)" if self.saved_with in state.get("refusing", []) else ""
            parts.append(f"match with {self.saved_with} saved, waiting for {self.saved_with}{refusing}")
        if self.disk_full is not None:
            parts.append(f"{self.disk_full}: not taking matches")
        return "; ".join(parts)

    def update(self) -> None:
        if self.notifier.enabled and self.owner.state:
            self.notifier.status(self.text())

    def on_event(self, event, snapshot) -> None:
        if isinstance(event, (MatchStart, MatchResumed)):
            self._opponent, self.saved_with = event.opponent, None
        elif isinstance(event, GameSaved) and self._opponent is not None:
            self._opponent, self.saved_with = None, self._opponent
        elif isinstance(event, Logout) and saved_by_logout(event, self._opponent, snapshot):
            self._opponent, self.saved_with = None, self._opponent
        elif isinstance(event, MatchEnd):
            self._opponent = None
        self.update()

    def on_session(self, what: str, details: dict[str, Any]) -> None:
        self.update()

    def disk_changed(self, reason: str | None) -> None:
        """A ``fibsbot.records.space`` listener: it may be told from a writer's thread."""

        def change() -> None:
            self.disk_full = reason
            self.update()

        if self.loop is None:
            change()
        else:
            self.loop.call_soon_threadsafe(change)
