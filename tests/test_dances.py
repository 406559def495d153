"""Positions after a dance, the training positions a harvest of our own moves never holds."""

from __future__ import annotations

import numpy as np

from engine.position import Position
from nets.train.dances import dance_positions


def _board(on_roll: dict, other: dict, rest: int = 5) -> np.ndarray:
    board = np.zeros((2, 25), np.int8)
    for row, points in enumerate((on_roll, other)):
        for index, count in points.items():
            board[row, index] = count
        board[row, rest] += 15 - board[row].sum()  # the rest on one point (the six point by default)
    return board


def test_a_checker_on_the_bar_facing_a_made_point_gives_the_board_after_its_dance():
    blitzed = _board({24: 2, 12: 3}, {0: 2, 2: 2, 3: 2, 4: 3})
    (after,) = dance_positions(blitzed[None])
    assert np.array_equal(after, blitzed[::-1])
    assert after[1, 24] == 2 and after[0, 24] == 0  # the side not on roll is on the bar


def test_no_dance_without_a_checker_on_the_bar_or_a_point_that_blocks_it():
    open_board = _board({24: 1}, {9: 5}, rest=12)  # nothing made in the home board: every roll enters
    start = Position.initial().board
    assert len(dance_positions(np.stack([open_board, start]))) == 0


def test_the_same_position_twice_is_kept_once():
    blitzed = _board({24: 1}, {0: 2})
    assert len(dance_positions(np.stack([blitzed, blitzed]))) == 1
