"""The table level (``net:NAME@table``): cubeful 2-ply, a ply deeper where it pays."""

from __future__ import annotations

import numpy as np
import pytest

from engine.cube.cubeful import cube_equities, move_equities
from engine.eval.evaluator import Evaluator
from engine.players.agent import Agent
from engine.players.registry import PubevalPlayer
from engine.players.table import CLOSE_MOVE
from engine.rollout.duel import play_player_pairs
from engine.rollout.selfplay_sample import sample_positions
from engine.rules.ids import MatchState
from engine.rules.position import Position
from tests.tiny_net import tiny_evaluator


@pytest.fixture(scope="module")
def evaluator() -> Evaluator:
    return tiny_evaluator()


def contact_samples(count: int, seed: int = 31):
    return [s for s in sample_positions(count * 3, seed) if Position(s.board).has_contact()][:count]


def test_a_table_cube_decision_is_the_mean_of_two_and_three_plies(evaluator):
    table = Agent(evaluator, ply=2, think=1.0)
    state = MatchState(match_length=7, score=(2, 4))
    board = contact_samples(1)[0].board
    choice = table.double_decision(board, state)
    probs = table.probabilities(board, 0)
    two = cube_equities(table.tree, board, probs, state, 2)
    three = cube_equities(table.tree, board, probs, state, 3)
    assert choice.ply == 3
    for key in two:
        assert choice.equities[key] == pytest.approx(0.5 * (two[key] + three[key]))
    assert Agent(evaluator, ply=2).double_decision(board, state).equities == pytest.approx(two)


def test_moves_at_a_score_are_ranked_by_cubeful_equity(evaluator):
    agent = Agent(evaluator, ply=1)
    state = MatchState(match_length=5, score=(3, 1), cube=2, cube_owner=1)
    for sample in contact_samples(4, seed=7):
        choice = agent.choose_move(sample.board, *sample.dice, state)
        deepest = [m for m in choice.ranked if m.ply == choice.ranked[0].ply]
        figures = move_equities(
            agent.tree,
            np.stack([m.board for m in deepest]),
            np.array([m.probs for m in deepest]),
            state,
            deepest[0].ply,
        )
        assert [m.equity for m in deepest] == pytest.approx(sorted(figures, reverse=True))


def test_close_moves_are_looked_at_a_ply_deeper_within_the_budget(evaluator):
    table = Agent(evaluator, ply=2, think=30.0)
    deeper = 0
    for sample in contact_samples(6, seed=12):
        ranked = table.choose_move(sample.board, *sample.dice).ranked
        if ranked[0].ply == 3:
            deeper += 1
            looked = [m for m in ranked if m.ply == 3]
            assert len(looked) >= 2 and looked[0].equity - looked[-1].equity < 1.0
            assert all(m.ply <= 2 for m in ranked[len(looked) :])
    assert deeper > 0 and CLOSE_MOVE > 0
    assert all(m.ply <= 2 for m in Agent(evaluator, ply=2, think=0.0).choose_move(sample.board, *sample.dice).ranked)


def test_the_table_level_plays_a_duel_through_python(evaluator):
    table = Agent(evaluator, ply=2, think=0.2, name="net:tiny@table")
    assert table.kernel is None
    points = play_player_pairs(table, PubevalPlayer(), seed=3, first_pair=0, n_pairs=1)
    assert len(points) == 1 and np.all(np.abs(points) <= 6)


def test_threads_of_the_lookahead_give_the_same_equities_as_one(evaluator):
    """``workers`` splits each level of the cubeful lookahead among threads: the values
    must be those of one thread, for moves (3 plies) and for the cube."""
    one, two = Agent(evaluator, ply=2, think=1.0), Agent(evaluator, ply=2, think=1.0, workers=2)
    state = MatchState(match_length=7, score=(3, 5), cube=2, cube_owner=1)
    for sample in contact_samples(3, seed=57):
        board, (d1, d2) = sample.board, sample.dice
        ranked = one.choose_move(board, int(d1), int(d2), state).ranked[:3]
        boards, probs = np.stack([m.board for m in ranked]), np.array([m.probs for m in ranked])
        assert len(two.tree.workers) == 2
        np.testing.assert_allclose(
            move_equities(two.tree, boards, probs, state, 3), move_equities(one.tree, boards, probs, state, 3)
        )
        own = one.probabilities(board, 0)
        assert cube_equities(two.tree, board, own, state, 3) == pytest.approx(
            cube_equities(one.tree, board, own, state, 3), abs=1e-12
        )
    with pytest.raises(ValueError, match="workers"):
        Agent(evaluator, ply=2, workers=0)
