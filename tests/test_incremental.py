"""Incremental evaluation (engine.eval.incremental, engine.eval.eval_sets) against the full
forward pass: the same probabilities to 1e-5 for every architecture and encoding,
on the results of real rolls, and the same search decisions."""

from __future__ import annotations

import numpy as np
import pytest

from engine.eval.encode import ENCODINGS, encode, encode_tail_into, encoding_id, point_index, point_units, tail_ranges
from engine.eval.eval_sets import static_set
from engine.eval.evaluator import Evaluator
from engine.eval.incremental import (
    CHAIN,
    evaluate_replies,
    evaluate_replies_chained,
    make_chain_scratch,
    make_reply_scratch,
    probabilities_near,
)
from engine.eval.net import Net
from engine.rules.moves import MoveBuffers, generate_moves
from engine.search.context import make_context
from engine.search.nply import value0
from fibsbot.bench.speed import real_game_positions

ARCH_ENCODINGS = [
    ("gnubg5", "contact"),
    ("gnubg5", "contact2"),
    ("gnubg5", "contact3"),
    ("gnubg5", "race"),
    ("tesauro3", "tesauro"),
    ("symmetric", "tesauro-turn"),
    ("symmetric", "contact2"),
]


@pytest.fixture(scope="module")
def roll_sets():
    """The results of the roll played in every 7th turn of 12 pubeval self-play games
    (contact, races and bearoffs)."""
    positions, dice = real_game_positions(games=12, seed=5)
    buffers = MoveBuffers()
    sets = []
    for board, (d1, d2) in zip(positions[::7], dice[::7]):
        n = generate_moves(board, int(d1), int(d2), *buffers.args())
        sets.append(buffers.boards[:n].copy())
    return sets


@pytest.mark.parametrize("name", list(ENCODINGS))
def test_point_units_and_tail_rebuild_the_encoding(name, roll_sets):
    enc = encoding_id(name)
    units = np.zeros(4, np.float32)
    for board in (s[0] for s in roll_sets):
        full = encode(name, board)
        rebuilt = np.zeros_like(full)
        for side in range(2):
            for p in range(25):
                k = point_index(enc, side, p)
                if k >= 0:
                    point_units(enc, board[side, p], units)
                    rebuilt[k : k + 4] = units
        encode_tail_into(enc, board, rebuilt)
        a0, a1, b0, b1 = tail_ranges(enc)
        covered = np.zeros(len(full), bool)
        covered[a0:a1] = covered[b0:b1] = True
        assert np.array_equal(rebuilt, full)
        # the tail ranges hold every unit that is not a point unit
        for side in range(2):
            for p in range(25):
                k = point_index(enc, side, p)
                if k >= 0:
                    covered[k : k + 4] = True
        assert covered.all()


@pytest.mark.parametrize("arch,encoding", ARCH_ENCODINGS)
def test_incremental_equals_full_evaluation(arch, encoding, roll_sets):
    net = Net.create(arch, encoding, 32, seed=3, scale=0.3)
    scratch = make_reply_scratch()
    worst = 0.0
    for results in roll_sets:
        flipped = np.ascontiguousarray(results[:, ::-1])
        full = net.probabilities(flipped)
        near = probabilities_near(net, flipped)
        out = np.zeros((len(results), 5), np.float32)
        evaluate_replies(*net.arrays(), results, len(results), scratch, out)
        chained = np.zeros((len(results), 5), np.float32)
        evaluate_replies_chained(*net.arrays(), results, len(results), scratch, make_chain_scratch(), chained)
        worst = max(
            worst,
            float(np.abs(near - full).max()),
            float(np.abs(out - full).max()),
            float(np.abs(chained - full).max()),
        )
    assert worst < 1e-5


def test_shipped_nets_incremental_equal_full(roll_sets):
    evaluator = Evaluator.load("nets/default.npz")
    for net in (evaluator.contact, evaluator.race, evaluator.prune):
        for results in roll_sets:
            flipped = np.ascontiguousarray(results[:, ::-1])
            assert np.abs(probabilities_near(net, flipped) - net.probabilities(flipped)).max() < 1e-5


def _deep_contact_net() -> Net:
    from nets.train.dense import DenseNet

    return DenseNet.create("contact2", (24, 12), seed=4).as_net()


@pytest.mark.parametrize("contact", ["shipped", "deep5"])
def test_static_set_equals_one_by_one(roll_sets, contact):
    """The root of a decision: every candidate evaluated by the fitting net (or the
    bearoff database, or as a finished game) as the single-board path does; also with
    a contact net of two hidden layers beside the shipped race and pruning nets."""
    shipped = Evaluator.load("nets/default.npz")
    if contact == "deep5":
        shipped = Evaluator(_deep_contact_net(), shipped.race, "deep", shipped.prune)
    ctx = make_context(shipped)
    flipped = np.zeros((2, 25), np.int8)
    p = np.zeros(5, np.float32)
    seen = 0
    for results in roll_sets:
        out = np.zeros((len(results), 5), np.float32)
        static_set(ctx, results, len(results), out)
        for i, board in enumerate(results):
            value0(ctx, board, flipped, p, False)
            assert np.abs(out[i] - p).max() < 1e-5
            seen += 1
    assert seen > 300


def test_a_long_chain_of_results_stays_equal_to_the_full_evaluation():
    """Doubles with many results run several chains (each result from the one before,
    every CHAIN-th from the first): no rounding builds up, and a set evaluated twice,
    or after another set, gives the same figures bit for bit."""
    evaluator = Evaluator.load("nets/default.npz")
    net = evaluator.contact
    board = np.zeros((2, 25), np.int8)
    board[0, [5, 7, 12, 15, 18, 20, 23]] = [3, 2, 3, 2, 2, 1, 2]
    board[1, [5, 7, 12, 23]] = [5, 3, 5, 2]
    buffers = MoveBuffers()
    n = generate_moves(board, 2, 2, *buffers.args())
    assert n > 4 * CHAIN
    results = buffers.boards[:n].copy()
    full = net.probabilities(np.ascontiguousarray(results[:, ::-1]))
    scratch, chain = make_reply_scratch(), make_chain_scratch()
    first = np.zeros((n, 5), np.float32)
    evaluate_replies_chained(*net.arrays(), results, n, scratch, chain, first)
    assert np.abs(first - full).max() < 1e-5
    evaluate_replies_chained(*net.arrays(), results[::-1].copy(), n, scratch, chain, np.zeros((n, 5), np.float32))
    again = np.zeros((n, 5), np.float32)
    evaluate_replies_chained(*net.arrays(), results, n, scratch, chain, again)
    assert np.array_equal(first, again)
