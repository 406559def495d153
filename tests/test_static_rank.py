"""The light 0-ply path (``engine.eval.static``) against the search's own 0-ply, and the
agent that plays on it while the search kernels are not ready."""

from __future__ import annotations

import numpy as np
import pytest

from engine.eval.evaluator import Evaluator
from engine.eval.net import Net
from engine.eval.static import WON, probabilities_interpreted, rank_interpreted, rank_static
from engine.players.agent import Agent
from engine.rollout.selfplay_sample import sample_positions
from engine.rules.moves import MAX_RESULTS, MoveBuffers, generate_moves
from engine.rules.position import Position
from engine.search.nply import rank_candidates
from nets.player import load_agent
from tests.board_builder import backgammon_in_one_roll

WEIGHTS = [(1.0, 1.0, 1.0, 1.0), (0.6, 0.2, 1.4, 0.3)]  # money, and a match score's values


@pytest.fixture(scope="module", params=["default", "tiny"])
def agent(request) -> Agent:
    if request.param == "default":
        return load_agent("net:default@0")
    contact = Net.create("gnubg5", "contact", 16, seed=5, scale=0.3)
    race = Net.create("gnubg5", "race", 8, seed=6, scale=0.3)
    return Agent(Evaluator(contact, race, name="tiny"), ply=0)


def home_boards(count: int, seed: int) -> list[np.ndarray]:
    """Both sides in their home boards (the bearoff database), some about to win."""
    rng = np.random.default_rng(seed)
    boards = []
    for k in range(count):
        board = np.zeros((2, 25), np.int8)
        for side in range(2):
            checkers = int(rng.integers(1, 3 if k % 3 == 0 else 16))
            for _ in range(checkers):
                board[side, int(rng.integers(0, 6))] += 1
        boards.append(board)
    return boards


def positions() -> list[tuple[np.ndarray, int, int]]:
    rng = np.random.default_rng(3)
    boards = [s.board for s in sample_positions(120, 21)] + home_boards(60, 4)
    return [(b, int(rng.integers(1, 7)), int(rng.integers(1, 7))) for b in boards]


def test_static_ranking_equals_the_search_at_zero_ply(agent):
    buffers = MoveBuffers()
    eq_a, eq_b = np.zeros(MAX_RESULTS), np.zeros(MAX_RESULTS)
    pr_a, pr_b = np.zeros((MAX_RESULTS, 5), np.float32), np.zeros((MAX_RESULTS, 5), np.float32)
    pl_a, pl_b = np.zeros(MAX_RESULTS, np.int64), np.zeros(MAX_RESULTS, np.int64)
    filters = np.array([12, 0.24, 6, 0.12])
    kinds = {"won": 0, "bearoff": 0, "race or contact": 0}
    for k, (board, d1, d2) in enumerate(positions()):
        n = generate_moves(np.ascontiguousarray(board), d1, d2, *buffers.args())
        cands = buffers.boards
        for weights in WEIGHTS:
            w = np.array(weights)
            a = rank_candidates(
                agent.ctx, cands, n, 0, filters, w, agent._buf2.args(), agent._buf1.args(), eq_a, pr_a, pl_a
            )
            b = rank_static(agent.ctx, cands, n, w, eq_b, pr_b, pl_b)
            assert np.allclose(eq_a[:n], eq_b[:n], atol=1e-5, rtol=0)
            assert np.allclose(pr_a[:n], pr_b[:n], atol=1e-5, rtol=0)
            assert np.array_equal(pl_a[:n], pl_b[:n])
            assert a == b or abs(eq_a[a] - eq_a[b]) < 1e-5  # the same move, or a tie within rounding
            if k % 4 == 0:  # the same code interpreted (slow): on a quarter of the positions
                c = rank_interpreted(agent.ctx, cands, n, w, eq_b, pr_b, pl_b)
                assert np.allclose(eq_a[:n], eq_b[:n], atol=1e-5, rtol=0)
                assert np.array_equal(pl_a[:n], pl_b[:n]) and (a == c or abs(eq_a[a] - eq_a[c]) < 1e-5)
        won = (cands[:n, 0].sum(axis=1) == 0).any()
        home = not won and (board[:, 6:] == 0).all()
        kinds["won" if won else "bearoff" if home else "race or contact"] += 1
    assert min(kinds.values()) >= 10, kinds


def test_interpreted_probabilities_equal_the_compiled_ones(agent):
    out = np.zeros(5, np.float32)
    for board, _, _ in positions()[::6]:
        board = np.ascontiguousarray(board)
        probabilities_interpreted(agent.ctx, board, out)
        assert np.allclose(out, agent.probabilities(board, ply=0), atol=1e-5)


def test_an_agent_waiting_for_its_search_plays_at_zero_ply_then_searches():
    ready = {"now": False}
    asked = []

    def search_ready() -> bool:
        asked.append(1)
        return ready["now"]

    agent = load_agent("net:default@2")
    agent.search_ready = search_ready
    zero = load_agent("net:default@0")
    board = Position.initial().board
    first = agent.choose_move(board, 6, 2)
    reference = zero.choose_move(board, 6, 2)
    assert (
        first.ply == 0 and first.steps == reference.steps and first.equity == pytest.approx(reference.equity, abs=1e-5)
    )
    # no move looked at deeper than 0-ply: scored by the full net (0) or by the root net alone (-1)
    assert not first.disagrees and all(r.ply in (0, -1) for r in first.ranked) and first.ranked[0].ply == 0
    assert agent.depth == 0 and agent.rank_moves(board, 6, 2)[0].ply == 0
    assert np.allclose(
        agent.probabilities(board), zero.probabilities(board), atol=1e-6
    )  # the cube's figures: static too, to float32 rounding
    ready["now"] = True
    second = agent.choose_move(board, 6, 2)
    assert second.ply == 2 and agent.depth == 2
    calls = len(asked)
    agent.choose_move(board, 5, 1)
    assert len(asked) == calls  # once ready, never asked again


def test_a_won_game_is_taken_on_the_static_path():
    agent = load_agent("net:default@2")
    agent.search_ready = False
    choice = agent.choose_move(backgammon_in_one_roll(), 6, 1)
    assert choice.ply == 0 and choice.board[0].sum() == 0 and choice.equity == 3.0
    assert WON == 99
