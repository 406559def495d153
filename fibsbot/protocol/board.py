"""FIBS board lines (``set boardstyle 3``) and their engine positions.

A board line is written from one seat, the "player" of field 1 (``You`` while we
play, the watched player while we watch); "our" below means that seat.  The 26
board cells count in the server's numbering, O checkers positive and X negative,
cells 0 and 25 being the bars.  Whichever colour and direction we get, the
conversion to the engine layout happens here and nowhere else:

* ``direction == -1``: we move 24 -> 1 in server numbering, so our point p is
  server cell p and our bar is cell 25;
* ``direction == +1``: we move 1 -> 24, so our point p is server cell 25 - p and
  our bar is cell 0.

The opponent's bar is the cell at our home end.  Bar cells are read by their
absolute value: servers disagree on their sign, and fields 47/48 (bar counts)
are left at 0 by some of them, so the board cells are the only trusted source.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from engine.rules.position import BAR, NUM_CHECKERS, Position

X = -1
O = 1  # noqa: E741  (FIBS's own name for the colour)
UNLIMITED = 9999  # FIBS writes this match length for unlimited (money) sessions
NUM_FIELDS = 53

Colour = Literal[-1, 1]
Direction = Literal[-1, 1]
Die = Annotated[int, Field(ge=0, le=6)]
Count = Annotated[int, Field(ge=0, le=NUM_CHECKERS)]
Dice = tuple[Die, Die]

# a field longer than this is garbage, and int() of a huge digit string is slow
_INT_FIELD = re.compile(r"-?[0-9]{1,9}")


class BoardLineError(ValueError):
    """A ``board:`` line that is not a valid FIBS board state."""


def _server_point(direction: int, point: int) -> int:
    # the mapping is its own inverse, so it converts both ways
    if not 0 <= point <= 25:
        raise ValueError(f"point {point} outside 0..25")
    return point if direction == -1 else 25 - point


class FibsBoard(BaseModel):
    """One board line, every field named; see the module docstring for perspective."""

    model_config = ConfigDict(frozen=True)

    player: str
    opponent: str
    match_length: int = Field(ge=0)
    player_score: int = Field(ge=0)
    opponent_score: int = Field(ge=0)
    board: tuple[Annotated[int, Field(ge=-NUM_CHECKERS, le=NUM_CHECKERS)], ...] = Field(min_length=26, max_length=26)
    turn: Literal[-1, 0, 1]  # colour the server waits for; 0 between games
    player_dice: Dice
    opponent_dice: Dice
    cube: int = Field(ge=1)
    player_may_double: bool
    opponent_may_double: bool
    # FIBS writes 1 when the opponent has just doubled the player; gnubg writes
    # -1 or 1 (the sign says who doubled), so any non-zero value means "doubled"
    was_doubled: Literal[-1, 0, 1]
    colour: Colour
    direction: Direction
    home: Literal[0, 25]
    bar: Literal[0, 25]
    player_off: Count
    opponent_off: Count
    # fields 47-49 are unreliable (left at 0, or wrong, by some servers): kept as
    # sent and never validated, so that they cannot cost us a usable board
    player_bar_field: int  # see our_bar
    opponent_bar_field: int  # see their_bar
    can_move: int  # compute legal moves instead
    no_crawford: bool  # field 50 (FIBS writes 3 once someone is 1-away without Crawford)
    post_crawford: bool  # field 51
    redoubles: int = Field(ge=0)

    @model_validator(mode="after")
    def _consistent(self) -> FibsBoard:
        expected_home = 0 if self.direction == -1 else 25
        if self.home != expected_home or self.bar != 25 - expected_home:
            raise ValueError(f"home {self.home} / bar {self.bar} do not fit direction {self.direction}")
        for dice, who in ((self.player_dice, "player"), (self.opponent_dice, "opponent")):
            if (dice[0] == 0) != (dice[1] == 0):
                raise ValueError(f"{who} dice {dice} half set")
        ours, theirs = self.our_rows()
        for row, off, who in ((ours, self.player_off, "player"), (theirs, self.opponent_off, "opponent")):
            on_board = int(row.sum())
            if on_board + off != NUM_CHECKERS:
                raise ValueError(f"{who} has {on_board} checkers on the board and {off} off, not {NUM_CHECKERS}")
        return self

    # --- perspective -------------------------------------------------------------

    def server_point(self, our_point: int) -> int:
        """Server cell of our point (0 = our home, 25 = our bar)."""
        return _server_point(self.direction, our_point)

    def our_point(self, server_point: int) -> int:
        """Our point number of a server cell."""
        return _server_point(self.direction, server_point)

    def our_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """(our row, their row) in engine layout, each in its owner's own numbering."""
        ours = np.zeros(BAR + 1, dtype=np.int8)
        theirs = np.zeros(BAR + 1, dtype=np.int8)
        for point in range(1, 25):
            count = self.board[self.server_point(point)] * self.colour
            if count > 0:
                ours[point - 1] = count
            elif count < 0:
                theirs[24 - point] = -count  # their point 25 - point
        ours[BAR] = abs(self.board[self.bar])
        theirs[BAR] = abs(self.board[self.home])
        return ours, theirs

    def position_from_our_view(self) -> Position:
        """Our checkers in row 0, whoever is on roll."""
        return Position.from_rows(*self.our_rows())

    def position_for_side_on_roll(self) -> Position | None:
        """The side to roll in row 0 (after a double: the doubler); None between games."""
        side = self.colour_on_roll
        if side is None:
            return None
        ours, theirs = self.our_rows()
        if side == self.colour:
            return Position.from_rows(ours, theirs)
        return Position.from_rows(theirs, ours)

    # --- whose move --------------------------------------------------------------

    @property
    def opponent_doubled(self) -> bool:
        return self.was_doubled != 0

    @property
    def double_pending(self) -> bool:
        """A double waits for an answer, ours or theirs.

        FIBS negates the turn field after a double and clears both may-double
        flags; only the side being doubled sees ``was_doubled``, so the doubler
        recognises its own pending double by the cleared flags (gnubg does the same).
        """
        if self.opponent_doubled:
            return True
        return (
            self.turn != 0
            and not self.player_may_double
            and not self.opponent_may_double
            and self.player_dice == (0, 0)
            and self.opponent_dice == (0, 0)
        )

    @property
    def colour_on_roll(self) -> int | None:
        if self.turn == 0:
            return None
        return -self.turn if self.double_pending else self.turn

    @property
    def is_our_turn(self) -> bool:
        """The server waits for us: to roll or double, move, or answer a double."""
        return self.turn == self.colour

    @property
    def our_dice(self) -> tuple[int, int] | None:
        return None if self.player_dice == (0, 0) else self.player_dice

    @property
    def their_dice(self) -> tuple[int, int] | None:
        return None if self.opponent_dice == (0, 0) else self.opponent_dice

    @property
    def we_must_move(self) -> bool:
        return self.is_our_turn and self.our_dice is not None and not self.opponent_doubled

    @property
    def we_must_roll_or_double(self) -> bool:
        return self.is_our_turn and self.our_dice is None and not self.double_pending

    # --- match -------------------------------------------------------------------

    @property
    def is_unlimited(self) -> bool:
        return self.match_length == UNLIMITED

    @property
    def is_crawford_game(self) -> bool:
        """Someone is 1-away and neither the no-Crawford nor the post-Crawford flag is set.

        FIBS sets both may-double flags in the Crawford game although nobody may
        double, so this, not those flags, decides.
        """
        if self.is_unlimited or self.no_crawford or self.post_crawford:
            return False
        return self.match_length - 1 in (self.player_score, self.opponent_score)

    @property
    def our_bar(self) -> int:
        return abs(self.board[self.bar])

    @property
    def their_bar(self) -> int:
        return abs(self.board[self.home])

    # --- writing -----------------------------------------------------------------

    def to_line(self) -> str:
        fields: list[Any] = [
            "board",
            self.player,
            self.opponent,
            self.match_length,
            self.player_score,
            self.opponent_score,
            *self.board,
            self.turn,
            *self.player_dice,
            *self.opponent_dice,
            self.cube,
            int(self.player_may_double),
            int(self.opponent_may_double),
            self.was_doubled,
            self.colour,
            self.direction,
            self.home,
            self.bar,
            self.player_off,
            self.opponent_off,
            self.player_bar_field,
            self.opponent_bar_field,
            self.can_move,
            int(self.no_crawford),
            int(self.post_crawford),
            self.redoubles,
        ]
        return ":".join(str(field) for field in fields)

    @classmethod
    def from_rows(
        cls,
        ours: np.ndarray,
        theirs: np.ndarray,
        *,
        on_roll: Literal["us", "them"] | None,
        opponent: str,
        match_length: int,
        player: str = "You",
        player_score: int = 0,
        opponent_score: int = 0,
        player_dice: tuple[int, int] = (0, 0),
        opponent_dice: tuple[int, int] = (0, 0),
        cube: int = 1,
        player_may_double: bool = True,
        opponent_may_double: bool = True,
        was_doubled: int = 0,
        colour: int = X,
        direction: int = -1,
        can_move: int = 0,
        no_crawford: bool = False,
        post_crawford: bool = False,
        redoubles: int = 0,
    ) -> FibsBoard:
        """A board from our row and theirs (engine layout); ``on_roll`` sets the turn field."""
        ours = np.asarray(ours, dtype=np.int64)
        theirs = np.asarray(theirs, dtype=np.int64)
        Position.from_rows(ours, theirs)  # rejects impossible arrangements early
        cells = [0] * 26
        for point in range(1, 25):
            cell = _server_point(direction, point)
            if ours[point - 1]:
                cells[cell] = colour * int(ours[point - 1])
            elif theirs[24 - point]:
                cells[cell] = -colour * int(theirs[24 - point])
        home = _server_point(direction, 0)
        bar = 25 - home
        cells[bar] = colour * int(ours[BAR])
        cells[home] = -colour * int(theirs[BAR])
        turn = {"us": colour, "them": -colour, None: 0}[on_roll]
        # plain ints for the Literal fields: pydantic validates them
        values: dict[str, Any] = dict(
            player=player,
            opponent=opponent,
            match_length=match_length,
            player_score=player_score,
            opponent_score=opponent_score,
            board=tuple(cells),
            turn=turn,
            player_dice=player_dice,
            opponent_dice=opponent_dice,
            cube=cube,
            player_may_double=player_may_double,
            opponent_may_double=opponent_may_double,
            was_doubled=was_doubled,
            colour=colour,
            direction=direction,
            home=home,
            bar=bar,
            player_off=NUM_CHECKERS - int(ours.sum()),
            opponent_off=NUM_CHECKERS - int(theirs.sum()),
            player_bar_field=int(ours[BAR]),
            opponent_bar_field=int(theirs[BAR]),
            can_move=can_move,
            no_crawford=no_crawford,
            post_crawford=post_crawford,
            redoubles=redoubles,
        )
        return cls(**values)


def _int_field(fields: list[str], index: int) -> int:
    text = fields[index].strip()
    if not _INT_FIELD.fullmatch(text):
        raise BoardLineError(f"field {index} is not an integer: {fields[index]!r}")
    return int(text)


def _flag_field(fields: list[str], index: int) -> bool:
    value = _int_field(fields, index)
    if value not in (0, 1):
        raise BoardLineError(f"field {index} must be 0 or 1, got {value}")
    return bool(value)


def parse_board_line(line: str) -> FibsBoard:
    """Parse one complete ``board:`` line (no glued text); raise BoardLineError."""
    fields = line.rstrip().split(":")
    if len(fields) != NUM_FIELDS:
        raise BoardLineError(f"expected {NUM_FIELDS} fields, got {len(fields)}")
    if fields[0] != "board":
        raise BoardLineError(f"field 0 must be 'board', got {fields[0]!r}")
    num = [0, 0, 0] + [_int_field(fields, i) for i in range(3, NUM_FIELDS)]
    try:
        # plain ints for the Literal fields: pydantic validates them, as it does any line
        values: dict[str, Any] = dict(
            player=fields[1],
            opponent=fields[2],
            match_length=num[3],
            player_score=num[4],
            opponent_score=num[5],
            board=tuple(num[6:32]),
            turn=num[32],
            player_dice=(num[33], num[34]),
            opponent_dice=(num[35], num[36]),
            cube=num[37],
            player_may_double=_flag_field(fields, 38),
            opponent_may_double=_flag_field(fields, 39),
            was_doubled=num[40],
            colour=num[41],
            direction=num[42],
            home=num[43],
            bar=num[44],
            player_off=num[45],
            opponent_off=num[46],
            player_bar_field=num[47],
            opponent_bar_field=num[48],
            can_move=num[49],
            no_crawford=num[50] != 0,
            post_crawford=num[51] != 0,
            redoubles=num[52],
        )
        return FibsBoard(**values)
    except ValidationError as exc:
        reasons = "; ".join(
            f"{'.'.join(str(part) for part in error['loc']) or 'board'}: {error['msg']}" for error in exc.errors()
        )
        raise BoardLineError(reasons) from None


def format_board_line(position: Position, *, we_are_on_roll: bool, game_over: bool = False, **match_info: Any) -> str:
    """A board line for ``position`` (row 0 on roll), seen from our seat.

    ``match_info`` takes the keyword arguments of ``FibsBoard.from_rows``
    (opponent, match_length, dice, cube, colour, direction, ...).
    """
    ours, theirs = position.board if we_are_on_roll else position.board[::-1]
    on_roll: Literal["us", "them"] | None = None if game_over else ("us" if we_are_on_roll else "them")
    return FibsBoard.from_rows(ours, theirs, on_roll=on_roll, **match_info).to_line()
