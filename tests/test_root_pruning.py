"""A pruned 0-ply root (``engine.eval.static.prune_root``): a contact net of two hidden
layers with a root net (``Evaluator.root``) scores only the root net's favourites at a
0-ply decision in contact; every other net, position and deeper search scores all moves."""

from __future__ import annotations

import numpy as np
import pytest

from engine.eval.evaluator import Evaluator
from engine.eval.pubeval import board_has_contact
from engine.eval.static import PRUNED, WON, rank_interpreted, rank_static
from engine.players.agent import Agent
from engine.rules.moves import MAX_RESULTS, MoveBuffers, generate_moves
from engine.search.context import ROOT_PRUNE_KEEP, make_context
from engine.search.nply import rank_candidates
from fibsbot.bench.speed import real_game_positions
from nets.train.dense import DenseNet

MONEY = np.ones(4)
DMP_LIKE = np.zeros(4)  # gammons worth nothing: the pruning net ranks by these weights too


@pytest.fixture(scope="module")
def shipped() -> Evaluator:
    """Round 9's shipped net: one hidden layer on ``contact2``, no root net of its own."""
    return Evaluator.load("nets/e400w.npz")


@pytest.fixture(scope="module", params=["contact2", "tesauro"], ids=["contact2-root", "tesauro-root"])
def deep(request, shipped) -> Evaluator:
    """A net of two hidden layers with a root net that reads its own ``contact2`` inputs
    (the shipped contact net) or the plain Tesauro inputs (the shipped pruning net): the
    root's pass reads whichever encoding its net has."""
    contact = DenseNet.create("contact2", (24, 12), seed=4).as_net()
    root = shipped.contact if request.param == "contact2" else shipped.prune
    assert root.encoding == request.param
    return Evaluator(contact, shipped.race, "deep", shipped.prune, root=root)


@pytest.fixture(scope="module")
def rolls():
    """Contact positions with more legal moves than the root keeps, none breaking contact."""
    boards, dice = real_game_positions(games=4, seed=12)
    buffers = MoveBuffers()
    keep = []
    for i in range(len(boards)):
        n = generate_moves(boards[i], int(dice[i, 0]), int(dice[i, 1]), *buffers.args())
        if n > ROOT_PRUNE_KEEP and all(board_has_contact(result) for result in buffers.boards[:n]):
            keep.append(i)
    assert len(keep) >= 40
    return boards[keep], dice[keep]


def _rank(ctx, board, d1, d2, weights, ply=0):
    buffers = MoveBuffers()
    n = generate_moves(board, d1, d2, *buffers.args())
    equities = np.zeros(MAX_RESULTS)
    probs = np.zeros((MAX_RESULTS, 5), np.float32)
    plies = np.zeros(MAX_RESULTS, np.int64)
    scratch = (MoveBuffers().args(), MoveBuffers().args(), equities, probs, plies)
    filters = np.array([12, 0.24, 6, 0.12])
    best = rank_candidates(ctx, buffers.boards, n, ply, filters, weights, *scratch)
    return buffers.boards[:n].copy(), best, equities[:n].copy(), probs[:n].copy(), plies[:n].copy()


def test_only_a_net_with_a_root_net_prunes_its_root(shipped, deep):
    assert make_context(deep).root_keep == ROOT_PRUNE_KEEP
    assert make_context(deep, root_keep=6).root_keep == 6
    assert make_context(shipped).root_keep == 0  # a one-layer net without a root net scores every move
    with pytest.raises(ValueError, match="root_keep"):
        make_context(shipped, root_keep=4)


@pytest.mark.parametrize("weights", [MONEY, DMP_LIKE], ids=["money", "gammons-free"])
def test_the_pruning_nets_favourites_get_the_full_nets_figures(deep, rolls, weights):
    pruned_ctx, full_ctx = make_context(deep), make_context(deep, root_keep=0)
    boards, dice = rolls
    for board, (d1, d2) in zip(boards[:40], dice[:40]):
        results, best, equities, probs, plies = _rank(pruned_ctx, board, int(d1), int(d2), weights)
        _, _, full_eq, full_probs, _ = _rank(full_ctx, board, int(d1), int(d2), weights)
        kept = plies == 0
        assert kept.sum() == ROOT_PRUNE_KEEP and set(plies) <= {0, PRUNED}
        assert plies[best] == 0 and equities[best] == equities[kept].max()
        np.testing.assert_allclose(probs[kept], full_probs[kept], atol=1e-5)
        # the kept are the root net's favourites, and the rest carry its figures
        theirs = deep.root.probabilities(np.ascontiguousarray(results[:, ::-1]))
        ours = np.stack([1 - theirs[:, 0], theirs[:, 3], theirs[:, 4], theirs[:, 1], theirs[:, 2]], axis=1)
        cheap = 2 * ours[:, 0] - 1 + ours[:, 1:3] @ weights[:2] - ours[:, 3:5] @ weights[2:]
        assert set(np.argsort(-cheap)[:ROOT_PRUNE_KEEP]) == set(np.flatnonzero(kept))
        np.testing.assert_allclose(equities[~kept], cheap[~kept], atol=1e-5)
        assert full_eq[best] <= full_eq.max()


def test_a_move_that_ends_the_game_is_never_pruned_away(deep):
    board = np.zeros((2, 25), np.int8)
    board[0, 0], board[0, 1] = 1, 1  # two checkers on the 1 and 2 points: 6-5 bears both off
    board[1, 23] = 15
    results, best, _, _, plies = _rank(make_context(deep), board, 6, 5, MONEY)
    assert plies[best] == WON and results[best, 0].sum() == 0


def test_a_roll_that_may_break_contact_is_scored_in_full(deep):
    board = np.zeros((2, 25), np.int8)
    board[0, [1, 2, 3, 4, 5, 6, 7]] = 2  # our home board and 7-8 points, and a straggler on our 12 point
    board[0, 11] = 1
    board[1, [0, 1, 2, 3, 4, 5]] = 3, 3, 2, 2, 2, 2  # theirs, and one on their 15 point (our 10)
    board[1, 14] = 1
    results, _, _, _, plies = _rank(make_context(deep), board, 6, 4, MONEY)
    assert len(results) > ROOT_PRUNE_KEEP and not all(board_has_contact(result) for result in results)
    assert PRUNED not in set(plies)


def test_every_0_ply_path_of_the_agent_takes_the_same_pruned_choice(deep, rolls):
    agent = Agent(deep, ply=0)
    interpreted = Agent(deep, ply=0, search_ready=False)
    boards, dice = rolls
    for board, (d1, d2) in zip(boards[:25], dice[:25]):
        results, best, *_ = _rank(agent.ctx, board, int(d1), int(d2), MONEY)
        kernel_choice = agent.choose(board, int(d1), int(d2), results)
        assert kernel_choice == best
        assert np.array_equal(agent.choose_move(board, int(d1), int(d2)).board, results[best])
        assert np.array_equal(interpreted.choose_move(board, int(d1), int(d2)).board, results[best])
        ranked = agent.choose_move(board, int(d1), int(d2)).ranked
        assert [m.ply for m in ranked].count(0) == ROOT_PRUNE_KEEP and ranked[-1].ply == PRUNED


def test_a_deeper_search_still_scores_every_move(deep, rolls):
    boards, dice = rolls
    _, _, _, _, plies = _rank(make_context(deep), boards[0], int(dice[0, 0]), int(dice[0, 1]), MONEY, ply=1)
    assert PRUNED not in set(plies)


def test_rank_static_and_its_interpreted_twin_agree(deep, rolls):
    ctx = make_context(deep)
    boards, dice = rolls
    buffers = MoveBuffers()
    for board, (d1, d2) in zip(boards[:5], dice[:5]):
        n = generate_moves(board, int(d1), int(d2), *buffers.args())
        out = [(np.zeros(n), np.zeros((n, 5), np.float32), np.zeros(n, np.int64)) for _ in range(2)]
        first = rank_static(ctx, buffers.boards[:n].copy(), n, MONEY, *out[0])
        second = rank_interpreted(ctx, buffers.boards[:n].copy(), n, MONEY, *out[1])
        assert first == second
        np.testing.assert_array_equal(out[0][2], out[1][2])
        np.testing.assert_allclose(out[0][0], out[1][0], atol=1e-5)
