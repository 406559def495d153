"""A lookahead with a ``deep5`` net evaluates its cache misses four at a time
(``engine.search.context.evaluate0_many``, ``engine.search.nply``'s replies chosen
together): the figures must be those of one position at a time, bit for bit, so a
cache holds the same whichever way a position reached it."""

from __future__ import annotations

import numpy as np
import pytest

from engine.eval.evaluator import Evaluator
from engine.players.agent import Agent
from engine.rules.boards import flip_into
from engine.rules.dice import DISTINCT_ROLLS
from engine.rules.moves import MoveBuffers, generate_moves
from engine.search.context import clear_cache, evaluate0, evaluate0_many, make_context
from engine.search.nply import best_reply0, choose_replies, evaluate2
from fibsbot.bench.speed import real_game_positions
from nets.train.dense import DenseNet

MONEY = np.ones(4)


@pytest.fixture(scope="module")
def deep() -> Evaluator:
    shipped = Evaluator.load("nets/default.npz")
    dense = DenseNet.create("contact2", (24, 10), seed=7)  # 10: the quad's two units a pass, and one more pair
    dense.biases[-1][:] = np.random.default_rng(7).normal(0.0, 0.5, 5)
    return Evaluator(dense.as_net(), shipped.race, "deep", shipped.prune)


@pytest.fixture(scope="module")
def boards():
    positions, _ = real_game_positions(games=6, seed=31)
    return np.ascontiguousarray(positions)


def test_four_at_a_time_gives_each_positions_own_figures_bit_for_bit(deep, boards):
    """Every count of misses (a full quad, and one to three left over), a position met
    twice, hits between misses, race and bear-off positions that take the other path."""
    for m in (1, 2, 3, 4, 5, 7, 9, len(boards)):
        batch = np.ascontiguousarray(np.concatenate([boards[:m], boards[:2]]))  # two of them again
        together_ctx, alone_ctx = make_context(deep), make_context(deep)
        together = np.zeros((len(batch), 5), np.float32)
        evaluate0_many(together_ctx, batch, len(batch), together)
        alone = np.zeros_like(together)
        for i, board in enumerate(batch):
            evaluate0(alone_ctx, board, alone[i])
        assert np.array_equal(together, alone), m
        again = np.zeros_like(together)  # now all from the cache the batch filled
        evaluate0_many(together_ctx, batch, len(batch), again)
        assert np.array_equal(again, alone)


def test_replies_chosen_together_are_those_chosen_roll_by_roll(deep, boards):
    for weights in (None, np.array([1.0, 0.5, 2.0, 1.0])):
        together_ctx, alone_ctx = make_context(deep), make_context(deep)
        buffers = MoveBuffers()
        for board in boards[::7]:
            probs = np.zeros(5, np.float32)
            replies = np.zeros((21, 2, 25), np.int8)
            reply_probs = np.zeros((21, 5), np.float32)
            choose_replies(together_ctx, board, buffers.args(), probs, replies, reply_probs, weights)
            flipped = np.empty((2, 25), np.int8)
            for r, (d1, d2) in enumerate(DISTINCT_ROLLS):
                n = generate_moves(board, int(d1), int(d2), *buffers.args())
                best = np.zeros(5, np.float32)
                i = best_reply0(alone_ctx, buffers.boards, n, flipped, best, weights)
                assert np.array_equal(replies[r], buffers.boards[i]) and np.array_equal(reply_probs[r], best)


def test_a_deep_two_ply_look_repeats_from_a_cold_or_a_warm_cache(deep, boards):
    ctx = make_context(deep)
    buffers2, buffers1 = MoveBuffers(), MoveBuffers()
    flipped = np.empty((2, 25), np.int8)
    cold, warm = np.zeros(5, np.float32), np.zeros(5, np.float32)
    for board in boards[::25]:
        flip_into(board, flipped)
        clear_cache(ctx)
        evaluate2(ctx, flipped, buffers2.args(), buffers1.args(), cold)
        evaluate2(ctx, flipped, buffers2.args(), buffers1.args(), warm)
        assert np.array_equal(cold, warm)


def test_the_deep_agent_at_two_ply_is_the_same_with_one_cache_or_a_fresh_one(deep, boards):
    kept, fresh = Agent(deep, ply=2), Agent(deep, ply=2)
    for board in boards[5:60:11]:
        fresh.clear_cache()
        a = kept.choose_move(board, 6, 4)
        b = fresh.choose_move(board, 6, 4)
        assert np.array_equal(a.board, b.board)
        assert [m.equity for m in a.ranked] == [m.equity for m in b.ranked]
