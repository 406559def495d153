"""Events of a match: invitations and its start, the play, the cube and resignations,
and the ends of games and matches."""

from __future__ import annotations

from fibsbot.protocol.board import FibsBoard
from fibsbot.protocol.events.base import Event

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
