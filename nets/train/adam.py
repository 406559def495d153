"""Mini-batch Adam for the supervised fit (``nets.train.supervised.fit(optimizer="adam")``).

Plain per-position SGD levels off early on labels from a stronger engine: on 460k
positions labelled by bgsage's 1-ply it stalled at a mean win-chance error of 0.012
whatever the learning rate or hidden width, while the loss still had room to fall.
Adam's per-weight step sizes (as wildbg and the 2020s engines train) keep making
progress on the rarely active inputs; the gradient of a batch is summed over its
positions and only the inputs that are non-zero touch the first layer's sums.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from engine.eval.encode import encode_into
from engine.eval.net import hidden_layer, raw_outputs

BETA1, BETA2, EPS = 0.9, 0.999, 1e-8


class AdamState:
    """First and second moments of every weight of a net, and the step count."""

    def __init__(self, net) -> None:
        self.moments = tuple(np.zeros_like(getattr(net, name)) for name in ("W1", "b1", "W2", "b2") for _ in range(2))
        self.step = 0


@njit(cache=True)
def _update(param, grad, m, v, scale, lr, bias1, bias2):
    flat_p, flat_g, flat_m, flat_v = param.ravel(), grad.ravel(), m.ravel(), v.ravel()
    for i in range(flat_p.shape[0]):
        g = flat_g[i] * scale
        flat_m[i] = BETA1 * flat_m[i] + (1.0 - BETA1) * g
        flat_v[i] = BETA2 * flat_v[i] + (1.0 - BETA2) * g * g
        flat_p[i] -= lr * (flat_m[i] / bias1) / (math.sqrt(flat_v[i] / bias2) + EPS)
        flat_g[i] = 0.0


@njit(cache=True)
def adam_epoch(W1, b1, W2, b2, moments, step, encoding, boards, targets, order, lr, batch):
    """One pass over ``order`` in batches; returns (mean cross-entropy seen, steps done)."""
    mW1, vW1, mb1, vb1, mW2, vW2, mb2, vb2 = moments
    n_in, H = W1.shape
    n_out = W2.shape[1]
    gW1, gb1, gW2, gb2 = np.zeros_like(W1), np.zeros_like(b1), np.zeros_like(W2), np.zeros_like(b2)
    x = np.zeros(n_in, np.float32)
    h = np.empty(H, np.float32)
    raw = np.empty(n_out, np.float32)
    gk = np.empty(n_out, np.float32)
    gh = np.empty(H, np.float32)
    total = 0.0
    for first in range(0, order.shape[0], batch):
        last = min(first + batch, order.shape[0])
        for idx in order[first:last]:
            encode_into(encoding, boards[idx], x)
            hidden_layer(W1, b1, x, h)
            raw_outputs(W2, b2, h, raw)
            for k in range(n_out):
                p = min(max(raw[k], 1e-7), 1.0 - 1e-7)
                t = targets[idx, k]
                total -= t * math.log(p) + (1.0 - t) * math.log(1.0 - p)
                gk[k] = raw[k] - t  # d(cross-entropy)/d(pre-sigmoid output)
            for j in range(H):
                acc = 0.0
                for k in range(n_out):
                    acc += gk[k] * W2[j, k]
                    gW2[j, k] += gk[k] * h[j]
                gh[j] = acc * h[j] * (1.0 - h[j])
                gb1[j] += gh[j]
            for k in range(n_out):
                gb2[k] += gk[k]
            for i in range(n_in):
                xi = x[i]
                if xi != 0.0:
                    for j in range(H):
                        gW1[i, j] += xi * gh[j]
        step += 1
        scale = 1.0 / (last - first)
        bias1 = 1.0 - BETA1**step
        bias2 = 1.0 - BETA2**step
        _update(W1, gW1, mW1, vW1, scale, lr, bias1, bias2)
        _update(b1, gb1, mb1, vb1, scale, lr, bias1, bias2)
        _update(W2, gW2, mW2, vW2, scale, lr, bias1, bias2)
        _update(b2, gb2, mb2, vb2, scale, lr, bias1, bias2)
    return total / max(order.shape[0], 1), step
