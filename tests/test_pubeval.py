"""Our pubeval picks the same move as gnubg's pubeval (gnubg-nn ``pub_best_move``).

Moves are compared by the position they reach, never by how they are spelled.
"""

from __future__ import annotations

import numpy as np
import pytest

from engine.eval.pubeval import WIN_SCORE, pubeval_score, pubeval_weights
from engine.players.registry import PubevalPlayer
from engine.rollout.selfplay_sample import sample_positions
from engine.rules.moves import MoveBuffers, generate_moves
from tests.board_builder import make_board

oracle = pytest.importorskip("engine.rules.gnubg_oracle", reason="gnubg-nn not installed: pip install -e '.[test]'")


def test_pubeval_choice_equals_gnubg_on_self_play_positions():
    player = PubevalPlayer()
    buffers = MoveBuffers()
    compared = 0
    mismatches = []
    for sample in sample_positions(4000, seed=3):
        d1, d2 = sample.dice
        n = generate_moves(sample.board, d1, d2, *buffers.args())
        if n == 1:
            continue  # a forced or blocked roll: no choice to compare
        ours = buffers.boards[player.choose(sample.board, d1, d2, buffers.boards[:n])]
        theirs = oracle.gnubg_pubeval_result(sample.board, d1, d2)
        compared += 1
        if not np.array_equal(ours, theirs):
            mismatches.append(sample.describe())
    assert compared > 2500
    assert mismatches == []


def test_bearing_off_the_last_checker_scores_highest():
    weights = pubeval_weights()[0]
    finished = make_board({}, {6: 3})
    assert pubeval_score(weights, finished) == WIN_SCORE
    assert pubeval_score(weights, make_board({1: 1}, {6: 3})) < WIN_SCORE


def test_race_weights_apply_when_the_position_before_the_move_had_no_contact():
    # a race position: the choice must match gnubg's, which uses its race weights
    board = make_board({9: 3, 7: 4, 6: 4, 5: 2, 3: 2}, {8: 4, 6: 5, 5: 3, 2: 3})
    player = PubevalPlayer()
    buffers = MoveBuffers()
    for d1 in range(1, 7):
        for d2 in range(1, d1 + 1):
            n = generate_moves(board, d1, d2, *buffers.args())
            ours = buffers.boards[player.choose(board, d1, d2, buffers.boards[:n])]
            assert np.array_equal(ours, oracle.gnubg_pubeval_result(board, d1, d2)), (d1, d2)
