"""nets.train.dense: mini-batch AdamW for nets of one or more hidden layers."""

from __future__ import annotations

import numpy as np
import pytest

from nets.train.dense import DenseNet, DenseSettings, _gradients, cross_entropy, encode_all, train_dense
from tests.strategies import random_board


def _boards(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.stack([random_board(rng, 10, 15, allow_bar=False) for _ in range(n)])


def test_the_gradients_of_a_two_layer_net_match_finite_differences():
    rng = np.random.default_rng(3)
    net = DenseNet.create("contact2", (6, 4), seed=3)
    net.weights = [w.astype(np.float64) for w in net.weights]
    net.biases = [b.astype(np.float64) for b in net.biases]
    x = encode_all("contact2", _boards(5, 3)).astype(np.float64)
    t = rng.uniform(0.05, 0.95, (5, 5))
    grads, _ = _gradients(net, x, t)
    params = net.weights + net.biases
    for k, (param, grad) in enumerate(zip(params, grads)):
        for index in [(0,) * param.ndim, tuple(s - 1 for s in param.shape)]:
            if param.ndim == 2 and k == 0:
                index = (int(np.flatnonzero(x[0])[0]), 1)  # an input that is not zero
            saved = param[index]
            param[index] = saved + 1e-6
            up = cross_entropy(net.activations(x)[-1], t)
            param[index] = saved - 1e-6
            down = cross_entropy(net.activations(x)[-1], t)
            param[index] = saved
            assert grad[index] == pytest.approx((up - down) / 2e-6, rel=1e-4, abs=1e-9)


def test_a_one_layer_dense_net_is_the_engine_net_it_converts_to(tmp_path):
    net = DenseNet.create("contact2", (16,), seed=5)
    boards = _boards(20, 5)
    engine_net = net.as_net()
    ours = net.outputs(encode_all("contact2", boards))
    from scripts.training.fit_or_labels import _raw_net_probabilities

    np.testing.assert_allclose(_raw_net_probabilities(engine_net, boards), ours, atol=2e-6)
    back = DenseNet.from_net(engine_net)
    np.testing.assert_allclose(back.outputs(encode_all("contact2", boards)), ours, atol=1e-7)
    with pytest.raises(ValueError, match="one or two hidden layers"):
        DenseNet.create("contact2", (8, 4, 2), seed=1).as_net()


def test_saved_and_loaded_nets_compute_the_same(tmp_path):
    net = DenseNet.create("contact2", (8, 4), seed=7)
    net.save(tmp_path / "n.dense.npz", {"name": "n"})
    again = DenseNet.load(tmp_path / "n.dense.npz")
    x = encode_all("contact2", _boards(4, 7))
    assert again.hidden == (8, 4) and again.encoding == "contact2"
    np.testing.assert_array_equal(again.outputs(x), net.outputs(x))


def test_a_net_grown_onto_contact3_computes_what_it_did_on_contact2():
    net = DenseNet.create("contact2", (8, 4), seed=9)
    grown = net.with_encoding("contact3")
    boards = _boards(30, 9)
    assert grown.encoding == "contact3" and grown.hidden == (8, 4)
    np.testing.assert_allclose(
        grown.outputs(encode_all("contact3", boards)), net.outputs(encode_all("contact2", boards)), atol=1e-6
    )
    with pytest.raises(Exception, match="does not extend"):
        grown.with_encoding("contact2")


def test_training_learns_a_function_of_the_board_and_keeps_the_best_held_out_weights():
    boards = _boards(600, 11)
    x = encode_all("contact2", boards)
    # labels that depend on the inputs: a fixed random net's outputs
    teacher = DenseNet.create("contact2", (8,), seed=99)
    t = teacher.outputs(x)
    net = DenseNet.create("contact2", (12, 6), seed=1)
    before = cross_entropy(net.outputs(x[500:]), t[500:])
    report = train_dense(net, x[:500], t[:500], x[500:], t[500:], DenseSettings(epochs=40, lr=3e-3, batch=32))
    after = cross_entropy(net.outputs(x[500:]), t[500:])
    floor = cross_entropy(t[500:], t[500:])
    assert after == pytest.approx(min(report.held_out_loss))  # the best epoch's weights are kept
    assert after - floor < 0.5 * (before - floor)
    assert report.held_out_loss[0] == pytest.approx(before)


def test_a_fit_killed_between_epochs_goes_on_to_the_same_weights(tmp_path):
    x = encode_all("contact2", _boards(300, 17))
    t = DenseNet.create("contact2", (8,), seed=97).outputs(x)
    settings = DenseSettings(epochs=6, lr=1e-2, batch=40, patience=1, cuts=1)
    whole = DenseNet.create("contact2", (10, 4), seed=5)
    expected = train_dense(whole, x[:240], t[:240], x[240:], t[240:], settings)
    checkpoint = tmp_path / "fit.npz"
    broken = DenseNet.create("contact2", (10, 4), seed=5)
    train_dense(
        broken,
        x[:240],
        t[:240],
        x[240:],
        t[240:],
        DenseSettings(**(settings.as_dict() | {"epochs": 2})),
        checkpoint=checkpoint,
    )
    again = DenseNet.create("contact2", (10, 4), seed=5)  # a new process: fresh weights, the checkpoint on disk
    report = train_dense(again, x[:240], t[:240], x[240:], t[240:], settings, checkpoint=checkpoint)
    assert report.held_out_loss == expected.held_out_loss and report.lr == expected.lr
    for a, b in zip(again.weights + again.biases, whole.weights + whole.biases):
        np.testing.assert_array_equal(a, b)
    assert not list(tmp_path.glob("*.tmp*"))
    with pytest.raises(ValueError, match="another fit"):
        train_dense(
            again,
            x[:240],
            t[:240],
            x[240:],
            t[240:],
            DenseSettings(**(settings.as_dict() | {"lr": 0.5})),
            checkpoint=checkpoint,
        )


def test_weight_decay_shrinks_the_weights():
    x = encode_all("contact2", _boards(200, 13))
    t = DenseNet.create("contact2", (8,), seed=98).outputs(x)
    plain, decayed = DenseNet.create("contact2", (8,), seed=2), DenseNet.create("contact2", (8,), seed=2)
    settings = DenseSettings(epochs=5, lr=1e-2, batch=50)
    train_dense(plain, x[:150], t[:150], x[150:], t[150:], settings)
    train_dense(
        decayed, x[:150], t[:150], x[150:], t[150:], DenseSettings(**(settings.as_dict() | {"weight_decay": 5.0}))
    )
    assert np.abs(decayed.weights[0]).sum() < 0.9 * np.abs(plain.weights[0]).sum()


def test_a_stalled_held_out_loss_cuts_the_step_then_stops():
    x = encode_all("contact2", _boards(200, 13))
    net = DenseNet.create("contact2", (8,), seed=2)
    t = net.outputs(x)  # the net already is its labels: no epoch can improve the held-out loss
    report = train_dense(net, x[:150], t[:150], x[150:], t[150:], DenseSettings(epochs=12, lr=1e-2, patience=1, cuts=2))
    assert report.lr == pytest.approx([1e-2, 3e-3, 9e-4]) and report.epochs == 3 and report.best_epoch == 0
