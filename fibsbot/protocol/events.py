"""Typed events for every server line the bot understands (see ``fibsbot.protocol.parser``).

Events are frozen pydantic models, one class per kind.  Where a message exists in
a form about us and a form about another player ("You can't move." / "U can't
move."), one class covers both: ``player`` holds the name as written (``You`` for
us) and ``is_us`` says which form it was.  Match lengths are ``None`` for
unlimited matches.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from fibsbot.protocol.board import FibsBoard

__all__ = [
    "BadBoard",
    "Banner",
    "Board",
    "CantMove",
    "ConnectionTimedOut",
    "DoubleAccepted",
    "DoubleOffered",
    "DoubleRejected",
    "Event",
    "GameEnd",
    "GameSaved",
    "GiveUp",
    "Invitation",
    "InviteSent",
    "JoinInstructions",
    "JoinNextGamePrompt",
    "Kibitzes",
    "Login",
    "LoginFailed",
    "LoginPrompt",
    "Logout",
    "MatchEnd",
    "MatchResumed",
    "MatchStart",
    "MessageDelivered",
    "MessageSaved",
    "MotdEnd",
    "MotdLine",
    "MotdStart",
    "NewGame",
    "NoSavedMatches",
    "OnlyPossibleMove",
    "OpeningRoll",
    "OpponentMoves",
    "OpponentMovesFirst",
    "OpponentRolls",
    "OwnInfo",
    "PasswordPrompt",
    "PleaseMove",
    "PleaseRollOrDouble",
    "Prompt",
    "ResignAccepted",
    "ResignOffered",
    "ResignRejected",
    "SavedMatch",
    "SavedMatchesHeader",
    "Says",
    "ScoreLine",
    "ServerError",
    "SettingChanged",
    "Shouts",
    "StoredMessage",
    "ToggleChanged",
    "Unknown",
    "Welcome",
    "Whispers",
    "WhoEnd",
    "WhoInfo",
    "YouDoubled",
    "YouKibitz",
    "YouRoll",
    "YouSay",
    "YouShout",
    "YouWhisper",
    "YourTurnToMove",
]


class Event(BaseModel):
    model_config = ConfigDict(frozen=True)


# --- login and prompts -------------------------------------------------------------


class LoginPrompt(Event):
    attempt: int  # how many login prompts this connection has seen, this one included


class LoginFailed(Event):
    """A login prompt right after we sent credentials: they were refused."""

    attempt: int


class PasswordPrompt(Event):
    pass


class Banner(Event):
    """A line of the server's greeting: the text before its first ``login: `` prompt."""

    text: str


class Prompt(Event):
    """The ``> `` command prompt."""


class Welcome(Event):  # CLIP 1
    name: str
    last_login: int
    last_host: str


class OwnInfo(Event):  # CLIP 2
    name: str
    allowpip: bool
    autoboard: bool
    autodouble: bool
    automove: bool
    away: bool
    bell: bool
    crawford: bool
    double: bool
    experience: int
    greedy: bool
    moreboards: bool
    moves: bool
    notify: bool
    rating: float
    ratings: bool
    ready: bool
    redoubles: int | None  # None = unlimited; FIBS writes "none" for 0
    report: bool
    silent: bool
    timezone: str

    def toggles(self) -> dict[str, bool]:
        """Current values by their ``toggle`` command names (toggles flip, so compare first)."""
        return {name: value for name, value in self.model_dump().items() if isinstance(value, bool)}


class MotdStart(Event):  # CLIP 3
    pass


class MotdLine(Event):
    text: str


class MotdEnd(Event):  # CLIP 4
    pass


class WhoInfo(Event):  # CLIP 5; "-" fields become None
    name: str
    opponent: str | None
    watching: str | None
    ready: bool
    away: bool
    rating: float
    experience: int
    idle: int
    login: int
    hostname: str
    client: str | None
    email: str | None


class WhoEnd(Event):  # CLIP 6
    pass


class Login(Event):  # CLIP 7
    name: str
    message: str


class Logout(Event):  # CLIP 8
    name: str
    message: str


class StoredMessage(Event):  # CLIP 9
    sender: str
    time: int
    text: str


class MessageDelivered(Event):  # CLIP 10
    name: str


class MessageSaved(Event):  # CLIP 11
    name: str


# --- chat (CLIP 12-19) ---------------------------------------------------------------


class Says(Event):
    name: str
    text: str


class Shouts(Event):
    name: str
    text: str


class Whispers(Event):
    name: str
    text: str


class Kibitzes(Event):
    name: str
    text: str


class YouSay(Event):
    name: str  # the player we told
    text: str


class YouShout(Event):
    text: str


class YouWhisper(Event):
    text: str


class YouKibitz(Event):
    text: str


# --- invitations and match start --------------------------------------------------------


class Invitation(Event):
    player: str
    length: int | None  # None: unlimited, or a resumed match (length unknown here)
    resume: bool


class JoinInstructions(Event):
    """``Type 'join U' to accept.`` after an invitation."""

    player: str


class InviteSent(Event):
    player: str
    length: int | None
    resume: bool


class MatchStart(Event):
    opponent: str
    length: int | None
    we_joined: bool  # True: we accepted their invitation; False: they accepted ours


class MatchResumed(Event):
    """A saved match reloaded, with the turn/length/points lines that follow it."""

    opponent: str
    we_joined: bool
    turn: str | None = None
    length: int | None = None
    points: dict[str, int] = {}


class NewGame(Event):
    opponent: str


class OpeningRoll(Event):
    opponent: str
    our_die: int
    their_die: int


class YourTurnToMove(Event):
    pass


class OpponentMovesFirst(Event):
    player: str


# --- play ------------------------------------------------------------------------------------


class Board(Event):
    board: FibsBoard
    line: str


class PleaseRollOrDouble(Event):
    pass


class YouRoll(Event):
    d1: int
    d2: int


class PleaseMove(Event):
    pieces: int


class CantMove(Event):
    player: str
    is_us: bool


class OnlyPossibleMove(Event):
    move: str  # FIBS notation as sent, e.g. "24-18 13-11"


class OpponentRolls(Event):
    player: str
    d1: int
    d2: int


class OpponentMoves(Event):
    player: str
    move: str  # server numbering, e.g. "19-23 17-22", "bar-22", "20-off"


# --- cube and resignations ------------------------------------------------------------------


class YouDoubled(Event):
    opponent: str


class DoubleOffered(Event):
    player: str


class DoubleAccepted(Event):
    player: str
    is_us: bool
    cube: int


class DoubleRejected(Event):
    """``U gives up. You win 1 point.``: a double was dropped (GiveUp)."""

    player: str  # who gave up
    is_us: bool
    winner: str
    points: int


GiveUp = DoubleRejected


class ResignOffered(Event):
    player: str  # who resigns
    is_us: bool
    points: int


class ResignAccepted(Event):
    player: str  # who accepted (and wins)
    is_us: bool
    points: int


class ResignRejected(Event):
    player: str
    is_us: bool


# --- game and match end ---------------------------------------------------------------------


class GameEnd(Event):
    winner: str
    we_won: bool
    points: int


class ScoreLine(Event):
    length: int | None
    players: tuple[str, str]
    scores: tuple[int, int]


class JoinNextGamePrompt(Event):
    pass


class MatchEnd(Event):
    winner: str
    we_won: bool
    length: int
    scores: tuple[int, int]  # in the order the server writes them (winner's first)


class GameSaved(Event):
    player: str
    reason: str  # left, terminated, dropped, logged_out, timed_out


class ConnectionTimedOut(Event):
    pass


# --- the saved matches (``show saved``) ------------------------------------------------------


class SavedMatchesHeader(Event):
    """``  opponent          matchlength   score (your points first)``: a listing begins."""


class SavedMatch(Event):
    """One row of the listing; a listing is complete, so earlier rows are forgotten at its header."""

    opponent: str
    length: int | None  # None: unlimited
    scores: tuple[int, int]  # ours first
    online: bool  # the row starts with "*" (logged in) or "**" (logged in and ready)
    ready: bool


class NoSavedMatches(Event):
    """``no saved games.``"""


class ServerError(Event):
    """A ``** ...`` line not recognised as anything more specific."""

    message: str


class ToggleChanged(Event):
    """The answer to ``toggle NAME`` (``** You will hear what other players shout.``)."""

    name: str
    value: bool


class SettingChanged(Event):
    """The answer to ``set NAME VALUE`` (``Value of 'boardstyle' set to 3.``)."""

    name: str
    value: str


# --- unrecognised --------------------------------------------------------------------------


class Unknown(Event):
    text: str
    reason: str | None = None


class BadBoard(Unknown):
    """A ``board:`` line that failed to parse; ``reason`` says why."""
