"""Grow a trained net without changing what it computes (net2net-style).

A net gains inputs (a richer encoding of the same board) with zero weights, and
hidden units whose output weights are zero, so the grown net evaluates every
position exactly as before; training then teaches it to use what was added,
instead of starting again from random weights.
"""

from __future__ import annotations

import numpy as np

from engine.eval.encode import CONTACT2_HALF, CONTACT3_HALF, CONTACT_HALF, input_size
from engine.eval.net import Net, NetError

# each contact encoding extends the ones before it: each side's block of an earlier one
# starts each side's block of a later one (its units per side, in order)
_CONTACT_HALVES = {"contact": CONTACT_HALF, "contact2": CONTACT2_HALF, "contact3": CONTACT3_HALF}


def input_map(old: str, new: str) -> np.ndarray:
    """For each input of encoding ``old``, its index in encoding ``new``."""
    if old == new:
        return np.arange(input_size(old))
    old_half, new_half = _CONTACT_HALVES.get(old, 0), _CONTACT_HALVES.get(new, 0)
    if not 0 < old_half < new_half:
        raise NetError(f"encoding {new!r} does not extend {old!r}")
    return np.concatenate([np.arange(old_half), new_half + np.arange(old_half)])


def widened_inputs(W1: np.ndarray, old: str, new: str) -> np.ndarray:
    """A first layer's weights ``W1`` (inputs of encoding ``old``) on the inputs of
    ``new``: the added inputs with zero weights, so the layer computes the same."""
    widened = np.zeros((input_size(new), W1.shape[1]), np.float32)
    widened[input_map(old, new)] = W1
    return widened


def grow(net: Net, encoding: str | None = None, hidden: int | None = None, seed: int = 1, scale: float = 0.05) -> Net:
    """A copy of ``net`` with encoding ``encoding`` and ``hidden`` hidden units that
    gives the same outputs; new hidden units get small random input weights."""
    encoding = encoding or net.encoding
    hidden = hidden or net.hidden
    if hidden < net.hidden:
        raise NetError(f"cannot shrink {net.hidden} hidden units to {hidden}")
    if net.arch == "symmetric":
        raise NetError("growing keeps the gnubg5/tesauro3 layout; the symmetric net has constraints")
    if net.hidden2:
        raise NetError("growing keeps one hidden layer; a deep5 net is fitted by scripts/training/dense_fit.py")
    rng = np.random.default_rng(seed)
    n_in = input_size(encoding)
    W1 = np.zeros((n_in, hidden), np.float32)
    W1[:, net.hidden :] = rng.uniform(-scale, scale, (n_in, hidden - net.hidden))
    W1[:, : net.hidden] = widened_inputs(net.W1, net.encoding, encoding)
    b1 = np.zeros(hidden, np.float32)
    b1[: net.hidden] = net.b1
    W2 = np.zeros((hidden, net.W2.shape[1]), np.float32)
    W2[: net.hidden] = net.W2
    card = {k: v for k, v in net.card.items() if k not in ("weights_sha256", "strength")}
    card["grown_from"] = {"encoding": net.encoding, "hidden": net.hidden, "weights_sha256": net.weights_digest()}
    return Net(net.arch, encoding, W1, b1, W2, net.b2.copy(), card)
