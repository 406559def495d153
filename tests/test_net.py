"""The numba forward pass against plain numpy, the symmetric design's exact flip
symmetry, net files and their model cards, and equity."""

from __future__ import annotations

import json

import numpy as np
import pytest
from board_builder import make_board
from strategies import random_board

from engine.eval.encode import encode
from engine.eval.evaluator import Evaluator
from engine.eval.net import (
    Net,
    NetError,
    equity_of,
    evaluate_boards,
    hidden_layer,
    probs_from_raw,
    raw_outputs,
    swap_permutation,
    symmetric_gammon_loss,
)
from engine.eval.sanity import keep_possible
from engine.rollout.selfplay_sample import sample_positions

ARCH_ENCODINGS = [
    ("tesauro3", "tesauro"),
    ("gnubg5", "contact"),
    ("symmetric", "tesauro-turn"),
    ("symmetric", "contact"),
]


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def numpy_probabilities(net: Net, board: np.ndarray) -> np.ndarray:
    """The five cumulative probabilities, written out in float64 numpy."""
    W1, b1, W2, b2 = (a.astype(np.float64) for a in (net.W1, net.b1, net.W2, net.b2))
    h = sigmoid(b1 + encode(net.encoding, board).astype(np.float64) @ W1)
    raw = sigmoid(b2 + h @ W2)
    if net.arch == "tesauro3":
        p = [raw[0], raw[1], 0.0, raw[2], 0.0]
    elif net.arch == "gnubg5":
        p = list(raw)
    else:
        z1, z2 = raw
        z3 = sigmoid(b2[1] + (1.0 - h) @ W2[:, 1])
        p = [z1, z1 * z2, 0.0, (1.0 - z1) * z3, 0.0]
    # the cumulative order: gammons within wins (losses), backgammons within gammons
    p[1] = min(p[1], p[0])
    p[2] = min(p[2], p[1])
    p[3] = min(p[3], 1.0 - p[0])
    p[4] = min(p[4], p[3])
    # then within what the board allows, as every evaluation ends (tests/test_sanity.py)
    kept = np.array(p, np.float32)
    keep_possible(board, kept)
    return kept.astype(np.float64)


def sample_boards() -> np.ndarray:
    samples = [s.board for s in sample_positions(150, seed=8)]
    rng = np.random.default_rng(3)
    return np.array(samples + [random_board(rng, min_checkers=5) for _ in range(50)])


BOARDS = sample_boards()


def random_net(arch: str, encoding: str, seed: int, hidden: int = 12) -> Net:
    """Weights large enough that the outputs spread, and output biases that centre
    every output near 1/2 on the test boards: gammons then exceed wins (losses) in
    some positions and not in others, so the cumulative clipping matters."""
    net = Net.create(arch, encoding, hidden, seed=seed, scale=0.6)
    rng = np.random.default_rng(seed + 100)
    if arch != "symmetric":  # the symmetric design has no hidden biases
        net.b1[:] = rng.normal(0, 0.5, net.b1.shape)
    W1, b1, W2 = (a.astype(np.float64) for a in (net.W1, net.b1, net.W2))
    hidden_units = sigmoid(b1 + np.array([encode(encoding, b) for b in BOARDS]) @ W1)
    net.b2[:] = -(hidden_units @ W2).mean(axis=0)
    if arch == "symmetric":
        net.b2[0] = 0.0  # the win node has no bias
    return net


@pytest.mark.parametrize("arch, encoding", ARCH_ENCODINGS + [("tesauro3", "tesauro-turn"), ("gnubg5", "race")])
def test_forward_pass_equals_numpy(arch, encoding):
    net = random_net(arch, encoding, seed=5)
    probs = net.probabilities(BOARDS)
    expected = np.array([numpy_probabilities(net, b) for b in BOARDS])
    np.testing.assert_allclose(probs, expected, atol=1e-5)
    out = np.zeros((len(BOARDS), 5), np.float32)
    evaluate_boards(*net.arrays(), BOARDS, len(BOARDS), out)
    np.testing.assert_array_equal(out, probs)
    np.testing.assert_allclose(net.probabilities(BOARDS[7]), expected[7], atol=1e-5)


def test_clipping_is_exercised_by_the_forward_test():
    """Without clipped cases the forward test would not check the clipping."""
    net = random_net("gnubg5", "contact", seed=5)
    W1, b1, W2, b2 = (a.astype(np.float64) for a in (net.W1, net.b1, net.W2, net.b2))
    raw = np.array([sigmoid(b2 + sigmoid(b1 + encode("contact", b) @ W1) @ W2) for b in BOARDS])
    for clipped in (
        raw[:, 1] > raw[:, 0],
        raw[:, 3] > 1 - raw[:, 0],
        raw[:, 2] > np.minimum(raw[:, 1], raw[:, 0]),
        raw[:, 4] > np.minimum(raw[:, 3], 1 - raw[:, 0]),
    ):
        assert 10 < clipped.sum() < len(BOARDS) - 10


def test_race_positions_go_to_the_race_net():
    contact, race = random_net("tesauro3", "tesauro", 1), random_net("gnubg5", "race", 2)
    evaluator = Evaluator(contact, race)
    race_board = make_board({6: 5, 5: 5, 4: 5}, {6: 5, 3: 5, 1: 5})
    contact_board = make_board({24: 2, 6: 13}, {6: 15})
    np.testing.assert_allclose(evaluator.probabilities(race_board), race.probabilities(race_board), atol=1e-7)
    np.testing.assert_allclose(evaluator.probabilities(contact_board), contact.probabilities(contact_board), atol=1e-7)


# ---- the symmetric architecture --------------------------------------------------


def raw_forward(net: Net, x: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
    """(raw outputs, z3 = P(gammon loss | loss), five probabilities) of an input vector."""
    h = np.empty(net.hidden, np.float32)
    raw = np.empty(2, np.float32)
    hidden_layer(net.W1, net.b1, np.ascontiguousarray(x, dtype=np.float32), h)
    raw_outputs(net.W2, net.b2, h, raw)
    probs = np.empty(5, np.float32)
    probs_from_raw(net.arch_id, raw, net.W2, net.b2, h, probs)
    return raw, symmetric_gammon_loss(net.W2, net.b2, h), probs


@pytest.mark.parametrize("encoding", ["tesauro-turn", "contact"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_symmetric_net_is_exactly_flip_symmetric(encoding, seed):
    net = random_net("symmetric", encoding, seed)
    rng = np.random.default_rng(seed)
    net.b2[1] = rng.normal(0, 1.0)  # the gammon node keeps its bias (seed note 000)
    perm = swap_permutation(encoding)
    assert np.array_equal(net.W1[perm], -net.W1) and not net.b1.any() and net.b2[0] == 0
    assert abs(float(net.W2[:, 0].sum())) < 1e-6
    spread = []
    for board in BOARDS[:60]:
        x = encode(encoding, board)
        (win, gammon_win), gammon_loss, probs = raw_forward(net, x)
        (win_s, gammon_win_s), gammon_loss_s, probs_s = raw_forward(net, x[perm])
        assert win_s == pytest.approx(1.0 - win, abs=1e-6)
        assert gammon_win_s == pytest.approx(gammon_loss, abs=1e-6)
        assert gammon_loss_s == pytest.approx(gammon_win, abs=1e-6)
        np.testing.assert_allclose(probs_s[[0, 1, 3]], [1 - probs[0], probs[3], probs[1]], atol=1e-6)
        spread.append(win)
    assert np.ptp(spread) > 0.05  # the outputs really depend on the position


def test_project_symmetric_of_a_created_net_holds_the_constraints():
    net = Net.create("symmetric", "contact", 10, seed=3)
    perm = swap_permutation("contact")
    assert np.array_equal(net.W1[perm], -net.W1) and net.W1.any()
    assert not net.b1.any() and net.b2[0] == 0.0 and abs(float(net.W2[:, 0].sum())) < 1e-6


def test_symmetric_needs_a_side_symmetric_encoding():
    with pytest.raises(NetError, match="side-symmetric encoding"):
        Net.create("symmetric", "race", 8)


# ---- files and model cards -------------------------------------------------------


@pytest.mark.parametrize("arch, encoding", ARCH_ENCODINGS)
def test_save_load_round_trip(tmp_path, arch, encoding):
    net = random_net(arch, encoding, seed=9)
    path = net.save(tmp_path / "sub" / "net", note="round trip")
    assert path == tmp_path / "sub" / "net.npz"
    loaded = Net.load(path)
    for a, b in zip(net.arrays()[:4], loaded.arrays()[:4]):
        np.testing.assert_array_equal(a, b)
    assert (loaded.arch, loaded.encoding, loaded.hidden) == (arch, encoding, 12)
    assert loaded.card["note"] == "round trip" and loaded.card["weights_sha256"] == net.weights_digest()
    np.testing.assert_array_equal(loaded.probabilities(BOARDS[:20]), net.probabilities(BOARDS[:20]))
    assert not list(tmp_path.glob("sub/*.tmp*"))  # atomic writes leave no temporaries


def saved_net(tmp_path) -> tuple:
    path = random_net("tesauro3", "tesauro", seed=4, hidden=8).save(tmp_path / "net")
    card_path = path.with_suffix(".json")
    return path, card_path, json.loads(card_path.read_text())


def edit_card(card_path, card, **changes):
    card_path.write_text(json.dumps({**card, **changes}))


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"hidden": 7}, r"weights \(196, 8, 3\) do not match the card .* \(196, 7, 3\)"),
        ({"arch": "gnubg5"}, r"a gnubg5 net on the .tesauro. encoding has .* = \(196, 8, 5\)"),
        ({"arch": "symmetric"}, r"do not match the card"),
        ({"arch": "resnet"}, r"unknown architecture 'resnet'"),
        ({"encoding": "contact"}, r"do not match the card"),
        ({"encoding": "gnubg"}, r"unknown encoding 'gnubg'"),
    ],
)
def test_card_that_does_not_match_the_weights(tmp_path, changes, message):
    path, card_path, card = saved_net(tmp_path)
    edit_card(card_path, card, **changes)
    with pytest.raises(NetError, match=message):
        Net.load(path)


def test_card_missing_a_field(tmp_path):
    path, card_path, card = saved_net(tmp_path)
    del card["hidden"]
    card_path.write_text(json.dumps(card))
    with pytest.raises(NetError, match="lacks 'hidden'"):
        Net.load(path)


def test_tampered_weights_fail_the_checksum(tmp_path):
    path, _, _ = saved_net(tmp_path)
    with np.load(path) as data:
        arrays = dict(data)
    arrays["W2"][3, 1] += 1e-3
    np.savez(path, **arrays)
    with pytest.raises(NetError, match="do not match the checksum"):
        Net.load(path)


def test_missing_or_corrupt_files(tmp_path):
    path, card_path, _ = saved_net(tmp_path)
    card_path.unlink()
    with pytest.raises(NetError, match="has no model card"):
        Net.load(path)
    with pytest.raises(NetError, match="no weights file"):
        Net.load(tmp_path / "absent.npz")
    path, _, _ = saved_net(tmp_path)
    path.write_bytes(b"not a zip file")
    with pytest.raises(NetError, match="cannot read net"):
        Net.load(path)


def test_unknown_architecture_to_create():
    with pytest.raises(NetError, match="unknown architecture 'mlp'"):
        Net.create("mlp", "tesauro", 8)


# ---- equity ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "probs, equity",
    [
        ([1, 0, 0, 0, 0], 1.0),
        ([0, 0, 0, 0, 0], -1.0),
        ([1, 1, 0, 0, 0], 2.0),
        ([1, 1, 1, 0, 0], 3.0),
        ([0, 0, 0, 1, 0], -2.0),
        ([0, 0, 0, 1, 1], -3.0),
        ([0.5, 0, 0, 0, 0], 0.0),
        ([0.5, 0.1, 0.02, 0.08, 0.01], 0.03),
        ([0.6, 0.2, 0.0, 0.2, 0.0], 0.2),
    ],
)
def test_equity_of_known_probabilities(probs, equity):
    assert equity_of(np.array(probs, np.float32)) == pytest.approx(equity, abs=1e-6)


def test_the_vectorised_logistic_is_within_float32_rounding_of_the_exact_one():
    """hidden_layer with one input unit per x: every hidden unit is sigmoid(x)."""
    x = np.linspace(-40.0, 40.0, 20001).astype(np.float32)
    h = np.empty_like(x)
    hidden_layer(np.ones((1, len(x)), np.float32), x, np.zeros(1, np.float32), h)
    exact = 1.0 / (1.0 + np.exp(-x.astype(np.float64)))
    assert np.abs(h - exact).max() < 3e-7


def test_net_keeps_its_output_weights_column_major_through_save_load_and_copy(tmp_path):
    net = Net.create("gnubg5", "contact2", 12, seed=4)
    assert net.W2.flags.f_contiguous and net.copy().W2.flags.f_contiguous
    net.save(tmp_path / "n.npz", name="n")
    loaded = Net.load(tmp_path / "n.npz")
    assert loaded.W2.flags.f_contiguous and np.array_equal(loaded.W2, net.W2)
    assert loaded.weights_digest() == net.weights_digest()
