"""Whether the opponents of our matches are on the server, as the daemon last saw them.

``daemon.json``'s ``opponents`` (kept by ``fibsbot.owner.live``) holds, for the opponent of
the match in play and of each saved match the driver knows of, ``online`` and ``since``
(when the daemon first saw it so): their who line or login line (online), their logout
line (not), their row of the ``show saved`` listing (its star), a match with them starting
(online).  A lost connection forgets it all: the daemon no longer sees the server.
``fibsbot status`` tells by it what a saved match waits for: the opponent, or only the
daemon (``waiting_text``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from fibsbot.protocol.events import Login, Logout, MatchResumed, MatchStart, SavedMatch, SavedMatchesHeader, WhoInfo
from fibsbot.protocol.match.outputs import MatchSnapshot

_NOT_RUNNING = "the daemon (not running: it resumes the match when both are back)"


def seen(event: object) -> tuple[str, bool] | None:
    """Whom ``event`` shows on the server or gone from it: (name, online)."""
    if isinstance(event, (WhoInfo, Login)):
        return event.name, True
    if isinstance(event, Logout):
        return event.name, False
    if isinstance(event, SavedMatch):
        return event.opponent, event.online
    if isinstance(event, (MatchStart, MatchResumed)):
        return event.opponent, True
    return None


def follow_presence(opponents: dict[str, Any], event: object, snapshot: MatchSnapshot, now: Callable[[], str]) -> bool:
    """Keep ``opponents`` for the players the driver plays or has a saved match with; True when it changed."""
    watched = set(getattr(snapshot, "saved_opponents", ()))  # a stand-in snapshot may not have them
    if snapshot.in_match and snapshot.opponent:
        watched.add(snapshot.opponent)
    changed = False
    news = seen(event)
    if news is not None and news[0] in watched:
        name, online = news
        known = opponents.get(name)
        if known is None or known.get("online") != online:
            opponents[name] = {"online": online, "since": now()}
            changed = True
    # a listing names the saved matches one row at a time: the others are forgotten after it
    if not isinstance(event, (SavedMatchesHeader, SavedMatch)):
        for name in [name for name in opponents if name not in watched]:
            del opponents[name]
            changed = True
    return changed


def clock_time(iso: str | None, today: dt.date | None = None) -> str:
    """``HH:MM`` in local time (with the date when it is not today); ``?`` when unreadable."""
    try:
        when = dt.datetime.fromisoformat(str(iso)).astimezone()
    except ValueError:
        return "?"
    today = today or dt.datetime.now().astimezone().date()
    return when.strftime("%H:%M" if when.date() == today else "%Y-%m-%d %H:%M")


def waiting_text(opponent: str, presence: dict | None, *, daemon_running: bool, refusing: bool) -> str:
    """What a saved match waits for: its opponent (logged in or not, as the daemon last saw),
    the daemon, or both."""
    online = None if not presence else presence.get("online")
    when = clock_time(presence.get("since")) if presence else ""
    if daemon_running:
        notes = [f"logged in since {when}"] if online else [f"logged out at {when}"] if online is False else []
        notes += ["refusing games"] if refusing else []
        return f"saved, waiting for {opponent}" + (f" ({', '.join(notes)})" if notes else "")
    if online:
        return (
            f"saved; {opponent} was logged in when the daemon stopped, waiting for the daemon "
            "(not running: it resumes the match once it runs again)"
        )
    if online is False:
        return f"saved, waiting for {opponent} (logged out at {when}) and for {_NOT_RUNNING}"
    return f"saved, waiting for {opponent} and for {_NOT_RUNNING}"
