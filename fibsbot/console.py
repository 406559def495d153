"""Human lines on the console for what the bot does, beside the JSON log.

The JSON log (``fibsbot.records.events``) keeps everything for machines; an operator
watching ``fibsbot run`` (or ``journalctl -u fibsbot``) wants one readable line per
event that matters: connecting, logged in, the rating, each invitation and the
verdict, a match's start, score and end, reconnects, a promoted net, stopping.

``Console`` is a match observer (it only watches, like the records) that also
follows the client's session through ``on_session`` (``client.dispatch._report``),
so the daemon and the arena show the same lines for their bot.  Lines look like
structlog's ConsoleRenderer: a timestamp, the level in brackets, then the sentence.
Under systemd the journal stamps each line itself, so the timestamp is left out.
``quiet`` keeps only warnings and errors (a refused login, records that cannot be kept).
"""

from __future__ import annotations

import datetime as dt
import os
import sys
from typing import Any, TextIO

from fibsbot.client.reach import LOST, UNREACHABLE_KINDS, outage_text
from fibsbot.protocol.events import (
    DoubleRejected,
    GameEnd,
    GameSaved,
    Logout,
    MatchEnd,
    MatchResumed,
    MatchStart,
    OwnInfo,
    ResignAccepted,
    ScoreLine,
    ServerError,
    WhoInfo,
)
from fibsbot.protocol.match.outputs import NullObserver, saved_by_logout
from fibsbot.protocol.notices import refusing_games

_COLOURS = {"info": "\x1b[32m", "warning": "\x1b[33m", "error": "\x1b[31;1m"}
_RESET = "\x1b[0m"
_LEVEL_WIDTH = 9  # as ConsoleRenderer pads "warning"

# the policy's refusal reasons (``client.policy``) in an operator's words
_REFUSALS = {
    "busy": "playing another match",
    "denied": "on the deny list",
    "not on the allow list": "not on the allow list",
    "unlimited": "unlimited matches are off",
    "from ourselves": "from ourselves",
}

# how a saved match was left (``GameSaved.reason``), after the player's name
_SAVED = {
    "left": "left",
    "terminated": "ended the session",
    "dropped": "dropped the connection",
    "logged_out": "logged out",
    "timed_out": "timed out",
}


def writes_to_journal(stream: TextIO) -> bool:
    """Whether ``stream`` is systemd's journal: ``JOURNAL_STREAM`` names its device and inode."""
    marker = os.environ.get("JOURNAL_STREAM", "")
    try:
        device, inode = (int(part) for part in marker.split(":"))
        info = os.fstat(stream.fileno())
    except (ValueError, OSError, AttributeError):
        return False
    return (info.st_dev, info.st_ino) == (device, inode)


def _colours_wanted(stream: TextIO) -> bool:
    # https://no-color.org: any value of NO_COLOR turns colours off
    isatty = getattr(stream, "isatty", None)
    return "NO_COLOR" not in os.environ and callable(isatty) and bool(isatty())


def _points(n: int) -> str:
    return f"{n} point{'s' if n != 1 else ''}"


def _match_kind(length: int | None) -> str:
    return "an unlimited match" if not length else f"a {length}-point match"


class Console(NullObserver):
    """One human line per event that matters, on ``stream`` (stderr by default)."""

    def __init__(
        self,
        user: str,
        stream: TextIO | None = None,
        *,
        quiet: bool = False,
        timestamps: bool | None = None,
        colours: bool | None = None,
    ) -> None:
        self.user = user
        self.stream = stream if stream is not None else sys.stderr
        self.quiet = quiet
        self.timestamps = not writes_to_journal(self.stream) if timestamps is None else timestamps
        self.colours = _colours_wanted(self.stream) if colours is None else colours
        self._rating: tuple[float, int] | None = None
        self._opponent: str | None = None
        self._length: int | None = None
        self._last_game = ""  # how the last game ended, told with the score that follows
        self._refusal_told = False
        self._refusing: set[str] = set()  # players said to be refusing games, until they are ready or leave
        self._started = False
        # the kind of failure last said (``client.reach``), None once logged in: an outage
        # is said when it starts and when it changes, not at every retry
        self._down: str | None = None

    # --- output --------------------------------------------------------------------------

    def say(self, text: str, level: str = "info") -> None:
        """Print one line; ``quiet`` keeps warnings and errors only."""
        if self.quiet and level == "info":
            return
        label = f"[{level:<{_LEVEL_WIDTH}}]"
        if self.colours:
            label = f"[{_COLOURS.get(level, '')}{level:<{_LEVEL_WIDTH}}{_RESET}]"
        stamp = dt.datetime.now().strftime("%Y-%m-%d %H:%M:%S ") if self.timestamps else ""
        try:
            print(f"{stamp}{label} {text}", file=self.stream, flush=True)
        except (OSError, ValueError):  # a closed console must not stop the bot
            pass

    # --- the client's session (``on_session``) --------------------------------------------

    def on_session(self, what: str, details: dict[str, Any]) -> None:
        handler = getattr(self, f"_session_{what}", None)
        if handler is not None:
            handler(**details)

    def _session_connecting(self, host: str, port: int) -> None:
        if not self._started:  # the retries are told by how they end
            self._started = True
            self.say(f"connecting to {host}:{port}")

    def _session_connected(self, host: str, port: int) -> None:
        if self._down in UNREACHABLE_KINDS:
            self._down = "connected"
            self.say(f"connected to {host}:{port}")

    def _session_logged_in(self, user: str) -> None:
        self._refusal_told = False
        self._refusing.clear()  # the driver invites them again after a login
        self._down = None
        self.say(f"logged in as {user}")

    def _session_login_refused(self, user: str, host: str, port: int, refusals: int, limit: int | None) -> None:
        if self._refusal_told:  # said once: a retry loop must not fill the console
            return
        self._refusal_told = True
        then = (
            "retrying with backoff"
            if limit is None
            else f"stopping after {limit} refusal{'s' if limit != 1 else ''} in a row"
        )
        self.say(f"login refused: {host}:{port} does not accept user {user} with this password; {then}", "warning")

    def _session_invitation(
        self, player: str, length: int | None, resume: bool, accept: bool, reason: str, lengths: tuple[int, int]
    ) -> None:
        offer = "to resume our saved match" if resume else f"to {_match_kind(length)}"
        if accept:
            self.say(f"invitation from {player} {offer}: accepted")
            return
        why = _REFUSALS.get(reason, reason)
        if reason == "length":
            low, high = lengths
            why = f"it plays {low} to {high} points" if low != high else f"it plays {low}-point matches"
        self.say(f"invitation from {player} {offer}: refused ({why})")

    def _session_connection_lost(
        self, error: str, kind: str = LOST, host: str = "", port: int = 0, retry_max_s: float = 0.0
    ) -> None:
        if kind == self._down:
            return
        self._down = kind
        what = outage_text(kind, error, host, port)  # as `fibsbot status` and systemd's STATUS= say it
        if kind == LOST:
            self.say(f"{what}; reconnecting", "warning")
            return
        self.say(f"{what}: retrying every {retry_max_s:g} s at most until it answers", "warning")

    def _session_logged_out(self, user: str) -> None:
        self.say(f"logged out ({user})")

    # --- the server's events (``on_event``) ------------------------------------------------

    def on_event(self, event, snapshot) -> None:
        if isinstance(event, WhoInfo) and event.ready:
            self._refusing.discard(event.name)
        if isinstance(event, (OwnInfo, WhoInfo)) and event.name == self.user:
            self._rating_seen(float(event.rating), int(event.experience))
        elif isinstance(event, MatchStart):
            self._opponent, self._length, self._last_game = event.opponent, event.length, ""
            how = "we joined their invitation" if event.we_joined else "they joined ours"
            self.say(f"match start: {_match_kind(event.length)} with {event.opponent} ({how})")
        elif isinstance(event, MatchResumed):
            self._opponent, self._length, self._last_game = event.opponent, event.length, ""
            score = ""
            if event.points:
                ours, theirs = event.points.get(self.user, 0), event.points.get(event.opponent, 0)
                score = f" at {ours}-{theirs}"
            kind = f" ({_match_kind(event.length)})" if event.length is not None else ""
            self.say(f"match resumed with {event.opponent}{score}{kind}")
        elif isinstance(event, (GameEnd, DoubleRejected, ResignAccepted)):
            self._last_game = _game_outcome(event)
        elif isinstance(event, ScoreLine):
            self._score(event)
        elif isinstance(event, MatchEnd):
            ours, theirs = event.scores if event.we_won else event.scores[::-1]
            opponent = self._opponent or event.winner
            game = f" ({self._last_game})" if self._last_game else ""
            self.say(f"match {'won' if event.we_won else 'lost'} {ours}-{theirs} against {opponent}{game}")
            self._opponent, self._last_game = None, ""
        elif isinstance(event, ServerError):
            self._refusing_games(refusing_games(event.message))
        elif isinstance(event, Logout):
            self._refusing.discard(event.name)
            if saved_by_logout(event, self._opponent, snapshot):
                self._match_saved(event.name, "dropped" if "drops connection" in event.message else "logged_out")
        elif isinstance(event, GameSaved) and self._opponent is not None:
            self._match_saved(event.player, event.reason)

    def _match_saved(self, player: str, reason: str) -> None:
        """Said once: whichever of the logout line and the "saved" line comes first tells it."""
        who = "we" if player in ("You", self.user) else player
        how = _SAVED.get(reason, reason.replace("_", " "))
        self.say(f"match with {self._opponent} saved ({who} {how}): it goes on when both are back")
        self._opponent = None

    def _refusing_games(self, name: str | None) -> None:
        """``** NAME is refusing games.``: the invitation to resume a saved match was refused; said
        once while they stay not ready (the driver invites again when their who line shows them ready)."""
        if name is None or name in self._refusing:
            return
        self._refusing.add(name)
        self.say(f"{name} is refusing games: our saved match with {name} waits until they are ready")

    def warming(self, ply: int, detail: str) -> None:
        """The searching agent plays at 0-ply until its search is compiled (``fibsbot.warmup``)."""
        self.say(f"playing at 0-ply while the {ply}-ply search compiles ({detail})")

    def search_ready(self, ply: int, outcome: str, seconds: float) -> None:
        if outcome == "failed":
            self.say(
                f"the search warm-up failed: the bot compiles the {ply}-ply search itself at its next decision "
                "(the JSON log says why)",
                "warning",
            )
            return
        self.say(f"the {ply}-ply search is ready after {seconds:.0f} s: moves at {ply}-ply from now")

    def _rating_seen(self, rating: float, experience: int) -> None:
        before = self._rating
        if before == (rating, experience):
            return
        self._rating = (rating, experience)
        change = "" if before is None else f" ({rating - before[0]:+.2f})"
        self.say(f"rating {rating:.2f}{change}, experience {experience}")

    def _score(self, line: ScoreLine) -> None:
        names = line.players
        ours = 0 if names[0] == self.user or names[1] == self._opponent else 1
        opponent = self._opponent or names[1 - ours]
        game = f"; {self._last_game}" if self._last_game else ""
        self.say(f"score {line.scores[ours]}-{line.scores[1 - ours]} against {opponent}{game}")
        self._last_game = ""


def _game_outcome(event: GameEnd | DoubleRejected | ResignAccepted) -> str:
    if isinstance(event, GameEnd):
        return f"{'we' if event.we_won else 'they'} won the game, {_points(event.points)}"
    if isinstance(event, DoubleRejected):  # ``is_us``: we gave up
        if event.is_us:
            return f"we dropped their double, they won {_points(event.points)}"
        return f"they dropped our double, we won {_points(event.points)}"
    # ResignAccepted: ``is_us``: we accepted their resignation, so we won
    if event.is_us:
        return f"they resigned, we won {_points(event.points)}"
    return f"we resigned, they won {_points(event.points)}"
