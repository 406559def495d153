"""engine.eval.split_eval: a lookahead's cache misses with the side on roll's own sums
kept, against the one-pass evaluation, and the same bits whichever order the
positions come in (a cached value must not depend on the path that reached it)."""

from __future__ import annotations

import numpy as np
import pytest
from strategies import random_board

from engine.eval.encode import encode
from engine.eval.evaluator import Evaluator
from engine.eval.limits import RAW_LANES
from engine.eval.net import Net
from engine.eval.pubeval import board_has_contact
from engine.eval.sanity import NOISE
from engine.eval.split_eval import OWN_CONTACT2, OWN_CONTACT3, REST_CONTACT2, REST_CONTACT3, evaluate_split
from fibsbot.bench.speed import real_game_positions


def _contact_boards(count: int) -> np.ndarray:
    positions, _ = real_game_positions(games=max(4, count // 40), seed=13)
    boards = [b for b in positions if board_has_contact(b)][:count]
    return np.ascontiguousarray(boards, dtype=np.int8)


def _evaluate_all(net, boards, own, key) -> np.ndarray:
    W1, b1, W2, b2, W3, b3, arch, enc = net.arrays()
    x = np.zeros(512, np.float32)
    h = np.zeros(1024, np.float32)
    rows, deltas = np.zeros(512, np.int64), np.zeros(512, np.float32)
    raw = np.zeros(RAW_LANES, np.float32)
    out = np.zeros((len(boards), 5), np.float32)
    for i, board in enumerate(boards):
        evaluate_split(W1, b1, W2, b2, W3, b3, arch, enc, board, x, h, own, key, rows, deltas, raw, out[i])
    return out


@pytest.mark.parametrize(
    "encoding, own, rest", [("contact2", OWN_CONTACT2, REST_CONTACT2), ("contact3", OWN_CONTACT3, REST_CONTACT3)]
)
def test_own_units_depend_on_the_side_on_roll_alone(encoding, own, rest):
    """Changing the other side's checkers never moves an input counted as the side on
    roll's own, so its sums may be kept while that side's row stays the same."""
    rng = np.random.default_rng(3)
    for _ in range(300):
        board = random_board(rng)
        other = random_board(rng)
        other[0] = board[0]
        a, b = encode(encoding, board), encode(encoding, other)
        assert np.array_equal(a[own], b[own])
    assert sorted(np.concatenate([own, rest]).tolist()) == list(range(len(a)))


def test_split_evaluation_equals_the_one_pass_evaluation():
    boards = _contact_boards(400)
    nets = [
        Evaluator.load("nets/default.npz").contact,
        Net.create("gnubg5", "contact", 48, seed=2, scale=0.3),
        Net.create("gnubg5", "contact3", 48, seed=3, scale=0.3),
    ]
    for net in nets:
        assert net.encoding in ("contact", "contact2", "contact3")
        got = _evaluate_all(net, boards, np.zeros(1024, np.float32), np.zeros(32, np.float32))
        ref = net.probabilities(boards)
        diff = np.abs(got - ref)
        # a gammon figure within rounding of gnubg's noise floor is 0 in one pass and kept in
        # the other (the two sum in different orders): the floor's own jump, not a wrong sum
        at_floor = (np.minimum(got, ref) == 0) & (np.abs(np.maximum(got, ref) - NOISE) < 1e-6)
        assert diff[~at_floor].max() < 1e-5 and at_floor.sum() <= 2


def test_a_position_gets_the_same_bits_whatever_came_before():
    """Runs of positions sharing the side on roll's row reuse its sums; each position
    alone, or after others, or in reverse order gives the very same figures."""
    net = Evaluator.load("nets/default.npz").contact
    boards = _contact_boards(120)
    runs = np.repeat(boards[:40], 3, axis=0)  # each row three times running, as in a lookahead
    for i in range(0, len(runs), 3):
        runs[i + 1, 1] = boards[40 + i // 3, 1]  # the other side's checkers differ
        runs[i + 2, 1] = boards[80 + i // 3, 1]
    runs = np.ascontiguousarray(runs)
    in_order = _evaluate_all(net, runs, np.zeros(1024, np.float32), np.zeros(32, np.float32))
    reverse = _evaluate_all(net, runs[::-1].copy(), np.zeros(1024, np.float32), np.zeros(32, np.float32))[::-1]
    alone = np.concatenate(
        [
            _evaluate_all(net, runs[i : i + 1], np.zeros(1024, np.float32), np.zeros(32, np.float32))
            for i in range(len(runs))
        ]
    )
    assert np.array_equal(in_order, reverse)
    assert np.array_equal(in_order, alone)
