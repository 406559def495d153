"""Neural evaluators: weights, model cards and their files.

Every net answers for the side on roll, before the roll, with gnubg's five
cumulative probabilities ``[win, gammon win, backgammon win, gammon loss,
backgammon loss]``.  Three architectures share one sigmoid MLP (inputs -> H
sigmoid hidden units -> sigmoid outputs), a fourth adds a second hidden layer:

``gnubg5``     five outputs, gnubg's layout.
``tesauro3``   three outputs (win, gammon win, gammon loss), Benchmark 1's layout.
``symmetric``  the flip-symmetric design of the gammon-outputs note (seed 000): the
               hidden layer is antisymmetric under swapping the two sides' inputs
               (no hidden bias), the win node has no bias and weights summing to
               zero, and a second node gives P(gammon | win); P(gammon loss | loss)
               is the same node applied to the flipped hidden layer.  Evaluating the
               swapped input then gives exactly the complementary outputs.
``deep5``      gnubg's five outputs after two sigmoid hidden layers (inputs -> H -> H2
               -> 5): W2 and b2 are the second hidden layer, W3 and b3 the outputs.
               Fitted by ``nets.train.dense``; one-layer nets carry empty W3 and b3.

The forward pass itself, the numba kernels, is ``engine.eval.forward``; its names are
re-exported here, where most callers import them.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from engine.eval.encode import encoding_id, input_size
from engine.eval.forward import (
    ARCHS,
    DEEP5,
    GNUBG5,
    RAW_OUTPUTS,
    SYMMETRIC,
    TESAURO3,
    add_row,
    add_rows4,
    as_board_batch,
    cubeless_equities,
    deep_probs_alone,
    deep_probs_quad,
    deep_probs_some,
    equity_of,
    evaluate_boards,
    evaluate_one,
    first_layer,
    gnubg5_probs,
    hidden_layer,
    net_probs,
    probs_from_raw,
    raw_outputs,
    sigmoid,
    symmetric_gammon_loss,
)

__all__ = [
    "ARCHS",
    "DEEP5",
    "GNUBG5",
    "RAW_OUTPUTS",
    "SYMMETRIC",
    "TESAURO3",
    "Net",
    "NetArrays",
    "NetError",
    "add_row",
    "add_rows4",
    "as_board_batch",
    "cubeless_equities",
    "deep_probs_alone",
    "deep_probs_quad",
    "deep_probs_some",
    "equity_of",
    "evaluate_boards",
    "evaluate_one",
    "first_layer",
    "gnubg5_probs",
    "hidden_layer",
    "net_probs",
    "probs_from_raw",
    "project_symmetric",
    "raw_outputs",
    "sigmoid",
    "swap_permutation",
    "symmetric_gammon_loss",
]


class NetError(ValueError):
    """A net file that cannot be used: missing, corrupt, or not what its card says."""


def swap_permutation(encoding: str) -> np.ndarray:
    """Input index permutation that exchanges the two sides' units of an encoding."""
    n = input_size(encoding)
    perm = np.arange(n)
    if encoding in ("tesauro", "tesauro-turn"):
        perm[0:96], perm[96:192] = np.arange(96, 192), np.arange(0, 96)
        perm[192], perm[193], perm[194], perm[195] = 193, 192, 195, 194
        if encoding == "tesauro-turn":
            perm[196], perm[197] = 197, 196
    elif encoding in ("contact", "contact2", "contact3"):
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
    first eight arguments of ``evaluate_one`` and its kin."""

    W1: np.ndarray  # (inputs, hidden)
    b1: np.ndarray
    W2: np.ndarray  # (hidden, raw outputs), column-major; ``deep5``: (hidden, hidden2)
    b2: np.ndarray
    W3: np.ndarray  # ``deep5``: (hidden2, 5), column-major; other nets: (0, 5), unused
    b3: np.ndarray
    arch: int  # ``ARCHS``
    enc: int  # ``engine.eval.encode.ENCODINGS``


def _no_layer() -> np.ndarray:
    return np.zeros((0, 5), np.float32, order="F")


# What a one-layer net hands the kernels as its W3, which they never read.  numba
# types an empty array as C-ordered and a deep net's W3 as F-ordered, so with the
# net's own (0, 5) every kernel that takes a net compiled once for one-layer nets
# and again for deep ones (the whole search three times in a process that met both
# as its net and root net).  Two rows F-ordered type as a deep net's W3 does.
_UNREAD_W3 = np.zeros((2, 5), np.float32, order="F")  # writeable: read-only is a type of its own


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
    W3: np.ndarray = field(default_factory=_no_layer)  # a ``deep5`` net's output layer
    b3: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))

    def __post_init__(self):
        # every kernel indexes W2[j, k]; column-major storage makes the output layer's
        # dot products contiguous (``raw_outputs``), and one layout means one compilation
        self.W1 = np.ascontiguousarray(self.W1, dtype=np.float32)
        self.b1 = np.ascontiguousarray(self.b1, dtype=np.float32)
        self.W2 = np.asfortranarray(self.W2, dtype=np.float32)
        self.b2 = np.ascontiguousarray(self.b2, dtype=np.float32)
        self.W3 = np.asfortranarray(self.W3, dtype=np.float32)
        self.b3 = np.ascontiguousarray(self.b3, dtype=np.float32)
        if (self.arch == "deep5") != (self.W3.shape[0] > 0):
            raise NetError("a deep5 net has a second hidden layer (W3, b3), and no other net has one")

    @classmethod
    def create(cls, arch: str, encoding: str, hidden: int, seed: int = 0, scale: float = 0.1) -> Net:
        if arch not in ARCHS:
            raise NetError(f"unknown architecture {arch!r}; known: {', '.join(ARCHS)}")
        if arch == "deep5":
            raise NetError("deep5 nets are made by nets.train.dense (DenseNet.as_net)")
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
    def hidden2(self) -> int:
        """The second hidden layer's units (0: a one-hidden-layer net)."""
        return self.W3.shape[0]

    @property
    def arch_id(self) -> int:
        return ARCHS[self.arch]

    @property
    def encoding_id(self) -> int:
        return encoding_id(self.encoding)

    def arrays(self) -> NetArrays:
        W3 = self.W3 if self.hidden2 else _UNREAD_W3
        return NetArrays(self.W1, self.b1, self.W2, self.b2, W3, self.b3, self.arch_id, self.encoding_id)

    def copy(self) -> Net:
        return Net(
            self.arch,
            self.encoding,
            self.W1.copy(),
            self.b1.copy(),
            self.W2.copy(order="F"),
            self.b2.copy(),
            json.loads(json.dumps(self.card)),
            self.W3.copy(order="F"),
            self.b3.copy(),
        )

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        """(n, 5) probabilities for boards of shape (n, 2, 25) or one board (2, 25)."""
        boards, single = as_board_batch(boards)
        out = np.zeros((len(boards), 5), dtype=np.float32)
        evaluate_boards(*self.arrays(), boards, len(boards), out)
        return out[0] if single else out

    def weights_digest(self) -> str:
        h = hashlib.sha256()
        # a one-layer net's digest is what it was before deep5 nets existed
        for a in (self.W1, self.b1, self.W2, self.b2) + ((self.W3, self.b3) if self.hidden2 else ()):
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
            "outputs": int(self.W3.shape[1] if self.hidden2 else self.W2.shape[1]),
            "weights_sha256": self.weights_digest(),
        }
        if self.hidden2:
            card["hidden2"] = self.hidden2
        self.card = card
        tmp = path.with_name(path.name + ".tmp.npz")
        arrays: dict[str, np.ndarray] = {"W1": self.W1, "b1": self.b1, "W2": self.W2, "b2": self.b2}
        if self.hidden2:
            arrays |= {"W3": self.W3, "b3": self.b3}
        np.savez(tmp, **arrays)  # type: ignore[arg-type]  # numpy's stub gives **kwds the type of allow_pickle
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
                deep = [np.ascontiguousarray(data[k], dtype=np.float32) for k in ("W3", "b3") if k in data.files]
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
        if (card["arch"] == "deep5") != bool(deep):
            raise NetError(f"{path}: a deep5 net needs W3 and b3, and only a deep5 net has them")
        W3, b3 = deep if deep else (_no_layer(), np.zeros(0, np.float32))
        out = W3 if deep else W2
        expected = (input_size(card["encoding"]), card["hidden"], RAW_OUTPUTS[card["arch"]])
        found = (W1.shape[0], W1.shape[1], out.shape[1])
        if (
            found != (card["inputs"], card["hidden"], card["outputs"])
            or b1.shape != (W1.shape[1],)
            or W2.shape[0] != W1.shape[1]
            or b2.shape != (W2.shape[1],)
            or (deep and (W3.shape[0] != W2.shape[1] or b3.shape != (W3.shape[1],)))
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
        net = cls(card["arch"], card["encoding"], W1, b1, W2, b2, card, W3, b3)
        digest = card.get("weights_sha256")
        if digest and digest != net.weights_digest():
            raise NetError(f"{path}: weights do not match the checksum in {card_path}")
        return net
