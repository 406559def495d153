"""Supervised training of the nets on labelled positions (seed 002's second stage).

Labels are five probabilities per position, from a deeper look than the net's own
(n-ply search or rollouts).  The loss is the cross-entropy of each of the five
sigmoid outputs against its label, so the output-layer gradient is simply
``label - output``.  Each epoch visits the training positions in a new random
order; a held-out split decides when to stop (its loss stopped falling) and which
weights to keep (those of the best held-out epoch).

Positions are routed as the evaluator routes them: no contact -> race net,
otherwise the contact net; positions inside the bearoff database are left out (the
database answers them exactly).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from numba import njit

from engine.eval.encode import encode_into
from engine.eval.net import Net, hidden_layer, raw_outputs
from engine.eval.pubeval import board_has_contact
from nets.train.adam import AdamState, adam_epoch
from nets.train.td_kernel import apply_step, hidden_gradient

GNUBG5 = "gnubg5"


@njit(cache=True)
def _cross_entropy(raw, target):
    loss = 0.0
    for k in range(raw.shape[0]):
        p = min(max(raw[k], 1e-7), 1.0 - 1e-7)
        loss -= target[k] * math.log(p) + (1.0 - target[k]) * math.log(1.0 - p)
    return loss


@njit(cache=True)
def sgd_epoch(W1, b1, W2, b2, encoding, boards, targets, order, lr):
    """One pass of plain SGD in ``order``; returns the mean loss seen on the way."""
    n_in, H = W1.shape
    n_out = W2.shape[1]
    x = np.zeros(n_in, np.float32)
    h = np.empty(H, np.float32)
    raw = np.empty(n_out, np.float32)
    gk = np.empty(n_out, np.float32)
    gh = np.empty(H, np.float32)
    total = 0.0
    for idx in order:
        encode_into(encoding, boards[idx], x)
        hidden_layer(W1, b1, x, h)
        raw_outputs(W2, b2, h, raw)
        total += _cross_entropy(raw, targets[idx])
        for k in range(n_out):
            gk[k] = lr * (targets[idx, k] - raw[k])
        hidden_gradient(W2, h, gk, gh)
        apply_step(W1, b1, W2, b2, x, h, gk, gh)
    return total / max(len(order), 1)


@njit(cache=True)
def mean_loss(W1, b1, W2, b2, encoding, boards, targets):
    n_in, H = W1.shape
    x = np.zeros(n_in, np.float32)
    h = np.empty(H, np.float32)
    raw = np.empty(W2.shape[1], np.float32)
    total = 0.0
    for i in range(boards.shape[0]):
        encode_into(encoding, boards[i], x)
        hidden_layer(W1, b1, x, h)
        raw_outputs(W2, b2, h, raw)
        total += _cross_entropy(raw, targets[i])
    return total / max(boards.shape[0], 1)


@dataclass
class FitReport:
    positions: int
    held_out: int
    epochs: int
    best_epoch: int
    train_loss: list[float] = field(default_factory=list)
    held_out_loss: list[float] = field(default_factory=list)
    seconds: float = 0.0

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


OPTIMIZERS = ("sgd", "adam")


class FitData(NamedTuple):
    """A fit's positions, checked and split (``split_fit_data``)."""

    rng: np.random.Generator  # goes on to order the epochs
    boards: np.ndarray  # int8, contiguous
    targets: np.ndarray  # float32, contiguous
    train: np.ndarray  # the training indices
    test_boards: np.ndarray  # the held-out positions
    test_targets: np.ndarray


def split_fit_data(boards, targets, held_out: float, seed: int) -> FitData:
    """A fit's split: the first ``held_out`` of a permutation by ``seed`` held out (at
    least one position), after checking there are labels enough, one row a board."""
    if len(boards) != len(targets) or len(boards) < 10:
        raise ValueError("need at least 10 labelled positions, one label row per board")
    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(boards))
    cut = max(1, int(round(len(boards) * held_out)))
    boards = np.ascontiguousarray(boards, np.int8)
    targets = np.ascontiguousarray(targets, np.float32)
    test = perm[:cut]
    return FitData(rng, boards, targets, perm[cut:], boards[test], targets[test])


def fit(
    net: Net,
    boards: np.ndarray,
    targets: np.ndarray,
    *,
    epochs: int = 20,
    lr: float = 0.01,
    lr_decay: float = 0.9,
    held_out: float = 0.1,
    patience: int = 3,
    seed: int = 1,
    optimizer: str = "sgd",
    batch: int = 128,
    progress=None,
) -> FitReport:
    """Train ``net`` in place on (boards, targets) by per-position SGD or mini-batch
    Adam (``nets.train.adam``; ``lr`` is then Adam's step size, about 1e-3); keep the best
    held-out weights."""
    if optimizer not in OPTIMIZERS:
        raise ValueError(f"unknown optimizer {optimizer!r}; known: {', '.join(OPTIMIZERS)}")
    if net.arch != GNUBG5:
        raise ValueError(f"supervised training needs the 5-output {GNUBG5} architecture, not {net.arch}")
    rng, boards, targets, train_idx, test_boards, test_targets = split_fit_data(boards, targets, held_out, seed)
    enc = net.encoding_id
    report = FitReport(len(train_idx), len(test_boards), 0, 0)
    best = mean_loss(net.W1, net.b1, net.W2, net.b2, enc, test_boards, test_targets)
    report.held_out_loss.append(float(best))
    best_weights = net.copy()
    start = time.perf_counter()
    stale = 0
    adam = AdamState(net) if optimizer == "adam" else None
    for epoch in range(1, epochs + 1):
        order = rng.permutation(train_idx).astype(np.int64)
        if adam is not None:
            loss, adam.step = adam_epoch(
                net.W1, net.b1, net.W2, net.b2, adam.moments, adam.step, enc, boards, targets, order, lr, max(1, batch)
            )
        else:
            loss = sgd_epoch(net.W1, net.b1, net.W2, net.b2, enc, boards, targets, order, np.float32(lr))
        test = mean_loss(net.W1, net.b1, net.W2, net.b2, enc, test_boards, test_targets)
        report.train_loss.append(float(loss))
        report.held_out_loss.append(float(test))
        report.epochs = epoch
        if progress:
            progress(epoch, float(loss), float(test))
        if test < best - 1e-6:
            best, stale, report.best_epoch = test, 0, epoch
            best_weights = net.copy()
        else:
            stale += 1
            if stale >= patience:
                break
        lr *= lr_decay
    for name in ("W1", "b1", "W2", "b2"):
        getattr(net, name)[...] = getattr(best_weights, name)
    report.seconds = round(time.perf_counter() - start, 1)
    return report


def split_by_net(boards: np.ndarray, targets: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Contact and race positions apart; bearoff-database positions dropped."""
    contact: list[int] = []
    race: list[int] = []
    for i, board in enumerate(boards):
        if not board[:, 6:].any():
            continue
        (contact if board_has_contact(board) else race).append(i)
    return {"contact": (boards[contact], targets[contact]), "race": (boards[race], targets[race])}
