"""Rollouts: agreement with the bearoff database, common dice, process splitting."""

from __future__ import annotations

import numpy as np
import pytest

from engine.eval.bearoff import bearoff_probabilities
from engine.rollout.cubeless import rollout_moves, rollout_position
from engine.rules.position import Position
from nets.player import load_agent


@pytest.fixture(scope="module")
def agent():
    return load_agent("net:default@0")


def bearoff_board() -> np.ndarray:
    board = np.zeros((2, 25), np.int8)
    board[0, :6] = [2, 2, 2, 1, 1, 0]
    board[1, :6] = [1, 2, 2, 2, 1, 1]
    return board


def test_played_out_bearoff_agrees_with_the_database(agent):
    board = bearoff_board()
    result = rollout_position(board, 1500, agent=agent, seed=3, truncate=False)
    exact = bearoff_probabilities(board)
    assert abs(result.probs[0] - exact[0]) < 3 * result.probs_stderr[0] + 1e-3
    assert result.games == 1500 and result.probs[1] == 0.0  # no gammons with checkers off


def test_truncation_uses_the_database_exactly(agent):
    board = bearoff_board()
    result = rollout_position(board, 10, agent=agent, seed=1)
    assert np.allclose(result.probs, bearoff_probabilities(board), atol=1e-6)
    assert result.probs_stderr[0] == pytest.approx(0.0, abs=1e-9)


def test_same_seed_same_games_and_workers_do_not_change_results(agent):
    board = Position.initial().board
    one = rollout_position(board, 40, agent=agent, seed=9)
    again = rollout_position(board, 40, agent=agent, seed=9)
    other = rollout_position(board, 40, agent=agent, seed=10)
    assert np.array_equal(one.equities, again.equities)
    assert not np.array_equal(one.equities, other.equities)
    split = rollout_position(board, 40, spec="net:default", seed=9, workers=2)
    assert np.array_equal(one.equities, split.equities)


def test_quasi_random_first_rolls_cover_all_36(agent):
    # 36 games from a position where any roll ends the game at once: every first roll
    # is seen exactly once, so the rollout is exact
    board = np.zeros((2, 25), np.int8)
    board[0, 0] = 1
    board[1, 5] = 15
    result = rollout_position(board, 36, agent=agent, seed=4)
    assert result.probs[0] == 1.0 and result.probs[1] == 1.0


def test_move_rollouts_report_paired_differences(agent):
    rows = rollout_moves(Position.initial().board, 3, 1, 36, agent=agent, seed=2, candidates=3)
    assert len(rows) == 3 and rows[0]["diff"] == 0.0
    assert all(r["diff_stderr"] >= 0 and len(r["probs"]) == 5 for r in rows)
