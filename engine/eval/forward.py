"""The nets' forward pass, as numba kernels: a board's inputs through the sigmoid
hidden layer (or two, ``deep5``) to gnubg's five cumulative probabilities, and their
cubeless equity.

The kernels take a net as its arrays (``engine.eval.net.NetArrays``: W1, b1, W2, b2,
W3, b3, the architecture's id, the encoding's id) rather than as a ``Net``, so that
numba compiles them once for every net; ``engine.eval.net`` holds the weights, their
model card and the files, and re-exports these names.  Only the first layer depends
on the board's inputs, so the incremental evaluations (``engine.eval.incremental``)
serve every architecture: what follows the first hidden layer is ``net_probs``.
``net_probs`` sees no board, so each kernel that evaluates a board ends with
``engine.eval.sanity.keep_possible`` of it (here ``evaluate_one``).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.polynomial import polynomial as P

from engine.eval.encode import encode_into
from engine.eval.limits import OUTPUT_LANES, RAW_LANES
from engine.eval.sanity import keep_possible

# the architectures of ``engine.eval.net``: their ids in the kernels and their raw outputs
ARCHS = {"tesauro3": 0, "gnubg5": 1, "symmetric": 2, "deep5": 3}
RAW_OUTPUTS = {"tesauro3": 3, "gnubg5": 5, "symmetric": 2, "deep5": 5}
TESAURO3, GNUBG5, SYMMETRIC, DEEP5 = 0, 1, 2, 3


def _tanh_convergent(depth: int) -> tuple[np.ndarray, np.ndarray]:
    """Coefficients (in u = t*t, lowest first) of P and Q with tanh(t) ~ t P(u) / Q(u):
    Lambert's continued fraction t / (1 + u / (3 + u / (5 + ...))) cut after ``depth``
    terms.  Every coefficient is positive, so float32 evaluation does not cancel."""
    num_prev, num = np.array([0.0]), np.array([1.0])  # convergents of 1 + u/(3 + u/(5 + ...))
    den_prev, den = np.array([1.0]), np.array([1.0])
    for k in range(1, depth + 1):
        num, num_prev = P.polyadd((2 * k + 1) * num, P.polymul([0.0, 1.0], num_prev)), num
        den, den_prev = P.polyadd((2 * k + 1) * den, P.polymul([0.0, 1.0], den_prev)), den
    return num / den[0], den / den[0]


# The logistic function as 1/2 + tanh(x/2)/2 with a rational tanh on |x/2| <= 8 (the
# 11-term convergent: error below 1e-7 there, the cut-off below 1.2e-7): only
# multiplies, adds and one divide, which the compiler vectorises over a hidden layer
# (exp() and a table lookup it does not); kernels that apply it to a layer compile with
# error_model="numpy", since Python's zero-division check would stop the vectorising.
_TANH_P, _TANH_Q = _tanh_convergent(11)
p0, p1, p2, p3, p4, p5 = (np.float32(c) for c in _TANH_P)
q0, q1, q2, q3, q4, q5, q6 = (np.float32(c) for c in _TANH_Q)
_HALF = np.float32(0.5)
_CUT = np.float32(8.0)


@njit(cache=True, inline="always", fastmath=True)
def sigmoid(x):
    t = x * _HALF
    t = t if t < _CUT else _CUT
    t = t if t > -_CUT else -_CUT
    u = t * t
    num = ((((p5 * u + p4) * u + p3) * u + p2) * u + p1) * u + p0
    den = (((((q6 * u + q5) * u + q4) * u + q3) * u + q2) * u + q1) * u + q0
    return _HALF + _HALF * (t * num / den)


@njit(cache=True, fastmath=True, error_model="numpy")
def hidden_layer(W1, b1, x, h):
    """h = sigmoid(b1 + x @ W1), skipping zero inputs (most board units are zero)."""
    first_layer(W1, b1, x, h)
    for j in range(h.shape[0]):
        h[j] = sigmoid(h[j])


@njit(cache=True, fastmath=True, inline="always")
def first_layer(W1, b1, x, h):
    """h = b1 + x @ W1 over the nonzero inputs, four rows a pass over h (the sums are
    loaded and stored a quarter as often as row by row)."""
    for j in range(h.shape[0]):
        h[j] = b1[j]
    pending = 0
    i0, i1, i2 = 0, 0, 0
    v0, v1, v2 = np.float32(0.0), np.float32(0.0), np.float32(0.0)
    for i in range(x.shape[0]):
        xi = x[i]
        if xi == 0.0:
            continue
        if pending == 0:
            i0, v0 = i, xi
        elif pending == 1:
            i1, v1 = i, xi
        elif pending == 2:
            i2, v2 = i, xi
        else:
            add_rows4(h, W1[i0], W1[i1], W1[i2], W1[i], v0, v1, v2, xi)
            pending = 0
            continue
        pending += 1
    if pending >= 1:
        add_row(h, W1[i0], v0)
    if pending >= 2:
        add_row(h, W1[i1], v1)
    if pending >= 3:
        add_row(h, W1[i2], v2)


@njit(cache=True, fastmath=True, inline="always")
def add_rows4(h, w0, w1, w2, w3, v0, v1, v2, v3):
    """h += v0 w0 + v1 w1 + v2 w2 + v3 w3 in one pass over h."""
    for j in range(h.shape[0]):
        h[j] += v0 * w0[j] + v1 * w1[j] + v2 * w2[j] + v3 * w3[j]


@njit(cache=True, fastmath=True, inline="always")
def add_row(h, row, v):
    for j in range(h.shape[0]):
        h[j] += v * row[j]


@njit(cache=True, fastmath=True)
def raw_outputs(W2, b2, h, out):
    """The output sums through their sigmoids.  ``Net`` keeps W2 column-major, so each
    output is one contiguous dot product that the compiler vectorises (row-major,
    the five sums stride through memory and run about 6x slower)."""
    for k in range(W2.shape[1]):
        acc = np.float32(0.0)
        for j in range(h.shape[0]):
            acc += h[j] * W2[j, k]
        out[k] = sigmoid(acc + b2[k])


@njit(cache=True, fastmath=True, inline="always")
def gnubg5_probs(W2, b2, h, raw, probs):
    """``raw_outputs`` and ``probs_from_raw`` of a five-output gnubg net in one go:
    the five sums in one pass over h and their sigmoids as one eight-lane vector
    (``raw`` holds at least eight); the same figures, a sixth less of a small net's
    evaluation."""
    s0 = s1 = s2 = s3 = s4 = np.float32(0.0)
    for j in range(h.shape[0]):
        x = h[j]
        s0 += x * W2[j, 0]
        s1 += x * W2[j, 1]
        s2 += x * W2[j, 2]
        s3 += x * W2[j, 3]
        s4 += x * W2[j, 4]
    raw[0] = s0 + b2[0]
    raw[1] = s1 + b2[1]
    raw[2] = s2 + b2[2]
    raw[3] = s3 + b2[3]
    raw[4] = s4 + b2[4]
    raw[5] = raw[6] = raw[7] = 0.0
    for k in range(8):
        raw[k] = sigmoid(raw[k])
    win = raw[0]
    gammon = min(raw[1], win)
    loss_gammon = min(raw[3], 1.0 - win)
    probs[0] = win
    probs[1] = gammon
    probs[2] = min(raw[2], gammon)
    probs[3] = loss_gammon
    probs[4] = min(raw[4], loss_gammon)


@njit(cache=True, fastmath=True, error_model="numpy")
def second_layer(W2, b2, h, out):
    """out = sigmoid(b2 + h @ W2): a ``deep5`` net's second hidden layer (W2 column-major,
    so each unit is a contiguous dot product).  Four units a pass over ``h``: four
    independent sums keep the multiply-adds in flight where one waits on the last
    (1.6-1.7 times faster for 400 x 128, measured)."""
    n_units = W2.shape[1]
    blocked = n_units - n_units % 4
    for k in range(0, blocked, 4):
        a0 = a1 = a2 = a3 = np.float32(0.0)
        for j in range(h.shape[0]):
            x = h[j]
            a0 += x * W2[j, k]
            a1 += x * W2[j, k + 1]
            a2 += x * W2[j, k + 2]
            a3 += x * W2[j, k + 3]
        out[k] = sigmoid(a0 + b2[k])
        out[k + 1] = sigmoid(a1 + b2[k + 1])
        out[k + 2] = sigmoid(a2 + b2[k + 2])
        out[k + 3] = sigmoid(a3 + b2[k + 3])
    for k in range(blocked, n_units):
        acc = np.float32(0.0)
        for j in range(h.shape[0]):
            acc += h[j] * W2[j, k]
        out[k] = sigmoid(acc + b2[k])


@njit(cache=True, fastmath=True, error_model="numpy")
def second_layer_quad(W2, b2, H, out):
    """``second_layer`` of four first layers at once (the rows of ``H`` into those of
    ``out``): two units a pass over the four, each weight loaded once for all four
    (eight sums in flight, on a quarter of the weight traffic of one position at a
    time: 1.5 µs a position for 400 x 128, against 3.2 alone, measured)."""
    n_units = W2.shape[1]
    h0, h1, h2, h3 = H[0], H[1], H[2], H[3]
    paired = n_units - n_units % 2
    for k in range(0, paired, 2):
        a0 = a1 = a2 = a3 = c0 = c1 = c2 = c3 = np.float32(0.0)
        for j in range(h0.shape[0]):
            w0 = W2[j, k]
            w1 = W2[j, k + 1]
            x0, x1, x2, x3 = h0[j], h1[j], h2[j], h3[j]
            a0 += x0 * w0
            a1 += x1 * w0
            a2 += x2 * w0
            a3 += x3 * w0
            c0 += x0 * w1
            c1 += x1 * w1
            c2 += x2 * w1
            c3 += x3 * w1
        out[0, k], out[1, k], out[2, k], out[3, k] = a0, a1, a2, a3
        out[0, k + 1], out[1, k + 1], out[2, k + 1], out[3, k + 1] = c0, c1, c2, c3
    for k in range(paired, n_units):
        for b in range(4):
            acc = np.float32(0.0)
            for j in range(h0.shape[0]):
                acc += H[b, j] * W2[j, k]
            out[b, k] = acc
    for b in range(4):
        for k in range(n_units):
            out[b, k] = sigmoid(out[b, k] + b2[k])


@njit(cache=True, fastmath=True)
def deep_probs_quad(W2, b2, W3, b3, H, second, raws, probs_out, first):
    """``net_probs`` of a ``deep5`` net for the four first hidden layers in the rows of
    ``H`` (``second_layer_quad``), into ``probs_out[first:first + 4]``; ``second`` is
    (4, at least the second layer's width) and ``raws`` (4, ``RAW_LANES``) of scratch."""
    layer = second[:, : W2.shape[1]]
    second_layer_quad(W2, b2, H, layer)
    for b in range(4):
        gnubg5_probs(W3, b3, layer[b], raws[b], probs_out[first + b])


@njit(cache=True, fastmath=True)
def deep_probs_some(W2, b2, W3, b3, held, count, second, raws, out):
    """``deep_probs_quad`` of the first ``count`` (1 to 4) rows of ``held`` into the
    first rows of ``out`` (4 x 5); the rows after them become copies of the first
    (worked out and not read).  A position's figures are the same bits in any row and
    whatever the others hold, so one kernel serves one position or four."""
    for b in range(count, 4):
        for j in range(held.shape[1]):
            held[b, j] = held[0, j]
    # np.int64: a literal 0 (or 1 below) would have numba compile the callee apart
    deep_probs_quad(W2, b2, W3, b3, held, second, raws, out, np.int64(0))


@njit(cache=True, fastmath=True)
def deep_probs_alone(W2, b2, W3, b3, h, probs):
    """One position's ``deep5`` probabilities by ``deep_probs_some``: bit for bit what it
    gets four at a time, so a cache filled either way holds the same figures."""
    held = np.empty((4, h.shape[0]), np.float32)
    for j in range(h.shape[0]):
        held[0, j] = h[j]
    second = np.empty((4, W2.shape[1]), np.float32)
    raws = np.empty((4, RAW_LANES), np.float32)
    out = np.empty((4, 5), np.float32)
    deep_probs_some(W2, b2, W3, b3, held, np.int64(1), second, raws, out)
    for k in range(5):
        probs[k] = out[0, k]


@njit(cache=True, fastmath=True, inline="always")
def net_probs(arch, W2, b2, W3, b3, h, raw, probs):
    """Five probabilities from the first hidden layer ``h`` (``raw``: ``RAW_LANES``
    floats of scratch: the output lanes, then a ``deep5`` net's second layer)."""
    if arch == GNUBG5:
        gnubg5_probs(W2, b2, h, raw, probs)
    elif arch == DEEP5:
        second = raw[OUTPUT_LANES : OUTPUT_LANES + W2.shape[1]]
        second_layer(W2, b2, h, second)
        gnubg5_probs(W3, b3, second, raw, probs)
    else:
        rs = raw[: W2.shape[1]]
        raw_outputs(W2, b2, h, rs)
        probs_from_raw(arch, rs, W2, b2, h, probs)


@njit(cache=True)
def symmetric_gammon_loss(W2, b2, h):
    """P(gammon loss | loss) of the symmetric net: node 1 on the flipped hidden layer."""
    acc = b2[1]
    for j in range(h.shape[0]):
        acc += (1.0 - h[j]) * W2[j, 1]
    return sigmoid(acc)


@njit(cache=True)
def probs_from_raw(arch, raw, W2, b2, h, probs):
    if arch == TESAURO3:
        probs[0], probs[1], probs[2], probs[3], probs[4] = raw[0], raw[1], 0.0, raw[2], 0.0
    elif arch == GNUBG5:
        for k in range(5):
            probs[k] = raw[k]
    else:
        z3 = symmetric_gammon_loss(W2, b2, h)
        probs[0] = raw[0]
        probs[1] = raw[0] * raw[1]
        probs[2] = 0.0
        probs[3] = (1.0 - raw[0]) * z3
        probs[4] = 0.0
    # keep the cumulative order a sigmoid per output cannot promise on its own
    probs[1] = min(probs[1], probs[0])
    probs[2] = min(probs[2], probs[1])
    probs[3] = min(probs[3], 1.0 - probs[0])
    probs[4] = min(probs[4], probs[3])


@njit(cache=True)
def equity_of(probs):
    """Cubeless money equity of five cumulative probabilities."""
    return 2.0 * probs[0] - 1.0 + probs[1] - probs[3] + probs[2] - probs[4]


def cubeless_equities(probs) -> np.ndarray:
    """``equity_of`` over the last axis of an array of probabilities (float64), for
    whole label sets and rollouts at once."""
    p = np.asarray(probs, np.float64)
    return 2 * p[..., 0] - 1 + p[..., 1] - p[..., 3] + p[..., 2] - p[..., 4]


@njit(cache=True)
def evaluate_one(W1, b1, W2, b2, W3, b3, arch, encoding, board, x, h, raw, probs):
    """Five probabilities of one board, within what it allows (``keep_possible``); x, h
    are scratch of at least the net's sizes, raw of ``RAW_LANES`` floats."""
    xs, hs = x[: W1.shape[0]], h[: W1.shape[1]]
    encode_into(encoding, board, xs)
    hidden_layer(W1, b1, xs, hs)
    net_probs(arch, W2, b2, W3, b3, hs, raw, probs)
    keep_possible(board, probs)


@njit(cache=True)
def evaluate_boards(W1, b1, W2, b2, W3, b3, arch, encoding, boards, n, probs_out):
    """Five probabilities for each of the first ``n`` boards (side on roll in row 0)."""
    x = np.zeros(W1.shape[0], dtype=np.float32)
    h = np.empty(W1.shape[1], dtype=np.float32)
    raw = np.empty(RAW_LANES, dtype=np.float32)
    for i in range(n):
        evaluate_one(W1, b1, W2, b2, W3, b3, arch, encoding, boards[i], x, h, raw, probs_out[i])


def as_board_batch(boards: np.ndarray) -> tuple[np.ndarray, bool]:
    """Boards as a contiguous int8 (n, 2, 25) batch, and whether one board was given."""
    boards = np.ascontiguousarray(boards, dtype=np.int8)
    single = boards.ndim == 2
    return (boards[None] if single else boards), single
