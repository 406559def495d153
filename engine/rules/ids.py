"""Match identifiers: gnubg's Match ID and XG's XGID, and the ``MatchState`` they hold.

gnubg's Position ID is the position's own name and lives with it (``engine.rules.position``);
its functions are importable from here too, beside the other identifiers.

Match ID: 66 bits of fields (LSB first, widths in ``_MATCH_FIELD_WIDTHS``) plus
gnubg's bit 66, set when the Jacoby rule is *off*; 9 bytes, 12 base64 characters.

XGID: ``XGID=pos:cubeLog2:cubePos:turn:dice:scoreBottom:scoreTop:rules:matchLength:maxCube``.
The bottom player (upper-case checkers, points counted from its side) is gnubg's
player 1 ('X') and the top player gnubg's player 0 ('O'), as gnubg's ``set xgid``
maps them: ``turn`` 1 puts the bottom player on roll, -1 the top player.  With the
dice field ``D`` the ``turn`` player has doubled and the other one must decide.
``rules`` is the Crawford flag in a match, Jacoby (1) + beavers (2) in money play.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

import numpy as np

# the Position ID names are re-exported: callers find every identifier here
from engine.rules.position import (
    BAR,
    NUM_CHECKERS,
    ON_ROLL,
    OPPONENT,
    IdError,
    PositionError,
    decode_id_base64,
    encode_id_base64,
    validate_board,
)
from engine.rules.position import (
    POSITION_ID_LENGTH as POSITION_ID_LENGTH,
)
from engine.rules.position import (
    board_from_position_id as board_from_position_id,
)
from engine.rules.position import (
    board_from_position_key as board_from_position_key,
)
from engine.rules.position import (
    position_id as position_id,
)
from engine.rules.position import (
    position_key as position_key,
)

MATCH_ID_LENGTH = 12
_MATCH_KEY_BITS = 67

CENTRED = -1
MAX_CUBE_LOG2 = 15
_FIELD_MAX = 0x7FFF  # match length and scores are 15-bit fields


class MatchStateError(ValueError):
    """Match state values that cannot occur together."""


class GameState(IntEnum):
    """gnubg's game states, as stored in the Match ID."""

    NONE = 0
    PLAYING = 1
    OVER = 2
    RESIGNED = 3
    DROPPED = 4


class Resignation(IntEnum):
    NONE = 0
    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3


# ---------------------------------------------------------------- Match state


@dataclass(frozen=True)
class MatchState:
    """Everything about a game besides the checkers, as gnubg's Match ID holds it.

    Players are gnubg's: 0 ('O', XGID top) and 1 ('X', XGID bottom).  ``on_roll`` is
    the player who rolls or rolled (and whose checkers are row 0 of the board);
    ``to_decide`` is the player who must act now, which differs from ``on_roll``
    while a double or resignation awaits an answer (None: same as ``on_roll``).
    Dice are stored larger first, as gnubg writes them.  ``beavers`` only travels in
    XGIDs; ``jacoby`` is gnubg's money-game flag (None: gnubg's default, on for money
    play and off in a match).
    """

    cube: int = 1
    cube_owner: int = CENTRED
    on_roll: int = 0
    crawford: bool = False
    game_state: GameState = GameState.PLAYING
    to_decide: int | None = None
    doubled: bool = False
    resigned: Resignation = Resignation.NONE
    dice: tuple[int, int] = (0, 0)
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    jacoby: bool | None = None
    beavers: bool = False

    def __post_init__(self) -> None:
        if self.to_decide is None:
            object.__setattr__(self, "to_decide", self.on_roll)
        if self.jacoby is None:
            # gnubg's defaults: a fresh money session uses Jacoby, a new match stores it off
            object.__setattr__(self, "jacoby", self.match_length == 0)
        dice = tuple(int(d) for d in self.dice)
        score = tuple(int(s) for s in self.score)
        if len(dice) != 2 or len(score) != 2:
            raise MatchStateError("dice and score must be pairs")
        object.__setattr__(self, "dice", (max(dice), min(dice)))
        object.__setattr__(self, "score", score)
        for flag in ("crawford", "doubled", "jacoby", "beavers"):
            object.__setattr__(self, flag, bool(getattr(self, flag)))
        self._check()
        object.__setattr__(self, "game_state", GameState(self.game_state))
        object.__setattr__(self, "resigned", Resignation(self.resigned))

    def _check(self) -> None:
        cube = self.cube
        if not isinstance(cube, (int, np.integer)) or cube < 1 or cube & (cube - 1) or cube > 1 << MAX_CUBE_LOG2:
            raise MatchStateError(f"cube value {cube!r} is not a power of two from 1 to {1 << MAX_CUBE_LOG2}")
        if self.cube_owner not in (CENTRED, 0, 1):
            raise MatchStateError(f"cube owner {self.cube_owner!r} must be -1 (centred), 0 or 1")
        for name in ("on_roll", "to_decide"):
            if getattr(self, name) not in (0, 1):
                raise MatchStateError(f"{name} {getattr(self, name)!r} must be player 0 or 1")
        if self.game_state not in tuple(GameState):
            raise MatchStateError(f"game state {self.game_state!r} must be 0..4")
        if self.resigned not in tuple(Resignation):
            raise MatchStateError(f"resignation {self.resigned!r} must be 0..3")
        high, low = self.dice
        if not (high == low == 0 or 1 <= low <= high <= 6):
            raise MatchStateError(f"dice {self.dice} must both be 0 (not rolled) or both 1..6")
        if not 0 <= self.match_length <= _FIELD_MAX:
            raise MatchStateError(f"match length {self.match_length} must be 0 (money) .. {_FIELD_MAX}")
        if any(not 0 <= s <= _FIELD_MAX for s in self.score):
            raise MatchStateError(f"scores {self.score} must be 0..{_FIELD_MAX}")
        if self.match_length and max(self.score) > self.match_length:
            raise MatchStateError(f"score {self.score} exceeds the match length {self.match_length}")
        if not self.match_length and self.crawford:
            raise MatchStateError("a money game cannot be the Crawford game")
        if self.crawford and self.match_length - 1 not in self.score:
            raise MatchStateError(f"the Crawford game needs a player at {self.match_length - 1}, score is {self.score}")
        if self.crawford and self.cube != 1:
            # gnubg resets the cube when it is told a game is the Crawford game
            raise MatchStateError(f"the Crawford game is played without doubling, cube {self.cube} must be 1")

    @property
    def cube_log2(self) -> int:
        return self.cube.bit_length() - 1

    @property
    def is_money(self) -> bool:
        return self.match_length == 0


# Field widths in key order, least significant bit first: cube log2, cube owner (3 =
# centred), player on roll, Crawford, game state, player to decide, doubled,
# resignation, die 1, die 2, match length, score 0, score 1, Jacoby *off*.
_MATCH_FIELD_WIDTHS = (4, 2, 1, 1, 3, 1, 1, 2, 3, 3, 15, 15, 15, 1)


def match_key(state: MatchState) -> bytes:
    """gnubg's 9-byte match key."""
    values = (
        state.cube_log2,
        state.cube_owner & 0b11,
        state.on_roll,
        int(state.crawford),
        int(state.game_state),
        state.on_roll if state.to_decide is None else state.to_decide,
        int(state.doubled),
        int(state.resigned),
        *state.dice,
        state.match_length,
        *state.score,
        int(not state.jacoby),
    )
    bits = offset = 0
    for value, width in zip(values, _MATCH_FIELD_WIDTHS):
        bits |= value << offset
        offset += width
    return bits.to_bytes(9, "little")


def match_id(state: MatchState) -> str:
    """The 12-character gnubg Match ID of a match state."""
    return encode_id_base64(match_key(state))


def match_state_from_id(mid: str) -> MatchState:
    """Decode a gnubg Match ID; raises IdError with the reason when it is malformed."""
    bits = int.from_bytes(decode_id_base64(mid, MATCH_ID_LENGTH, "Match ID"), "little")
    if bits >> _MATCH_KEY_BITS:
        raise IdError(f"Match ID {mid!r}: bits beyond bit 66 are not zero")
    values = []
    for width in _MATCH_FIELD_WIDTHS:
        values.append(bits & ((1 << width) - 1))
        bits >>= width
    cube_log2, owner, on_roll, crawford, game_state, to_decide, doubled, resigned, *rest = values
    die1, die2, length, score0, score1, no_jacoby = rest
    if owner == 2:
        raise IdError(f"Match ID {mid!r}: cube owner field is 2 (only 0, 1 or 3 = centred exist)")
    if game_state > GameState.DROPPED:
        raise IdError(f"Match ID {mid!r}: game state {game_state} is unknown (0..4)")
    try:
        return MatchState(
            cube=1 << cube_log2,
            cube_owner=CENTRED if owner == 3 else owner,
            on_roll=on_roll,
            crawford=bool(crawford),
            game_state=GameState(game_state),
            to_decide=to_decide,
            doubled=bool(doubled),
            resigned=Resignation(resigned),
            dice=(die1, die2),
            match_length=length,
            score=(score0, score1),
            jacoby=not no_jacoby,
        )
    except MatchStateError as exc:
        raise IdError(f"Match ID {mid!r}: {exc}") from exc


# ---------------------------------------------------------------- XGID

XGID_PREFIX = "XGID="
BOTTOM, TOP = 1, 0  # gnubg players
_XGID_POINTS = 26
_XGID_FIELDS = 10
DEFAULT_MAX_CUBE_LOG2 = 10


def _xgid_char(count: int, upper: bool) -> str:
    if count == 0:
        return "-"
    return chr((ord("A") if upper else ord("a")) + count - 1)


def xgid(board: np.ndarray, state: MatchState) -> str:
    """The XGID of a board (row 0 = ``state.on_roll``) and its match state.

    XGIDs carry no game state, resignation or Jacoby flag in matches; those are
    dropped.  The max-cube field is always written as 10 (XG's usual value).
    """
    board = np.asarray(board)
    validate_board(board)
    rows = {state.on_roll: board[ON_ROLL], 1 - state.on_roll: board[OPPONENT]}
    bottom, top = rows[BOTTOM], rows[TOP]
    chars = [_xgid_char(int(top[BAR]), upper=False)]
    for point in range(1, 25):
        mine, theirs = int(bottom[point - 1]), int(top[24 - point])
        chars.append(_xgid_char(mine, True) if mine else _xgid_char(theirs, False))
    chars.append(_xgid_char(int(bottom[BAR]), upper=True))
    cube_pos = {CENTRED: 0, BOTTOM: 1, TOP: -1}[state.cube_owner]
    turn = 1 if state.on_roll == BOTTOM else -1
    dice = "D" if state.doubled else f"{state.dice[0]}{state.dice[1]}"
    rules = int(bool(state.jacoby)) + 2 * int(state.beavers) if state.is_money else int(state.crawford)
    fields = [
        "".join(chars),
        state.cube_log2,
        cube_pos,
        turn,
        dice,
        state.score[BOTTOM],
        state.score[TOP],
        rules,
        state.match_length,
        DEFAULT_MAX_CUBE_LOG2,
    ]
    return XGID_PREFIX + ":".join(map(str, fields))


def _xgid_int(text: str, what: str, source: str, allowed: range) -> int:
    try:
        value = int(text)
    except ValueError:
        raise IdError(f"XGID {source!r}: {what} {text!r} is not a number") from None
    if value not in allowed:
        raise IdError(f"XGID {source!r}: {what} {value} must be in {allowed.start}..{allowed.stop - 1}")
    return value


def _xgid_board(pos: str, source: str) -> tuple[np.ndarray, np.ndarray]:
    """Rows (bottom, top) in each owner's own numbering."""
    if len(pos) != _XGID_POINTS:
        raise IdError(f"XGID {source!r}: position has {len(pos)} characters, expected {_XGID_POINTS}")
    bottom = np.zeros(25, dtype=np.int16)
    top = np.zeros(25, dtype=np.int16)
    for index, char in enumerate(pos):
        if char == "-":
            continue
        if "A" <= char <= "P":
            if index == 0:
                raise IdError(f"XGID {source!r}: index 0 is the top player's bar, bottom checker {char!r} found")
            bottom[BAR if index == 25 else index - 1] = ord(char) - ord("A") + 1
        elif "a" <= char <= "p":
            if index == 25:
                raise IdError(f"XGID {source!r}: index 25 is the bottom player's bar, top checker {char!r} found")
            top[BAR if index == 0 else 24 - index] = ord(char) - ord("a") + 1
        else:
            raise IdError(f"XGID {source!r}: invalid character {char!r} at position index {index}")
    for name, row in (("bottom", bottom), ("top", top)):
        if row.sum() > NUM_CHECKERS:
            raise IdError(f"XGID {source!r}: the {name} player has {row.sum()} checkers (max {NUM_CHECKERS})")
    return bottom.astype(np.int8), top.astype(np.int8)


def parse_xgid(text: str) -> tuple[np.ndarray, MatchState]:
    """Decode an XGID (with or without ``XGID=``) into (board, match state)."""
    if not isinstance(text, str):
        raise IdError(f"XGID must be a string, got {type(text).__name__}")
    source = text.strip()
    body = source[len(XGID_PREFIX) :] if source.upper().startswith(XGID_PREFIX) else source
    parts = body.split(":")
    if len(parts) != _XGID_FIELDS:
        raise IdError(f"XGID {source!r} has {len(parts)} colon-separated fields, expected {_XGID_FIELDS}")
    pos, cube_text, cube_pos_text, turn_text, dice_text, bottom_text, top_text, rules_text, length_text, max_text = (
        parts
    )
    bottom, top = _xgid_board(pos, source)
    cube_log2 = _xgid_int(cube_text, "cube (log2)", source, range(0, MAX_CUBE_LOG2 + 1))
    cube_pos = _xgid_int(cube_pos_text, "cube position", source, range(-1, 2))
    turn = _xgid_int(turn_text, "turn", source, range(-1, 2))
    if turn == 0:
        raise IdError(f"XGID {source!r}: turn must be 1 (bottom) or -1 (top)")
    length = _xgid_int(length_text, "match length", source, range(0, _FIELD_MAX + 1))
    rules = _xgid_int(rules_text, "Crawford/Jacoby field", source, range(0, 2 if length else 4))
    score_bottom = _xgid_int(bottom_text, "bottom score", source, range(0, _FIELD_MAX + 1))
    score_top = _xgid_int(top_text, "top score", source, range(0, _FIELD_MAX + 1))
    _xgid_int(max_text, "max cube", source, range(0, _FIELD_MAX + 1))  # XG's own limit, unused here
    on_roll = BOTTOM if turn == 1 else TOP
    doubled = dice_text == "D"
    if doubled:
        dice = (0, 0)
    elif len(dice_text) == 2 and dice_text.isdigit():
        dice = (int(dice_text[0]), int(dice_text[1]))
    else:
        raise IdError(f"XGID {source!r}: dice {dice_text!r} must be two digits ('00' = not rolled) or 'D'")
    rows = {BOTTOM: bottom, TOP: top}
    board = np.array([rows[on_roll], rows[1 - on_roll]], dtype=np.int8)
    try:
        validate_board(board)
        state = MatchState(
            cube=1 << cube_log2,
            cube_owner={0: CENTRED, 1: BOTTOM, -1: TOP}[cube_pos],
            on_roll=on_roll,
            crawford=bool(rules) if length else False,
            to_decide=1 - on_roll if doubled else on_roll,
            doubled=doubled,
            dice=dice,
            match_length=length,
            score=(score_top, score_bottom),  # gnubg's players 0 (top) and 1 (bottom)
            jacoby=bool(rules & 1) if not length else False,
            beavers=bool(rules & 2) if not length else False,
        )
    except (PositionError, MatchStateError) as exc:
        raise IdError(f"XGID {source!r}: {exc}") from exc
    return board, state
