"""Neural evaluators: weights, model cards, and the numba forward pass.

Every net answers for the side on roll, before the roll, with gnubg's five
cumulative probabilities ``[win, gammon win, backgammon win, gammon loss,
backgammon loss]``.  Three architectures share one sigmoid MLP (inputs -> H
sigmoid hidden units -> sigmoid outputs):

``gnubg5``     five outputs, gnubg's layout.
``tesauro3``   three outputs (win, gammon win, gammon loss), Benchmark 1's layout.
``symmetric``  the flip-symmetric design of the gammon-outputs note (seed 000): the
               hidden layer is antisymmetric under swapping the two sides' inputs
               (no hidden bias), the win node has no bias and weights summing to
               zero, and a second node gives P(gammon | win); P(gammon loss | loss)
               is the same node applied to the flipped hidden layer.  Evaluating the
               swapped input then gives exactly the complementary outputs.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np
from numba import njit
from numpy.polynomial import polynomial as P

from engine.eval.encode import encode_into, encoding_id, input_size
from engine.eval.limits import RAW_LANES

ARCHS = {"tesauro3": 0, "gnubg5": 1, "symmetric": 2}
RAW_OUTPUTS = {"tesauro3": 3, "gnubg5": 5, "symmetric": 2}
TESAURO3, GNUBG5, SYMMETRIC = 0, 1, 2


class NetError(ValueError):
    """A net file that cannot be used: missing, corrupt, or not what its card says."""


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


@njit(cache=True, fastmath=True, inline="always")
def net_probs(arch, W2, b2, h, raw, probs):
    """Five probabilities from the hidden layer ``h`` (``raw``: eight floats of scratch)."""
    if arch == GNUBG5:
        gnubg5_probs(W2, b2, h, raw, probs)
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
def evaluate_one(W1, b1, W2, b2, arch, encoding, board, x, h, raw, probs):
    """Five probabilities of one board; x, h are scratch of at least the net's sizes,
    raw of eight floats."""
    xs, hs = x[: W1.shape[0]], h[: W1.shape[1]]
    encode_into(encoding, board, xs)
    hidden_layer(W1, b1, xs, hs)
    net_probs(arch, W2, b2, hs, raw, probs)


@njit(cache=True)
def evaluate_boards(W1, b1, W2, b2, arch, encoding, boards, n, probs_out):
    """Five probabilities for each of the first ``n`` boards (side on roll in row 0)."""
    x = np.zeros(W1.shape[0], dtype=np.float32)
    h = np.empty(W1.shape[1], dtype=np.float32)
    raw = np.empty(RAW_LANES, dtype=np.float32)
    for i in range(n):
        evaluate_one(W1, b1, W2, b2, arch, encoding, boards[i], x, h, raw, probs_out[i])


def as_board_batch(boards: np.ndarray) -> tuple[np.ndarray, bool]:
    """Boards as a contiguous int8 (n, 2, 25) batch, and whether one board was given."""
    boards = np.ascontiguousarray(boards, dtype=np.int8)
    single = boards.ndim == 2
    return (boards[None] if single else boards), single


def swap_permutation(encoding: str) -> np.ndarray:
    """Input index permutation that exchanges the two sides' units of an encoding."""
    n = input_size(encoding)
    perm = np.arange(n)
    if encoding in ("tesauro", "tesauro-turn"):
        perm[0:96], perm[96:192] = np.arange(96, 192), np.arange(0, 96)
        perm[192], perm[193], perm[194], perm[195] = 193, 192, 195, 194
        if encoding == "tesauro-turn":
            perm[196], perm[197] = 197, 196
    elif encoding in ("contact", "contact2"):
        half = n // 2
        perm[:half], perm[half:] = np.arange(half, n), np.arange(0, half)
    else:
        raise NetError(f"the symmetric architecture needs a side-symmetric encoding, not {encoding!r}")
    return perm


def project_symmetric(net: Net) -> None:
    """Enforce the symmetric architecture's weight constraints in place."""
    perm = swap_permutation(net.encoding)
    net.W1[:] = 0.5 * (net.W1 - net.W1[perm])
    net.b1[:] = 0.0
    net.W2[:, 0] -= net.W2[:, 0].mean()
    net.b2[0] = 0.0


class NetArrays(NamedTuple):
    """A net as the kernels take it (``Net.arrays``); its fields in this order are the
    first six arguments of ``evaluate_one`` and its kin."""

    W1: np.ndarray  # (inputs, hidden)
    b1: np.ndarray
    W2: np.ndarray  # (hidden, raw outputs), column-major
    b2: np.ndarray
    arch: int  # ``ARCHS``
    enc: int  # ``engine.eval.encode.ENCODINGS``


@dataclass
class Net:
    """One evaluator: weights plus the model card that describes them."""

    arch: str
    encoding: str
    W1: np.ndarray
    b1: np.ndarray
    W2: np.ndarray
    b2: np.ndarray
    card: dict = field(default_factory=dict)

    def __post_init__(self):
        # every kernel indexes W2[j, k]; column-major storage makes the output layer's
        # dot products contiguous (``raw_outputs``), and one layout means one compilation
        self.W1 = np.ascontiguousarray(self.W1, dtype=np.float32)
        self.b1 = np.ascontiguousarray(self.b1, dtype=np.float32)
        self.W2 = np.asfortranarray(self.W2, dtype=np.float32)
        self.b2 = np.ascontiguousarray(self.b2, dtype=np.float32)

    @classmethod
    def create(cls, arch: str, encoding: str, hidden: int, seed: int = 0, scale: float = 0.1) -> Net:
        if arch not in ARCHS:
            raise NetError(f"unknown architecture {arch!r}; known: {', '.join(ARCHS)}")
        rng = np.random.default_rng(seed)
        n_in, n_out = input_size(encoding), RAW_OUTPUTS[arch]
        net = cls(
            arch,
            encoding,
            rng.uniform(-scale, scale, (n_in, hidden)).astype(np.float32),
            np.zeros(hidden, np.float32),
            rng.uniform(-scale, scale, (hidden, n_out)).astype(np.float32),
            np.zeros(n_out, np.float32),
        )
        if arch == "symmetric":
            project_symmetric(net)
        return net

    @property
    def hidden(self) -> int:
        return self.W1.shape[1]

    @property
    def arch_id(self) -> int:
        return ARCHS[self.arch]

    @property
    def encoding_id(self) -> int:
        return encoding_id(self.encoding)

    def arrays(self) -> NetArrays:
        return NetArrays(self.W1, self.b1, self.W2, self.b2, self.arch_id, self.encoding_id)

    def copy(self) -> Net:
        return Net(
            self.arch,
            self.encoding,
            self.W1.copy(),
            self.b1.copy(),
            self.W2.copy(order="F"),
            self.b2.copy(),
            json.loads(json.dumps(self.card)),
        )

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        """(n, 5) probabilities for boards of shape (n, 2, 25) or one board (2, 25)."""
        boards, single = as_board_batch(boards)
        out = np.zeros((len(boards), 5), dtype=np.float32)
        evaluate_boards(*self.arrays(), boards, len(boards), out)
        return out[0] if single else out

    def weights_digest(self) -> str:
        h = hashlib.sha256()
        for a in (self.W1, self.b1, self.W2, self.b2):
            h.update(np.ascontiguousarray(a, dtype=np.float32).tobytes())
        return h.hexdigest()

    def save(self, path: str | Path, **card_updates) -> Path:
        """Write ``path`` (.npz) and its card (.json) beside it, each atomically."""
        path = Path(path).with_suffix(".npz")
        path.parent.mkdir(parents=True, exist_ok=True)
        card = {
            **self.card,
            **card_updates,
            "arch": self.arch,
            "encoding": self.encoding,
            "inputs": int(self.W1.shape[0]),
            "hidden": self.hidden,
            "outputs": int(self.W2.shape[1]),
            "weights_sha256": self.weights_digest(),
        }
        self.card = card
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez(tmp, W1=self.W1, b1=self.b1, W2=self.W2, b2=self.b2)
        os.replace(tmp, path)
        card_path = path.with_suffix(".json")
        tmp_card = card_path.with_name(card_path.name + ".tmp")
        tmp_card.write_text(json.dumps(card, indent=2, sort_keys=True) + "\n")
        os.replace(tmp_card, card_path)
        return path

    @classmethod
    def load(cls, path: str | Path) -> Net:
        path = Path(path).with_suffix(".npz")
        card_path = path.with_suffix(".json")
        if not path.exists():
            raise NetError(f"no weights file {path}")
        if not card_path.exists():
            raise NetError(f"{path} has no model card {card_path}")
        try:
            card = json.loads(card_path.read_text())
            with np.load(path) as data:
                arrays = [np.ascontiguousarray(data[k], dtype=np.float32) for k in ("W1", "b1", "W2", "b2")]
        except (OSError, ValueError, KeyError) as exc:
            raise NetError(f"cannot read net {path}: {exc}") from exc
        for key in ("arch", "encoding", "inputs", "hidden", "outputs"):
            if key not in card:
                raise NetError(f"model card {card_path} lacks {key!r}")
        if card["arch"] not in ARCHS:
            raise NetError(f"model card {card_path}: unknown architecture {card['arch']!r}")
        try:
            encoding_id(card["encoding"])
        except ValueError as exc:
            raise NetError(f"model card {card_path}: {exc}") from None
        W1, b1, W2, b2 = arrays
        expected = (input_size(card["encoding"]), card["hidden"], RAW_OUTPUTS[card["arch"]])
        found = (W1.shape[0], W1.shape[1], W2.shape[1])
        if (
            found != (card["inputs"], card["hidden"], card["outputs"])
            or b1.shape != (W1.shape[1],)
            or W2.shape[0] != W1.shape[1]
            or b2.shape != (W2.shape[1],)
        ):
            raise NetError(
                f"{path}: weights {found} do not match the card "
                f"(inputs, hidden, outputs) = {(card['inputs'], card['hidden'], card['outputs'])}"
            )
        if found != expected:
            # the card's sizes agree with the weights but not with its arch and encoding
            raise NetError(
                f"{path}: weights {found} do not match the card: a {card['arch']} net on the "
                f"{card['encoding']!r} encoding has (inputs, hidden, outputs) = {expected}"
            )
        net = cls(card["arch"], card["encoding"], W1, b1, W2, b2, card)
        digest = card.get("weights_sha256")
        if digest and digest != net.weights_digest():
            raise NetError(f"{path}: weights do not match the checksum in {card_path}")
        return net
