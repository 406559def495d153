"""The match driver's view of the lobby: who is online, saved matches, refused commands.

A mixin of ``fibsbot.protocol.match.driver.MatchDriver`` (pure like it): logins, logouts and who
lines feed ``SavedMatches``; the ``show saved`` listing says which matches can be
resumed; an opponent who logs out during a match leaves it saved; and a command
the server does not know (``** Unknown command: 'board'``) is logged once and
never sent again on that connection, so the bot waits for the next board line
instead of depending on it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import structlog

from fibsbot.protocol.events import Login, Logout, NoSavedMatches, SavedMatch, SavedMatchesHeader, ServerError, WhoInfo
from fibsbot.protocol.match.outputs import Output
from fibsbot.protocol.match.saved import SavedMatches

log = structlog.get_logger("fibsbot.protocol.match.driver")

_UNKNOWN_COMMAND = re.compile(r"Unknown command: '(?P<command>[^']*)'")
_NO_SAVED_MATCH = re.compile(r"There(?:'s| is) no saved match with (?P<name>\S+?)\.")


class LobbyHandlers:
    saved: SavedMatches
    refused: set[str]
    _in_match: bool
    _opponent: str | None
    _leave_match: Callable[[str], None]  # from MatchEnding

    def _invite_if_idle(self) -> list[Output]:
        return [] if self._in_match else list(self.saved.invitation())

    def _on_login(self, event: Login) -> list[Output]:
        self.saved.logged_in(event.name)
        if self._in_match:
            return []
        return [*self.saved.on_return(event.name), *self._invite_if_idle()]

    def _on_logout(self, event: Logout) -> list[Output]:
        self.saved.logged_out(event.name)
        if self._in_match and event.name == self._opponent:
            # the server saves a match whose player leaves; no "saved" line may come
            log.warning("opponent_logged_out", opponent=event.name)
            self.saved.suspect(event.name)
            self._leave_match("the opponent logged out")
        return []

    def _on_who(self, event: WhoInfo) -> list[Output]:
        was_free = event.name in self.saved.online and event.name not in self.saved.playing
        self.saved.who(event)
        if was_free or not self.saved.knows(event.name):
            return []
        return self._invite_if_idle()

    def _on_saved_header(self, event: SavedMatchesHeader) -> list[Output]:
        self.saved.listing_started()
        return []

    def _on_saved_row(self, event: SavedMatch) -> list[Output]:
        self.saved.listed(event)
        return self._invite_if_idle()

    def _on_no_saved(self, event: NoSavedMatches) -> list[Output]:
        self.saved.listing_started()
        return []

    def _refusal(self, event: ServerError) -> bool:
        """Handle a refusal that concerns the lobby; True when it was one."""
        unknown = _UNKNOWN_COMMAND.search(event.message)
        if unknown is not None:
            command = unknown["command"].split()[0].lower() if unknown["command"].strip() else ""
            if command not in self.refused:
                self.refused.add(command)
                log.warning("command_refused", command=command, message=event.message)
            if command == "show":
                self.saved.refused()
            return True
        missing = _NO_SAVED_MATCH.search(event.message)
        if missing is not None:
            self.saved.forget(missing["name"])
            log.info("no_saved_match", opponent=missing["name"])
            return True
        return False

    _LOBBY_HANDLERS = {
        Login: _on_login, Logout: _on_logout, WhoInfo: _on_who, SavedMatchesHeader: _on_saved_header,
        SavedMatch: _on_saved_row, NoSavedMatches: _on_no_saved,
    }  # fmt: skip

