"""What the latest board line waits for from us: the situation a decision answers.

A situation names the decision (move, double, roll, take, resign) and the position,
dice, cube and score it is about.  Equal situations are one decision: a redisplay
of the same board keeps the pending request, and a situation is answered once
until the turn passes.  Pure: the driver (``fibsbot.protocol.match.play``) keeps
which situations are pending, answered or armed.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from fibsbot.protocol.board import FibsBoard
from fibsbot.protocol.match.state import may_double


class SituationKind(StrEnum):
    """The answer a situation waits for; all but ``ROLL`` are asked of the agent
    (``DecisionRequest.kind`` has the same names)."""

    MOVE = "move"
    DOUBLE = "double"  # we may double: double or roll
    ROLL = "roll"  # we may not double: roll, unless the server rolls for us
    TAKE = "take"
    RESIGN = "resign"


@dataclass(frozen=True)
class Situation:
    """One decision about one board.  Fields that a kind does not depend on stay None,
    so that they never tell two situations apart: a resignation is about the points
    offered, not the cube; only a move is about the dice."""

    kind: SituationKind
    cells: tuple[int, ...]  # the board line's 26 cells
    score: tuple[int, int]  # ours first
    cube: int | None = None
    dice: tuple[int, int] | None = None
    resign_points: int | None = None


def read_situation(
    board: FibsBoard, *, resign_points: int | None, double_offered: bool, crawford_game: bool
) -> Situation | None:
    """What ``board`` (plus a pending resignation or double message) waits for from us
    during a game; None when it waits for nothing of ours.  ``crawford_game``: our
    record's verdict on the game (``fibsbot.protocol.match.crawford``)."""
    if board.turn == 0:
        return None
    cells = board.board
    score = (board.player_score, board.opponent_score)
    if resign_points is not None:
        return Situation(SituationKind.RESIGN, cells, score, resign_points=resign_points)
    # FIBS negates the turn after a double, so the doubled side sees its own colour
    if (board.opponent_doubled and board.is_our_turn) or (double_offered and not board.we_must_move):
        return Situation(SituationKind.TAKE, cells, score, cube=board.cube)
    if board.we_must_move:
        return Situation(SituationKind.MOVE, cells, score, cube=board.cube, dice=board.our_dice)
    if board.we_must_roll_or_double:
        kind = SituationKind.DOUBLE if may_double(board, crawford_game) else SituationKind.ROLL
        return Situation(kind, cells, score, cube=board.cube)
    return None
