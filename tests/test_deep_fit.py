"""Fine-tuning a net of two hidden layers (``nets.train.deep_fit``), and a retrain whose
incumbent is one."""

from __future__ import annotations

import numpy as np
import pytest

from engine.eval.evaluator import Evaluator
from engine.eval.net import Net
from engine.players.agent import Agent
from fibsbot.bench.speed import real_game_positions
from nets.store import write_nets
from nets.train.deep_fit import fit_deep
from nets.train.dense import DenseNet, encode_all
from nets.train.retrain import RetrainConfig, RetrainReport, TrainingSet, _train_candidate


def _deep(seed: int) -> Net:
    return DenseNet.create("contact2", (24, 12), seed=seed).as_net()


@pytest.fixture(scope="module")
def labelled():
    """Contact positions of real games labelled by a teacher net of the same shape."""
    boards, _ = real_game_positions(games=12, seed=31)
    teacher = _deep(seed=9)
    return boards, teacher.probabilities(boards), teacher


def _raw(net: Net, boards: np.ndarray) -> np.ndarray:
    """The net's own outputs, before ``engine.eval.sanity`` keeps them within what each
    board allows: what a fit moves (a random teacher's bounded figures are not a function
    of its weights that a student of its shape can reach)."""
    return DenseNet.from_net(net).outputs(encode_all(net.encoding, boards))


def test_a_deep_net_moves_towards_its_labels_and_keeps_its_shape(labelled):
    boards, _, teacher = labelled
    labels = _raw(teacher, boards)
    student = _deep(seed=2)
    before = np.abs(_raw(student, boards) - labels).mean()
    report = fit_deep(student, boards, labels, epochs=6, lr=3e-3, seed=1)
    after = np.abs(_raw(student, boards) - labels).mean()
    assert (student.arch, student.hidden, student.hidden2) == ("deep5", 24, 12)
    assert report.best_epoch > 0 and min(report.held_out_loss) < report.held_out_loss[0]
    assert report.positions + report.held_out == len(boards)
    assert after < 0.8 * before


def test_the_best_held_out_weights_are_kept_and_a_one_layer_net_is_refused(labelled):
    boards, labels, _ = labelled
    student = _deep(seed=2)
    original = student.copy()
    report = fit_deep(student, boards, labels, epochs=1, lr=5.0, seed=1)  # a step far too big
    assert report.best_epoch == 0 and report.held_out_loss[1] > report.held_out_loss[0]
    for name in ("W1", "b1", "W2", "b2", "W3", "b3"):  # it made things worse: the weights it started from
        np.testing.assert_array_equal(getattr(student, name), getattr(original, name))
    with pytest.raises(ValueError, match="two hidden layers"):
        fit_deep(Net.create("gnubg5", "contact2", 8, seed=1), boards, labels)


def test_a_retrain_of_a_deep_incumbent_fits_a_deep_candidate(tmp_path, labelled):
    boards, labels, _ = labelled
    shipped = Evaluator.load("nets/default.npz")
    incumbent = Agent(Evaluator(_deep(seed=2), shipped.race, "deep", shipped.prune, root=shipped.contact))
    training = TrainingSet(tmp_path / "set.npz")
    training.add(boards, labels)
    # a root net and a pruning net allowed any fall in recall are kept (tests/test_retrain_deep.py: the rule)
    config = RetrainConfig(tmp_path, epochs=2, mix_ratio=0.0, deep_lr=3e-3, companion_max_drop=1.0)
    report = RetrainReport()
    candidate = _train_candidate(incumbent, training, config, report, progress=lambda _: None)
    assert candidate.contact.arch == "deep5" and report.fit["contact"]["epochs"] >= 1
    assert not np.array_equal(candidate.contact.W3, incumbent.evaluator.contact.W3)
    assert candidate.prune is shipped.prune and candidate.root is shipped.contact
    assert report.companions["root"]["action"] == report.companions["prune"]["action"] == "kept"
    # promoted or kept, it is written with its root net, which a 0-ply root needs
    write_nets(candidate, tmp_path / "kept", version="v-test")
    assert Evaluator.load(tmp_path / "kept" / "net.npz").root.weights_digest() == shipped.contact.weights_digest()
