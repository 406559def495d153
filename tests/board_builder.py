"""Hand-made boards for rule tests, written in backgammon points, not array columns.

``make_board({13: 2, 25: 1}, {6: 5})`` puts two of the mover's checkers on its 13
point and one on its bar, and five of the opponent's on *its own* 6 point.  Point
numbers are always the owner's (1 = ace point, 25 = bar); the off tray is implied.
"""

from __future__ import annotations

import numpy as np

from engine.rules.moves import legal_moves
from engine.rules.position import Position

BAR_POINT = 25


def make_row(points: dict[int, int]) -> np.ndarray:
    row = np.zeros(25, dtype=np.int8)
    for point, count in points.items():
        row[point - 1] = count
    return row


def make_board(mover: dict[int, int], opponent: dict[int, int]) -> np.ndarray:
    return np.array([make_row(mover), make_row(opponent)], dtype=np.int8)


def backgammon_in_one_roll() -> np.ndarray:
    """The mover's last checkers on its 1 and 6 points (6-1 bears both off) while the
    opponent has 13 checkers on its 21 point, in the mover's home board: a backgammon."""
    return make_board({1: 1, 6: 1}, {21: 13, 24: 2})


def make_position(mover: dict[int, int], opponent: dict[int, int]) -> Position:
    return Position(make_board(mover, opponent))


def points_of(row: np.ndarray) -> dict[int, int]:
    return {i + 1: int(n) for i, n in enumerate(row) if n}


def mover_results(position: Position, d1: int, d2: int) -> list[dict[int, int]]:
    """The mover's checkers after each legal result, as point -> count dicts."""
    return [points_of(after.board[0]) for _, after in legal_moves(position, d1, d2)]


def opponent_holds(*points: int, count: int = 2) -> dict[int, int]:
    """Opponent points given in the *mover's* numbering (the points it blocks)."""
    return {25 - p: count for p in points}
