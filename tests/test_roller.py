"""The roller level: the table level whose deeper look at close decisions in a match is
short cubeful rollouts (engine.rollout.roller)."""

from __future__ import annotations

import numpy as np
import pytest

from engine.rollout.roller import Roller, _close_cube
from engine.rules.ids import MatchState
from engine.rules.moves import MoveBuffers, generate_moves
from engine.rules.position import Position

STATE = MatchState(match_length=7, score=(2, 4), jacoby=False)


@pytest.fixture(scope="module")
def roller():
    from nets.player import load_agent

    return load_agent("net:default@roller")


def test_the_roller_level_plays_a_legal_move_at_a_score(roller):
    board = Position.initial().board
    choice = roller.choose_move(board, 6, 4, STATE)
    buffers = MoveBuffers()
    n = generate_moves(board, 6, 4, *buffers.args())
    assert any(np.array_equal(choice.board, buffers.boards[i]) for i in range(n))


def test_close_moves_are_ranked_by_their_rollouts(roller):
    # the opening 6-4: several moves within a few hundredths at 2-ply
    board = Position.initial().board
    ranked = roller.rank_moves(board, 6, 4)
    from engine.players.table import rerank

    scored = rerank(roller.tree, ranked, STATE, None)
    scored = [move for move in scored if move.ply == scored[0].ply]
    rolled = Roller().rank_moves(roller, scored, STATE)
    assert {m.steps for m in rolled} == {m.steps for m in scored}
    before = {m.steps: m.equity for m in scored}
    assert any(m.equity != before[m.steps] for m in rolled)  # the close ones now carry their rolled-out equities
    assert [m.equity for m in rolled[:2]] == sorted((m.equity for m in rolled[:2]), reverse=True)


def test_only_close_cube_decisions_are_rolled_out():
    assert _close_cube({"no_double": 0.50, "double_take": 0.52, "double_drop": 1.0})
    assert _close_cube({"no_double": 0.80, "double_take": 0.97, "double_drop": 1.0})  # take or drop is close
    assert not _close_cube({"no_double": 0.10, "double_take": -0.30, "double_drop": 1.0})
