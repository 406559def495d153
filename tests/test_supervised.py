"""Supervised training: the gradient, the loss falling, labels by search, routing."""

from __future__ import annotations

import numpy as np
import pytest

from engine.eval.evaluator import Evaluator
from engine.eval.net import Net
from engine.players.agent import Agent
from nets.train.labels import label_positions, selfplay_positions
from nets.train.supervised import fit, mean_loss, sgd_epoch, split_by_net


@pytest.fixture(scope="module")
def agent() -> Agent:
    return Agent(
        Evaluator(
            Net.create("gnubg5", "contact", 12, seed=1, scale=0.3),
            Net.create("gnubg5", "race", 8, seed=2, scale=0.3),
            name="tiny",
        )
    )


def test_a_step_follows_the_cross_entropy_gradient():
    net = Net.create("gnubg5", "race", 6, seed=3, scale=0.3)
    board = np.zeros((1, 2, 25), np.int8)
    board[0, 0, :8] = [2, 2, 2, 2, 2, 2, 2, 1]
    board[0, 1, :8] = [3, 2, 2, 2, 2, 2, 1, 1]
    target = np.array([[0.7, 0.2, 0.01, 0.1, 0.0]], np.float32)
    enc = net.encoding_id
    before = mean_loss(net.W1, net.b1, net.W2, net.b2, enc, board, target)
    # numerical derivative of the loss along one output bias
    eps = 1e-3
    bumped = net.copy()
    bumped.b2[0] += eps
    slope = (mean_loss(bumped.W1, bumped.b1, bumped.W2, bumped.b2, enc, board, target) - before) / eps
    lr = 1e-3
    sgd_epoch(net.W1, net.b1, net.W2, net.b2, enc, board, target, np.zeros(1, np.int64), np.float32(lr))
    step = net.b2[0] - Net.create("gnubg5", "race", 6, seed=3, scale=0.3).b2[0]
    assert step == pytest.approx(-lr * slope, rel=0.02)


def test_labels_by_search_and_the_loss_falls(agent):
    boards = selfplay_positions(agent, 8, seed=5)
    assert len(boards) > 100 and (boards.reshape(len(boards), -1).sum(axis=1) > 0).all()
    one = label_positions(agent, boards[:40], 1)
    assert np.allclose(one[0], agent.probabilities(boards[0], ply=1), atol=1e-6)
    parts = split_by_net(boards, label_positions(agent, boards, 0) * 0.5 + 0.25)
    contact_boards, contact_targets = parts["contact"]
    assert len(contact_boards) > 50
    net = agent.evaluator.contact.copy()
    report = fit(net, contact_boards, contact_targets, epochs=6, lr=0.05, patience=6)
    assert report.held_out_loss[-1] < report.held_out_loss[0]
    assert report.best_epoch >= 1


def test_adams_first_step_moves_each_weight_by_the_step_size_against_its_gradient():
    """Adam's first step is lr * sign(gradient) for every weight with a gradient."""
    from nets.train.adam import AdamState, adam_epoch

    net = Net.create("gnubg5", "race", 6, seed=3, scale=0.3)
    board = np.zeros((1, 2, 25), np.int8)
    board[0, 0, :8] = [2, 2, 2, 2, 2, 2, 2, 1]
    board[0, 1, :8] = [3, 2, 2, 2, 2, 2, 1, 1]
    target = np.array([[0.7, 0.2, 0.01, 0.1, 0.0]], np.float32)
    enc = net.encoding_id
    eps = 1e-3
    bumped = net.copy()
    bumped.b2[0] += eps
    slope = (
        mean_loss(bumped.W1, bumped.b1, bumped.W2, bumped.b2, enc, board, target)
        - mean_loss(net.W1, net.b1, net.W2, net.b2, enc, board, target)
    ) / eps
    before = net.copy()
    state = AdamState(net)
    _, steps = adam_epoch(
        net.W1, net.b1, net.W2, net.b2, state.moments, state.step, enc, board, target, np.zeros(1, np.int64), 1e-3, 4
    )
    assert steps == 1
    assert net.b2[0] - before.b2[0] == pytest.approx(-1e-3 * np.sign(slope), rel=1e-3)


def test_adam_fits_too_and_unknown_optimizers_are_refused(agent):
    boards = selfplay_positions(agent, 8, seed=6)
    parts = split_by_net(boards, label_positions(agent, boards, 0) * 0.5 + 0.25)
    net = agent.evaluator.contact.copy()
    report = fit(net, *parts["contact"], epochs=4, lr=0.01, optimizer="adam", batch=16, patience=4)
    assert report.held_out_loss[report.best_epoch] < report.held_out_loss[0]
    with pytest.raises(ValueError, match="unknown optimizer"):
        fit(net, *parts["contact"], optimizer="rmsprop")


def test_the_symmetric_and_three_output_nets_are_refused():
    net = Net.create("tesauro3", "tesauro", 4)
    with pytest.raises(ValueError, match="gnubg5"):
        fit(net, np.zeros((20, 2, 25), np.int8), np.zeros((20, 5), np.float32))
