"""A backgammon position seen from the side on roll, and its gnubg Position ID.

The board is an ``int8`` array of shape ``(2, 25)``:

* row ``ON_ROLL`` (0) holds the checkers of the player on roll, row ``OPPONENT`` (1)
  those of the other player;
* each row counts in its owner's own numbering: column ``i`` (0..23) is the owner's
  point ``i + 1`` (point 1 is the ace point, checkers move from 24 towards 1), and
  column ``BAR`` (24) is the owner's bar;
* checkers borne off are not stored: ``15 - row.sum()``.

A point seen as our point ``p`` is the opponent's point ``25 - p``, so column ``i`` of
our row faces column ``23 - i`` of theirs.  This is the layout gnubg uses internally
(there the on-roll side is row 1), which keeps Position IDs and oracle checks simple.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

ON_ROLL = 0
OPPONENT = 1
BAR = 24
NUM_CHECKERS = 15


class Phase(IntEnum):
    """Game phases, as gnubg classifies positions for its nets."""

    OVER = 0
    BEAROFF = 1  # no contact, both sides with all checkers on their six home points
    RACE = 2  # no contact left
    CRASHED = 3  # contact, but one side has at most 6 checkers back in play (gnubg rule)
    CONTACT = 4


class Result(IntEnum):
    """How a finished game was won, in points at cube 1."""

    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3


def _opening_row() -> np.ndarray:
    row = np.zeros(25, dtype=np.int8)
    row[5], row[7], row[12], row[23] = 5, 3, 5, 2
    return row


class PositionError(ValueError):
    """A board that cannot be a backgammon position."""


def validate_board(board: np.ndarray) -> None:
    """Raise PositionError unless the board is a legal arrangement of checkers."""
    if board.shape != (2, 25):
        raise PositionError(f"board must have shape (2, 25), got {board.shape}")
    if (board < 0).any():
        raise PositionError("negative checker count")
    for side in (ON_ROLL, OPPONENT):
        total = int(board[side].sum())
        if total > NUM_CHECKERS:
            raise PositionError(f"side {side} has {total} checkers on the board (max 15)")
    for i in range(24):
        if board[ON_ROLL, i] and board[OPPONENT, 23 - i]:
            raise PositionError(f"both sides have checkers on point {i + 1} (of the side on roll)")


@dataclass(frozen=True, eq=False)
class Position:
    """Checkers of the side on roll (row 0) and the opponent (row 1); immutable."""

    board: np.ndarray

    def __post_init__(self) -> None:
        board = np.ascontiguousarray(self.board, dtype=np.int8)
        validate_board(board)
        board.setflags(write=False)
        object.__setattr__(self, "board", board)

    @classmethod
    def initial(cls) -> Position:
        row = _opening_row()
        return cls(np.stack([row, row]))

    @classmethod
    def from_rows(cls, on_roll, opponent) -> Position:
        return cls(np.array([on_roll, opponent], dtype=np.int8))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and np.array_equal(self.board, other.board)

    def __hash__(self) -> int:
        return hash(self.board.tobytes())

    def __repr__(self) -> str:
        return f"Position({position_id(self.board)!r})"

    def flip(self) -> Position:
        """The same checkers with the other side on roll."""
        return Position(self.board[::-1].copy())

    def off(self, side: int = ON_ROLL) -> int:
        return NUM_CHECKERS - int(self.board[side].sum())

    def pips(self, side: int = ON_ROLL) -> int:
        return int(np.dot(self.board[side].astype(np.int32), np.arange(1, 26)))

    def pip_counts(self) -> tuple[int, int]:
        return self.pips(ON_ROLL), self.pips(OPPONENT)

    def is_game_over(self) -> bool:
        return self.off(ON_ROLL) == NUM_CHECKERS or self.off(OPPONENT) == NUM_CHECKERS

    def winner(self) -> int | None:
        """ON_ROLL or OPPONENT once one side has borne off everything, else None."""
        for side in (ON_ROLL, OPPONENT):
            if self.off(side) == NUM_CHECKERS:
                return side
        return None

    def result(self) -> Result | None:
        """Single, gammon or backgammon for the winner, or None while the game goes on."""
        winner = self.winner()
        if winner is None:
            return None
        return Result(game_result(self.board, winner))

    def has_contact(self) -> bool:
        return has_contact(self.board)

    def phase(self) -> Phase:
        return Phase(classify(self.board))


def has_contact(board: np.ndarray) -> bool:
    """True while some checker of one side still has to pass a checker of the other."""
    ours = np.nonzero(board[ON_ROLL])[0]
    theirs = np.nonzero(board[OPPONENT])[0]
    if len(ours) == 0 or len(theirs) == 0:
        return False
    # our rearmost checker at our index a is at their index 23 - a (bar 24 -> -1)
    return int(ours.max()) + int(theirs.max()) >= 24


def game_result(board: np.ndarray, winner: int) -> int:
    """Points (1, 2, 3) the winner collects: gammon if the loser has none off,
    backgammon if the loser also has a checker on the bar or in the winner's home."""
    loser = 1 - winner
    if NUM_CHECKERS - int(board[loser].sum()) > 0:
        return Result.SINGLE
    # the winner's home board (their points 1-6) is the loser's points 19-24 (columns 18..23)
    if board[loser, 18:25].sum() > 0:
        return Result.BACKGAMMON
    return Result.GAMMON


def classify(board: np.ndarray) -> int:
    """gnubg's position classes: over, bearoff, race, crashed, contact."""
    if board[ON_ROLL].sum() == 0 or board[OPPONENT].sum() == 0:
        return Phase.OVER
    if not has_contact(board):
        if board[ON_ROLL, 6:].sum() == 0 and board[OPPONENT, 6:].sum() == 0:
            return Phase.BEAROFF
        return Phase.RACE
    for side in (ON_ROLL, OPPONENT):
        row = board[side]
        total = int(row.sum())
        # gnubg: crashed when at most 6 checkers are left in play, not counting
        # the dead ones stacked on the ace point (and deuce point)
        if total <= 6:
            return Phase.CRASHED
        if row[0] > 1:
            if total <= 6 + row[0]:
                return Phase.CRASHED
            if row[1] > 1 and 1 + total - (row[0] + row[1]) <= 6:
                return Phase.CRASHED
        elif total <= 6 + (row[1] - 1):
            return Phase.CRASHED
    return Phase.CONTACT


# ---------------------------------------------------------------- Position ID
#
# Position ID (checked against the gnubg 1.07 binary, whose behaviour differs from
# the manual's wording): the 80-bit key holds the player NOT on roll first, then the
# player on roll.  Each side lists its points 1..24 and then its bar, writing a 1-bit
# per checker and a 0-bit to close the point.  Bit k of the key goes to byte k // 8,
# bit k % 8; the 10 bytes are base64-encoded without padding (14 characters).
#
# The base64 helpers serve the Match ID (``engine.rules.ids``) as well.

POSITION_ID_LENGTH = 14
_POSITION_KEY_BITS = 80
_BASE64_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_BASE64_ALPHABET = frozenset(_BASE64_DIGITS)


class IdError(ValueError):
    """A Position ID, Match ID or XGID that cannot be decoded."""


def decode_id_base64(text: str, length: int, what: str) -> bytes:
    if not isinstance(text, str):
        raise IdError(f"{what} must be a string, got {type(text).__name__}")
    if len(text) != length:
        raise IdError(f"{what} {text!r} has {len(text)} characters, expected {length}")
    for index, char in enumerate(text):
        if char not in _BASE64_ALPHABET:
            raise IdError(f"{what} {text!r} has an invalid character {char!r} at position {index + 1}")
    return base64.b64decode(text + "=" * (-len(text) % 4))


def encode_id_base64(key: bytes) -> str:
    return base64.b64encode(key).decode("ascii").rstrip("=")


def position_key(board: np.ndarray) -> bytes:
    """gnubg's 10-byte position key (not-on-roll side first)."""
    board = np.asarray(board)
    validate_board(board)
    bits = offset = 0
    for side in (OPPONENT, ON_ROLL):
        for count in (int(c) for c in board[side]):
            bits |= ((1 << count) - 1) << offset
            offset += count + 1
    return bits.to_bytes(_POSITION_KEY_BITS // 8, "little")


def position_id(board: np.ndarray) -> str:
    """The 14-character gnubg Position ID of a board in our layout."""
    return encode_id_base64(position_key(board))


def board_from_position_key(key: bytes, *, source: str | None = None) -> np.ndarray:
    """Decode a 10-byte position key into a board (on-roll row first)."""
    label = f"Position ID {source!r}" if source is not None else f"position key {key.hex()}"
    if len(key) != _POSITION_KEY_BITS // 8:
        raise IdError(f"{label}: key must be 10 bytes, got {len(key)}")
    bits = int.from_bytes(key, "little")
    counts: list[int] = []
    offset = 0
    while len(counts) < 2 * (BAR + 1):
        count = 0
        while offset < _POSITION_KEY_BITS and (bits >> offset) & 1:
            count += 1
            offset += 1
        if offset >= _POSITION_KEY_BITS:
            raise IdError(f"{label}: too many checkers, the key ends inside point list {len(counts) + 1} of 50")
        offset += 1  # the 0-bit that closes the point
        counts.append(count)
    if bits >> offset:
        raise IdError(f"{label}: bits after the last point are not zero")
    not_on_roll, on_roll = counts[: BAR + 1], counts[BAR + 1 :]
    for name, row in (("player on roll", on_roll), ("player not on roll", not_on_roll)):
        if sum(row) > NUM_CHECKERS:
            raise IdError(f"{label}: the {name} has {sum(row)} checkers (max {NUM_CHECKERS})")
    board = np.array([on_roll, not_on_roll], dtype=np.int8)
    try:
        validate_board(board)
    except PositionError as exc:
        raise IdError(f"{label}: {exc}") from exc
    return board


def board_from_position_id(pid: str) -> np.ndarray:
    """Decode a gnubg Position ID into an int8 (2, 25) board, player on roll in row 0."""
    key = decode_id_base64(pid, POSITION_ID_LENGTH, "Position ID")
    # 14 characters carry 84 bits; base64 drops the last 4, which gnubg always leaves 0
    if _BASE64_DIGITS.index(pid[-1]) & 0x0F:
        raise IdError(f"Position ID {pid!r}: bits beyond the 80-bit key are not zero")
    return board_from_position_key(key, source=pid)
