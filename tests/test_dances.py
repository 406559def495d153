"""Positions after a dance, the training positions a harvest of our own moves never holds."""

from __future__ import annotations

import numpy as np

from engine.rules.position import Position
from nets.train.dances import dance_positions
from tests.board_builder import make_board


def test_a_checker_on_the_bar_facing_a_made_point_gives_the_board_after_its_dance():
    blitzed = make_board({25: 2, 13: 3, 6: 10}, {1: 2, 3: 2, 4: 2, 5: 3, 6: 6})
    (after,) = dance_positions(blitzed[None])
    assert np.array_equal(after, blitzed[::-1])
    assert after[1, 24] == 2 and after[0, 24] == 0  # the side not on roll is on the bar


def test_no_dance_without_a_checker_on_the_bar_or_a_point_that_blocks_it():
    open_board = make_board({25: 1, 13: 14}, {10: 5, 13: 10})  # nothing made in the home board: every roll enters
    start = Position.initial().board
    assert len(dance_positions(np.stack([open_board, start]))) == 0


def test_the_same_position_twice_is_kept_once():
    blitzed = make_board({25: 1, 6: 14}, {1: 2, 6: 13})
    assert len(dance_positions(np.stack([blitzed, blitzed]))) == 1
