"""Fine-tuning a net of two hidden layers (``deep5``) on labelled positions, as
``nets.train.supervised.fit`` fine-tunes a one-layer net: what ``fibsbot retrain`` runs
when the incumbent is a deep net.

The per-position SGD of ``supervised`` touches only a position's non-zero inputs of a
single hidden layer; a second layer needs the mini-batch AdamW of ``nets.train.dense``.
Positions are encoded a batch at a time, so memory stays that of one batch whatever the
size of the set. The split (the first ``held_out`` of a permutation by ``seed``), the
loss, the patience and the report are ``supervised.fit``'s, so a retrain's card reads
the same for either kind of net.
"""

from __future__ import annotations

import time

import numpy as np

from engine.eval.net import Net
from nets.train.dense import DenseNet, _AdamW, _gradients, cross_entropy, encode_all
from nets.train.supervised import FitReport, split_fit_data

# AdamW's step size for a fine-tune from trained weights: a tenth of the rate a fit from
# random weights starts at (1e-3), as the SGD retrain's 0.005 is a small step of its own
FINE_TUNE_LR = 1e-4
BATCH = 256


def held_out_loss(net: DenseNet, boards: np.ndarray, targets: np.ndarray, batch: int = 8192) -> float:
    """The fit's loss over (boards, targets), encoded ``batch`` positions at a time."""
    total = 0.0
    for i in range(0, len(boards), batch):
        out = net.activations(encode_all(net.encoding, boards[i : i + batch]))[-1]
        total += cross_entropy(out, targets[i : i + batch]) * len(out)
    return total / max(len(boards), 1)


def fit_deep(
    net: Net,
    boards: np.ndarray,
    targets: np.ndarray,
    *,
    epochs: int = 12,
    lr: float = FINE_TUNE_LR,
    lr_decay: float = 0.9,
    held_out: float = 0.1,
    patience: int = 3,
    seed: int = 1,
    batch: int = BATCH,
    progress=None,
) -> FitReport:
    """Train the ``deep5`` ``net`` in place from its weights; keep the best held-out ones."""
    if net.arch != "deep5":
        raise ValueError(f"fit_deep trains nets of two hidden layers (deep5), not {net.arch}")
    rng, boards, targets, train_idx, test_boards, test_targets = split_fit_data(boards, targets, held_out, seed)
    dense = DenseNet.from_net(net)
    report = FitReport(len(train_idx), len(test_boards), 0, 0)
    best = held_out_loss(dense, test_boards, test_targets)
    report.held_out_loss.append(best)
    best_net = dense.copy()
    adam = _AdamW(dense)
    start = time.perf_counter()
    stale = 0
    for epoch in range(1, epochs + 1):
        order = rng.permutation(train_idx)
        total = 0.0
        for i in range(0, len(order), batch):
            idx = np.sort(order[i : i + batch])
            grads, loss = _gradients(dense, encode_all(dense.encoding, boards[idx]), targets[idx])
            adam.apply(dense, grads, lr, 0.0)
            total += loss * len(idx)
        test = held_out_loss(dense, test_boards, test_targets)
        report.train_loss.append(total / max(len(order), 1))
        report.held_out_loss.append(test)
        report.epochs = epoch
        if progress:
            progress(epoch, report.train_loss[-1], test)
        if test < best - 1e-6:
            best, stale, report.best_epoch, best_net = test, 0, epoch, dense.copy()
        else:
            stale += 1
            if stale >= patience:
                break
        lr *= lr_decay
    (W1, W2, W3), (b1, b2, b3) = best_net.weights, best_net.biases
    for name, value in (("W1", W1), ("b1", b1), ("W2", W2), ("b2", b2), ("W3", W3), ("b3", b3)):
        getattr(net, name)[...] = value
    report.seconds = round(time.perf_counter() - start, 1)
    return report
