"""Positions after a dance: the side NOT on roll has checkers on the bar.

Training positions are the candidates of our own moves, seen by the side to roll
next. A mover's checkers are never left on the bar there unless it danced, and a
dance leaves no choice to harvest, so such positions never reach the training data.
Yet every cube decision after the opponent dances, and every lookahead through a
dance, asks the net about them: nets trained only on harvested candidates judged
blitzes against a dancing opponent 0.2-0.4 too low in winning chances.

A position where the side on roll has checkers on the bar and the other side holds
a point it could fail to enter on becomes, after that dance, the same board with the
rows swapped.
"""

from __future__ import annotations

import numpy as np

BAR = 24


def dance_positions(boards: np.ndarray) -> np.ndarray:
    """The distinct positions after a dance of the side on roll, from ``boards``
    (side on roll in row 0): rows swapped, where a dance was possible."""
    boards = np.asarray(boards, np.int8)
    on_bar = boards[:, 0, BAR] > 0
    # entering with die d lands on the opponent's point d: a made point there blocks it
    can_dance = (boards[:, 1, :6] >= 2).any(axis=1)
    swapped = np.ascontiguousarray(boards[on_bar & can_dance][:, ::-1, :])
    flat = np.unique(swapped.reshape(len(swapped), 50), axis=0)
    return flat.reshape(len(flat), 2, 25)
