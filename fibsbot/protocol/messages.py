"""Free-text server messages: an ordered table of anchored regexes and event builders.

A message whose end is unambiguous (a full stop, a fixed word, a single die) is
matched as a *prefix* so that text glued to it can be split off and parsed as a
line of its own; a message ending in a name or free text must match the whole
line.  Texts follow REFERENCE.md section 1 and the variants real servers send
(double spaces before "The cube shows", "1 pieces", a missing " ." after moves).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from fibsbot.protocol.events import (
    CantMove,
    ConnectionTimedOut,
    DoubleAccepted,
    DoubleOffered,
    DoubleRejected,
    Event,
    GameEnd,
    GameSaved,
    Invitation,
    InviteSent,
    JoinInstructions,
    JoinNextGamePrompt,
    MatchEnd,
    MatchResumed,
    MatchStart,
    NewGame,
    NoSavedMatches,
    Notice,
    OnlyPossibleMove,
    OpeningRoll,
    OpponentMoves,
    OpponentMovesFirst,
    OpponentRolls,
    PleaseMove,
    PleaseRollOrDouble,
    ResignAccepted,
    ResignOffered,
    ResignRejected,
    SavedMatchesHeader,
    ScoreLine,
    ServerError,
    SettingChanged,
    ToggleChanged,
    YouDoubled,
    YouRoll,
    YourTurnToMove,
)
from fibsbot.protocol.notices import TOGGLE_BY_TEXT

NAME = r"(?P<name>\S+)"
DIE = r"[1-6]"
POINTS = r"(?P<points>[0-9]{1,4}) points?"
LENGTH = r"(?:(?P<length>[0-9]{1,4}) point|unlimited)"
MOVE_STEP = r"[a-z0-9]{1,4}-[a-z0-9]{1,4}"
MOVE = rf"(?P<move>{MOVE_STEP}(?: +{MOVE_STEP})*)"
# a line of decoration: three stars or more, and whatever they frame
FRAME = r"\*{3,}.*"
# longest first, so that no sentence stops at a shorter one it begins with
TOGGLE_TEXT = "|".join(re.escape(text) for text in sorted(TOGGLE_BY_TEXT, key=len, reverse=True))


# The three lines that follow "Your running match was loaded." are folded into
# MatchResumed by the parser; these carriers never leave fibsbot.protocol.parser.
@dataclass(frozen=True)
class ResumeTurn:
    player: str


@dataclass(frozen=True)
class ResumeLength:
    length: int | None


@dataclass(frozen=True)
class ResumePoints:
    player: str
    points: int


Parsed = Event | ResumeTurn | ResumeLength | ResumePoints


@dataclass(frozen=True)
class Message:
    pattern: re.Pattern[str]
    build: Callable[[re.Match[str]], Parsed]
    glue_safe: bool  # matched as a prefix; anything after it is glued text


def _length(match: re.Match[str]) -> int | None:
    return int(match["length"]) if match["length"] else None


def _points(match: re.Match[str]) -> int:
    return int(match["points"])


_TABLE: list[tuple[str, Callable[[re.Match[str]], Parsed], bool]] = [
    # -- about us ("You ...") first: the generic "NAME ..." forms would also match them
    (rf"You roll (?P<d1>{DIE}) and (?P<d2>{DIE})\.", lambda m: YouRoll(d1=int(m["d1"]), d2=int(m["d2"])), True),
    (
        rf"You rolled (?P<d1>{DIE}), {NAME} rolled (?P<d2>{DIE})\.?",
        lambda m: OpeningRoll(opponent=m["name"], our_die=int(m["d1"]), their_die=int(m["d2"])),
        True,
    ),
    (r"It's your turn to move\.", lambda m: YourTurnToMove(), True),
    (r"It's your turn\. Please roll or double\.?", lambda m: PleaseRollOrDouble(), True),
    (r"Please move (?P<n>[0-9]) pieces?\.", lambda m: PleaseMove(pieces=int(m["n"])), True),
    (r"You can't move\.", lambda m: CantMove(player="You", is_us=True), True),
    (r"The only possible move is (?P<move>[^.]*?) *(?:\.|$)", lambda m: OnlyPossibleMove(move=m["move"]), True),
    (rf"You double\. Please wait for {NAME} to accept or reject\.", lambda m: YouDoubled(opponent=m["name"]), True),
    (
        r"You accept the double\. +The cube shows (?P<cube>[0-9]{1,5})\.",
        lambda m: DoubleAccepted(player="You", is_us=True, cube=int(m["cube"])),
        True,
    ),
    (
        rf"You give up\. {NAME} wins? {POINTS}\.",
        lambda m: DoubleRejected(player="You", is_us=True, winner=m["name"], points=_points(m)),
        True,
    ),
    (
        rf"You want to resign\. {NAME} will win {POINTS}\.",
        lambda m: ResignOffered(player="You", is_us=True, points=_points(m)),
        True,
    ),
    (rf"You accept and win {POINTS}\.", lambda m: ResignAccepted(player="You", is_us=True, points=_points(m)), True),
    (r"You reject\. The game continues\.", lambda m: ResignRejected(player="You", is_us=True), True),
    (
        rf"You win the game and get {POINTS}\.(?: Congratulations!)?",
        lambda m: GameEnd(winner="You", we_won=True, points=_points(m)),
        True,
    ),
    (
        r"You win the (?P<length>[0-9]{1,4}) point match (?P<a>[0-9]{1,4})-(?P<b>[0-9]{1,4}) ?\.",
        lambda m: MatchEnd(winner="You", we_won=True, length=int(m["length"]), scores=(int(m["a"]), int(m["b"]))),
        True,
    ),
    (
        rf"(?:\*\* )?You are now playing an? {LENGTH} match with {NAME}",
        lambda m: MatchStart(opponent=m["name"], length=_length(m), we_joined=True),
        False,
    ),
    (
        rf"You are now playing with {NAME}\. Your running match was loaded\.",
        lambda m: MatchResumed(opponent=m["name"], we_joined=True),
        True,
    ),
    (
        rf"\*\* You invited {NAME} to (?:an? {LENGTH} match|(?P<resume>resume a saved match))\.",
        lambda m: InviteSent(player=m["name"], length=_length(m), resume=bool(m["resume"])),
        True,
    ),
    (
        r"\*\* You terminated the game\. The game was saved\.",
        lambda m: GameSaved(player="You", reason="terminated"),
        True,
    ),
    # -- match setup and resumption
    (
        rf"(?:\*\* )?Player {NAME} has joined you for an? {LENGTH} match\.",
        lambda m: MatchStart(opponent=m["name"], length=_length(m), we_joined=False),
        True,
    ),
    (
        rf"{NAME} has joined you\. Your running match was loaded\.",
        lambda m: MatchResumed(opponent=m["name"], we_joined=False),
        True,
    ),
    (rf"turn: {NAME}", lambda m: ResumeTurn(player=m["name"]), False),
    (r"match length: (?P<length>[0-9]{1,4})", lambda m: ResumeLength(length=_length(m)), False),
    (r"unlimited match", lambda m: ResumeLength(length=None), False),
    (
        rf"points for user {NAME}: (?P<points>[0-9]{{1,4}})",
        lambda m: ResumePoints(player=m["name"], points=_points(m)),
        False,
    ),
    (
        rf"{NAME} wants to play an? {LENGTH} match with you\.",
        lambda m: Invitation(player=m["name"], length=_length(m), resume=False),
        True,
    ),
    (
        rf"{NAME} wants to resume a saved match with you\.",
        lambda m: Invitation(player=m["name"], length=None, resume=True),
        True,
    ),
    (rf"Type 'join {NAME}' to accept\.", lambda m: JoinInstructions(player=m["name"]), True),
    (rf"Starting a new game with {NAME}\.", lambda m: NewGame(opponent=m["name"]), True),
    (rf"{NAME} makes the first move\.", lambda m: OpponentMovesFirst(player=m["name"]), True),
    # -- the opponent's turn
    (
        rf"{NAME} rolls (?P<d1>{DIE}) and (?P<d2>{DIE})\.",
        lambda m: OpponentRolls(player=m["name"], d1=int(m["d1"]), d2=int(m["d2"])),
        True,
    ),
    (rf"{NAME} moves {MOVE} *\.?", lambda m: OpponentMoves(player=m["name"], move=re.sub(" +", " ", m["move"])), True),
    (rf"{NAME} can't move\.", lambda m: CantMove(player=m["name"], is_us=False), True),
    (rf"{NAME} doubles\. Type 'accept' or 'reject'\.", lambda m: DoubleOffered(player=m["name"]), True),
    (
        rf"{NAME} accepts the double\. +The cube shows (?P<cube>[0-9]{{1,5}})\.",
        lambda m: DoubleAccepted(player=m["name"], is_us=False, cube=int(m["cube"])),
        True,
    ),
    (
        rf"{NAME} gives up\. (?P<winner>\S+) wins? {POINTS}\.",
        lambda m: DoubleRejected(player=m["name"], is_us=False, winner=m["winner"], points=_points(m)),
        True,
    ),
    (
        rf"{NAME} wants to resign\. You will win {POINTS}\.(?: Type 'accept' or 'reject'\.)?",
        lambda m: ResignOffered(player=m["name"], is_us=False, points=_points(m)),
        True,
    ),
    (
        rf"{NAME} accepts and wins? {POINTS}\.",
        lambda m: ResignAccepted(player=m["name"], is_us=False, points=_points(m)),
        True,
    ),
    (rf"{NAME} rejects\. The game continues\.", lambda m: ResignRejected(player=m["name"], is_us=False), True),
    # -- game and match end
    (
        rf"{NAME} wins the game and gets {POINTS}\.(?: Sorry\.)?",
        lambda m: GameEnd(winner=m["name"], we_won=False, points=_points(m)),
        True,
    ),
    (
        rf"score in {LENGTH} match: (?P<p1>\S+)-(?P<s1>[0-9]{{1,4}}) (?P<p2>\S+)-(?P<s2>[0-9]{{1,4}})",
        lambda m: ScoreLine(length=_length(m), players=(m["p1"], m["p2"]), scores=(int(m["s1"]), int(m["s2"]))),
        True,
    ),
    (
        r"Type 'join' if you want to play the next game, type 'leave' if you don't\.",
        lambda m: JoinNextGamePrompt(),
        True,
    ),
    (
        rf"{NAME} wins the (?P<length>[0-9]{{1,4}}) point match (?P<a>[0-9]{{1,4}})-(?P<b>[0-9]{{1,4}}) ?\.",
        lambda m: MatchEnd(winner=m["name"], we_won=False, length=int(m["length"]), scores=(int(m["a"]), int(m["b"]))),
        True,
    ),
    # -- saved games and the connection
    (
        rf"\*\* Player {NAME} has left the game\. The game was saved\.",
        lambda m: GameSaved(player=m["name"], reason="left"),
        True,
    ),
    (
        rf"\*\* Player {NAME} terminated the game\. The game was saved\.",
        lambda m: GameSaved(player=m["name"], reason="terminated"),
        True,
    ),
    (rf"{NAME} drops connection\. The game was saved\.", lambda m: GameSaved(player=m["name"], reason="dropped"), True),
    (rf"{NAME} logs out\. The game was saved\.", lambda m: GameSaved(player=m["name"], reason="logged_out"), True),
    (
        rf"Connection with {NAME} timed out\. The game was saved\.",
        lambda m: GameSaved(player=m["name"], reason="timed_out"),
        True,
    ),
    (r"Connection timed out\.", lambda m: ConnectionTimedOut(), True),
    (r"opponent +matchlength +score \(your points first\)", lambda m: SavedMatchesHeader(), False),
    (r"no saved games\.", lambda m: NoSavedMatches(), True),
    # -- notices: a toggle's answer looks like an error line, but is none
    (
        rf"(?:\*\* ?)?(?P<text>{TOGGLE_TEXT})",
        lambda m: ToggleChanged(name=TOGGLE_BY_TEXT[m["text"]][0], value=TOGGLE_BY_TEXT[m["text"]][1]),
        True,
    ),
    (
        r"Value of '(?P<name>[A-Za-z]{1,20})' set to (?P<value>.{1,80})\.",
        lambda m: SettingChanged(name=m["name"], value=m["value"]),
        False,
    ),
    # notices that look like errors: the partner's join awaited; a frame of stars around a
    # greeting (FIBS sends two per connection), which no error line ever is
    (rf"\*\* ?(?P<text>Please wait for {NAME} to join too\.)", lambda m: Notice(text=m["text"]), True),
    (rf"(?P<text>{FRAME})", lambda m: Notice(text=m["text"]), False),
    (r"\*\* ?(?P<message>.*)", lambda m: ServerError(message=m["message"]), False),
]

MESSAGES: tuple[Message, ...] = tuple(
    Message(re.compile(pattern), build, glue_safe) for pattern, build, glue_safe in _TABLE
)


def match_message(text: str, *, name_first: bool = True) -> tuple[Parsed, str] | None:
    """The first message that fits ``text`` and the glued text after it, or None.

    ``name_first=False`` leaves out the messages that begin with a player's name: glued to
    the end of other text, where the name begins cannot be told."""
    for message in MESSAGES:
        if not name_first and message.pattern.pattern.startswith(NAME):
            continue
        if message.glue_safe:
            match = message.pattern.match(text)
        else:
            match = message.pattern.fullmatch(text)
        if match is not None:
            return message.build(match), text[match.end() :].lstrip(" ")
    return None
