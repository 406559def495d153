"""``deep5`` nets (two hidden layers) through every evaluation path: the full forward
pass, the incremental ones, the split evaluation, the files (the search's root sets:
``tests/test_incremental.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from engine.eval.evaluator import Evaluator
from engine.eval.incremental import (
    evaluate_replies,
    evaluate_replies_chained,
    make_chain_scratch,
    make_reply_scratch,
    probabilities_near,
)
from engine.eval.limits import MAX_SECOND_HIDDEN, RAW_LANES
from engine.eval.net import Net, NetError
from engine.eval.pubeval import board_has_contact
from engine.eval.sanity import keep_possible
from engine.eval.split_eval import evaluate_split
from engine.rules.moves import MoveBuffers, generate_moves
from fibsbot.bench.speed import real_game_positions
from nets.train.dense import DenseNet, encode_all


def deep_net(seed: int = 4, hidden=(24, 12)) -> Net:
    dense = DenseNet.create("contact2", hidden, seed=seed)
    rng = np.random.default_rng(seed)
    dense.biases[-1][:] = rng.normal(0.0, 0.5, 5)  # outputs spread around 1/2: the cumulative clips matter
    return dense.as_net()


@pytest.fixture(scope="module")
def positions():
    boards, dice = real_game_positions(games=6, seed=8)
    return boards, dice


def _cumulative(raw: np.ndarray, boards: np.ndarray) -> np.ndarray:
    """The fitted outputs as an evaluation ends them: cumulative, and within what each
    board allows (``engine.eval.sanity``)."""
    p = raw.copy()
    p[:, 1] = np.minimum(p[:, 1], p[:, 0])
    p[:, 2] = np.minimum(p[:, 2], p[:, 1])
    p[:, 3] = np.minimum(p[:, 3], 1 - p[:, 0])
    p[:, 4] = np.minimum(p[:, 4], p[:, 3])
    kept = p.astype(np.float32)
    for board, probs in zip(boards, kept):
        keep_possible(board, probs)
    return kept


@pytest.mark.parametrize("hidden", [(24, 12), (16, 7)])  # the second layer's units in fours, and not
def test_the_engine_computes_what_the_trainer_fitted(positions, hidden):
    boards, _ = positions
    net = deep_net(hidden=hidden)
    assert (net.arch, net.hidden, net.hidden2) == ("deep5", *hidden)
    dense = DenseNet.from_net(net)
    expected = _cumulative(dense.outputs(encode_all("contact2", boards)), boards)
    assert np.abs(net.probabilities(boards) - expected).max() < 2e-6


def test_a_deep_net_round_trips_through_its_file_and_its_checksum(tmp_path, positions):
    boards, _ = positions
    net = deep_net()
    path = net.save(tmp_path / "deep", note="two layers")
    loaded = Net.load(path)
    assert loaded.card["hidden2"] == 12 and loaded.card["outputs"] == 5
    assert loaded.weights_digest() == net.weights_digest()
    np.testing.assert_array_equal(loaded.probabilities(boards[:30]), net.probabilities(boards[:30]))
    # the second layer is part of the checksum
    changed = loaded.copy()
    changed.W3[0, 0] += 0.5
    assert changed.weights_digest() != net.weights_digest()
    # a one-layer net's checksum is what it was before deep nets (round 9's card still matches)
    shipped = Evaluator.load("nets/e400w.npz").contact
    assert shipped.hidden2 == 0 and shipped.card["weights_sha256"] == shipped.weights_digest()


def test_a_deep_file_without_its_second_layer_is_refused(tmp_path):
    path = deep_net().save(tmp_path / "deep")
    with np.load(path) as data:
        arrays = {k: data[k] for k in ("W1", "b1", "W2", "b2")}
    np.savez(path, **arrays)
    with pytest.raises(NetError, match="needs W3 and b3"):
        Net.load(path)
    with pytest.raises(NetError, match="second hidden layer"):
        Net("gnubg5", "contact2", arrays["W1"], arrays["b1"], arrays["W2"], arrays["b2"], {}, np.ones((3, 5)))


def _roll_sets(boards, dice, every: int = 5):
    buffers = MoveBuffers()
    sets = []
    for board, (d1, d2) in zip(boards[::every], dice[::every]):
        n = generate_moves(board, int(d1), int(d2), *buffers.args())
        if n > 1:
            sets.append(buffers.boards[:n].copy())
    return sets


def test_incremental_and_split_evaluations_equal_the_full_one(positions):
    boards, dice = positions
    net = deep_net()
    scratch = make_reply_scratch()
    worst = 0.0
    for results in _roll_sets(boards, dice):
        flipped = np.ascontiguousarray(results[:, ::-1])
        full = net.probabilities(flipped)
        out = np.zeros((len(results), 5), np.float32)
        evaluate_replies(*net.arrays(), results, len(results), scratch, out)
        chained = np.zeros_like(out)
        evaluate_replies_chained(*net.arrays(), results, len(results), scratch, make_chain_scratch(), chained)
        near = probabilities_near(net, flipped)
        worst = max(worst, *(float(np.abs(a - full).max()) for a in (out, chained, near)))
    assert worst < 1e-5
    contact = np.ascontiguousarray([b for b in boards if board_has_contact(b)][:200])
    x, h = np.zeros(512, np.float32), np.zeros(1024, np.float32)
    own, key = np.zeros(1024, np.float32), np.zeros(32, np.float32)
    rows, deltas, raw = np.zeros(512, np.int64), np.zeros(512, np.float32), np.zeros(RAW_LANES, np.float32)
    split = np.zeros((len(contact), 5), np.float32)
    for i, board in enumerate(contact):
        evaluate_split(*net.arrays(), board, x, h, own, key, rows, deltas, raw, split[i])
    assert np.abs(split - net.probabilities(contact)).max() < 1e-5


def test_a_second_layer_wider_than_the_buffers_is_refused():
    wide = deep_net(hidden=(8, MAX_SECOND_HIDDEN + 1))
    with pytest.raises(ValueError, match="second hidden layer"):
        Evaluator(wide).kernel_params()


@pytest.mark.parametrize("units", [12, 7])  # in pairs, and not
def test_the_second_layer_of_four_positions_at_once_is_each_ones(units):
    from engine.eval.forward import second_layer, second_layer_quad

    rng = np.random.default_rng(units)
    W = np.asfortranarray(rng.normal(0, 0.3, (24, units)).astype(np.float32))
    b = rng.normal(0, 0.3, units).astype(np.float32)
    H = rng.uniform(0, 1, (4, 24)).astype(np.float32)
    alone = np.zeros((4, units), np.float32)
    for row in range(4):
        second_layer(W, b, H[row], alone[row])
    together = np.zeros((4, units), np.float32)
    second_layer_quad(W, b, H, together)
    np.testing.assert_allclose(together, alone, atol=1e-6)


def test_a_position_gets_the_same_bits_alone_or_beside_any_three_others():
    """``deep_probs_some`` pads a short quad with copies of its first row: a position's
    figures must not depend on its row or its neighbours (a cache is filled both ways)."""
    from engine.eval.forward import deep_probs_alone, deep_probs_quad, deep_probs_some

    W1, b1, W2, b2, W3, b3, arch, enc = deep_net(hidden=(24, 10)).arrays()
    rng = np.random.default_rng(5)
    H = rng.uniform(0, 1, (4, 24)).astype(np.float32)
    second, raws = np.zeros((4, 10), np.float32), np.zeros((4, RAW_LANES), np.float32)
    full = np.zeros((4, 5), np.float32)
    deep_probs_quad(W2, b2, W3, b3, H.copy(), second, raws, full, 0)
    for count in (1, 2, 3):
        some = np.zeros((4, 5), np.float32)
        deep_probs_some(W2, b2, W3, b3, H.copy(), count, second, raws, some)
        assert np.array_equal(some[:count], full[:count])
    shuffled = np.zeros((4, 5), np.float32)
    deep_probs_quad(W2, b2, W3, b3, np.ascontiguousarray(H[::-1]), second, raws, shuffled, 0)
    assert np.array_equal(shuffled[::-1], full)
    for row in range(4):
        alone = np.zeros(5, np.float32)
        deep_probs_alone(W2, b2, W3, b3, H[row].copy(), alone)
        assert np.array_equal(alone, full[row])
