"""The match driver's view of the lobby: who is online, saved matches, refused commands.

Handlers of ``fibsbot.protocol.match.driver.MatchDriver`` (pure like it): logins,
logouts and who lines feed ``SavedMatches``; the ``show saved`` listing says which
matches can be resumed, and a who line that shows a saved match's opponent ready after
the server refused to invite them (``** U is refusing games.``) invites them again; an
opponent who logs out during a match leaves it saved;
and a command the server does not know (``** Unknown command: 'board'``) is logged
once and never sent again on that connection, so the bot waits for the next board
line instead of depending on it.  Lobby events are not match activity.
"""

from __future__ import annotations

import re

import structlog

from fibsbot.protocol.events import (
    Event,
    Login,
    Logout,
    NoSavedMatches,
    SavedMatch,
    SavedMatchesHeader,
    ServerError,
    WhoInfo,
)
from fibsbot.protocol.match.memory import DriverMemory, Handler
from fibsbot.protocol.match.outputs import Output

log = structlog.get_logger("fibsbot.protocol.match.driver")

_UNKNOWN_COMMAND = re.compile(r"Unknown command: '(?P<command>[^']*)'")
_NO_SAVED_MATCH = re.compile(r"There(?:'s| is) no saved match with (?P<name>\S+?)\.")
_REFUSING_GAMES = re.compile(r"(?P<name>\S+) is refusing games\.")


def invite_if_idle(m: DriverMemory) -> list[Output]:
    return [] if m.in_match else list(m.saved.invitation())


def on_login(m: DriverMemory, event: Login) -> list[Output]:
    m.saved.logged_in(event.name)
    if m.in_match:
        return []
    return [*m.saved.on_return(event.name), *invite_if_idle(m)]


def on_logout(m: DriverMemory, event: Logout) -> list[Output]:
    m.saved.logged_out(event.name)
    if m.in_match and event.name == m.opponent:
        # the server saves a match whose player leaves; no "saved" line may come
        log.warning("opponent_logged_out", opponent=event.name)
        m.saved.suspect(event.name)
        m.leave_match("the opponent logged out")
    return []


def on_who(m: DriverMemory, event: WhoInfo) -> list[Output]:
    was_invitable = m.saved.invitable(event.name)
    m.saved.who(event)
    if was_invitable or not m.saved.knows(event.name):
        return []
    return invite_if_idle(m)


def on_saved_header(m: DriverMemory, event: SavedMatchesHeader) -> list[Output]:
    m.saved.listing_started()
    return []


def on_saved_row(m: DriverMemory, event: SavedMatch) -> list[Output]:
    m.saved.listed(event)
    return invite_if_idle(m)


def on_no_saved(m: DriverMemory, event: NoSavedMatches) -> list[Output]:
    m.saved.listing_started()
    return []


def refusal(m: DriverMemory, event: ServerError) -> bool:
    """Handle a refusal that concerns the lobby; True when it was one."""
    unknown = _UNKNOWN_COMMAND.search(event.message)
    if unknown is not None:
        command = unknown["command"].split()[0].lower() if unknown["command"].strip() else ""
        if command not in m.refused:
            m.refused.add(command)
            log.warning("command_refused", command=command, message=event.message)
        if command == "show":
            m.saved.refused()
        return True
    missing = _NO_SAVED_MATCH.search(event.message)
    if missing is not None:
        m.saved.forget(missing["name"])
        log.info("no_saved_match", opponent=missing["name"])
        return True
    refusing = _REFUSING_GAMES.fullmatch(event.message)
    if refusing is not None:
        m.saved.refuses_games(refusing["name"])
        log.info("opponent_not_ready", opponent=refusing["name"])
        return True
    return False


HANDLERS: dict[type[Event], Handler] = {
    Login: on_login,
    Logout: on_logout,
    WhoInfo: on_who,
    SavedMatchesHeader: on_saved_header,
    SavedMatch: on_saved_row,
    NoSavedMatches: on_no_saved,
}
