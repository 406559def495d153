"""Mini-batch training of sigmoid nets with one or more hidden layers, on dense inputs.

``nets.train.supervised`` trains the engine's one-hidden-layer nets position by
position, touching only the non-zero inputs. This module encodes every position once
and trains on batches with matrix products (one BLAS call per layer), so any depth
costs the same few lines. It uses AdamW (Adam with decoupled weight decay, as modern
nets are fitted) and drops the step size when the held-out loss stalls, instead of a
fixed decay. A net of one or two hidden layers converts to the engine's ``Net``
(``gnubg5`` or ``deep5``); deeper ones are for measurements only.

The loss is ``supervised.fit``'s: each of the five sigmoid outputs' cross-entropy
against its label, summed, averaged over positions, so held-out losses compare.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit

from engine.eval.encode import encode_into, encoding_id, input_size
from engine.eval.net import Net
from nets.train.distill import ACTIVE_INPUTS
from nets.train.expand import widened_inputs

BETA1, BETA2, EPS = 0.9, 0.999, 1e-8
CLIP = 1e-7


@njit(cache=True)
def _encode_rows(encoding, boards, out):
    for i in range(boards.shape[0]):
        encode_into(encoding, boards[i], out[i])


def encode_all(encoding: str, boards: np.ndarray) -> np.ndarray:
    """Every board's inputs, one row each (float32: 944 bytes a contact2 position)."""
    out = np.zeros((len(boards), input_size(encoding)), dtype=np.float32)
    _encode_rows(encoding_id(encoding), np.ascontiguousarray(boards, np.int8), out)
    return out


def _sigmoid(z: np.ndarray) -> np.ndarray:
    np.clip(z, -30.0, 30.0, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    z += 1.0
    np.reciprocal(z, out=z)
    return z


@dataclass
class DenseNet:
    """Weights ``W[i]`` (fan-in, fan-out) and biases of each layer, the last the five outputs."""

    encoding: str
    weights: list[np.ndarray]
    biases: list[np.ndarray]

    @classmethod
    def create(cls, encoding: str, hidden: tuple[int, ...], seed: int) -> DenseNet:
        rng = np.random.default_rng(seed)
        sizes = [input_size(encoding), *hidden, 5]
        weights, biases = [], []
        for k, (fan_in, fan_out) in enumerate(zip(sizes[:-1], sizes[1:])):
            spread = 1.0 / np.sqrt(ACTIVE_INPUTS if k == 0 else fan_in)  # inputs are mostly zero
            weights.append(rng.normal(0.0, spread, (fan_in, fan_out)).astype(np.float32))
            biases.append(np.zeros(fan_out, np.float32))
        return cls(encoding, weights, biases)

    @property
    def hidden(self) -> tuple[int, ...]:
        return tuple(w.shape[1] for w in self.weights[:-1])

    def activations(self, x: np.ndarray) -> list[np.ndarray]:
        """Every layer's sigmoid outputs for a batch of input rows, the net's last."""
        layers = [x]
        for w, b in zip(self.weights, self.biases):
            z = layers[-1] @ w
            z += b
            layers.append(_sigmoid(z))
        return layers

    def outputs(self, x: np.ndarray, batch: int = 8192) -> np.ndarray:
        return np.concatenate([self.activations(x[i : i + batch])[-1] for i in range(0, len(x), batch)])

    def copy(self) -> DenseNet:
        return DenseNet(self.encoding, [w.copy() for w in self.weights], [b.copy() for b in self.biases])

    def as_net(self) -> Net:
        """The engine's net computing the same function (``gnubg5`` or ``deep5``)."""
        (W1, *rest), (b1, *rest_b) = self.weights, self.biases
        if len(rest) == 1:
            return Net("gnubg5", self.encoding, W1, b1, rest[0], rest_b[0], {})
        if len(rest) == 2:
            return Net("deep5", self.encoding, W1, b1, rest[0], rest_b[0], {}, rest[1], rest_b[1])
        raise ValueError(f"the engine evaluates one or two hidden layers; this net has {len(self.weights) - 1}")

    def save(self, path, card: dict) -> None:
        """``path`` (``NAME.dense.npz``): every layer's weights and biases, and the card."""
        arrays = _layer_arrays("", self)
        arrays |= {"card": np.array(json.dumps(card)), "encoding": np.array(self.encoding)}
        _save_npz(Path(path), arrays)

    @classmethod
    def load(cls, path) -> DenseNet:
        with np.load(path) as data:
            layers = sum(1 for k in data.files if k.startswith("W"))
            return _layers_from(data, "", str(data["encoding"]), layers)

    @classmethod
    def from_net(cls, net: Net) -> DenseNet:
        weights = [net.W1.copy(), np.ascontiguousarray(net.W2)]
        biases = [net.b1.copy(), net.b2.copy()]
        if net.hidden2:
            weights.append(np.ascontiguousarray(net.W3))
            biases.append(net.b3.copy())
        return cls(net.encoding, weights, biases)

    def with_encoding(self, encoding: str) -> DenseNet:
        """The same function on a richer encoding of the board (``nets.train.expand``):
        the added inputs get zero weights, to be learned from there."""
        first = widened_inputs(self.weights[0], self.encoding, encoding)
        weights = [first] + [w.copy() for w in self.weights[1:]]
        return DenseNet(encoding, weights, [b.copy() for b in self.biases])


def cross_entropy(outputs: np.ndarray, targets: np.ndarray) -> float:
    """The fit's loss: the five outputs' cross-entropies summed, the mean over positions."""
    p = np.clip(outputs.astype(np.float64), CLIP, 1 - CLIP)
    t = targets.astype(np.float64)
    return float(-(t * np.log(p) + (1 - t) * np.log(1 - p)).sum(axis=1).mean())


@dataclass
class DenseSettings:
    epochs: int = 30
    lr: float = 1e-3
    batch: int = 256
    weight_decay: float = 0.0  # decoupled (AdamW), on the weights, not the biases
    patience: int = 2  # stalled held-out epochs before the step size is cut
    cut: float = 0.3  # the step size's factor at each cut
    cuts: int = 4  # stop after this many cuts
    seed: int = 1

    def as_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class DenseReport:
    positions: int
    held_out: int
    best_epoch: int = 0
    epochs: int = 0
    train_loss: list[float] = field(default_factory=list)
    held_out_loss: list[float] = field(default_factory=list)
    lr: list[float] = field(default_factory=list)
    seconds: float = 0.0

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


class _AdamW:
    def __init__(self, net: DenseNet):
        params = net.weights + net.biases
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.step = 0

    def apply(self, net: DenseNet, grads: list[np.ndarray], lr: float, weight_decay: float) -> None:
        self.step += 1
        bias1 = 1 - BETA1**self.step
        bias2 = 1 - BETA2**self.step
        params = net.weights + net.biases
        for k, (p, g, m, v) in enumerate(zip(params, grads, self.m, self.v)):
            m *= BETA1
            m += (1 - BETA1) * g
            v *= BETA2
            v += (1 - BETA2) * g * g
            if weight_decay and k < len(net.weights):
                p *= 1 - lr * weight_decay
            p -= lr * (m / bias1) / (np.sqrt(v / bias2) + EPS)


def _gradients(net: DenseNet, x: np.ndarray, t: np.ndarray) -> tuple[list[np.ndarray], float]:
    layers = net.activations(x)
    out = layers[-1]
    loss = cross_entropy(out, t)
    delta = (out - t) / len(x)  # d loss / d output logits: sigmoid with cross-entropy
    w_grads: list[np.ndarray] = [None] * len(net.weights)  # type: ignore[list-item]
    b_grads: list[np.ndarray] = [None] * len(net.weights)  # type: ignore[list-item]
    for k in range(len(net.weights) - 1, -1, -1):
        w_grads[k] = layers[k].T @ delta
        b_grads[k] = delta.sum(axis=0)
        if k:
            a = layers[k]
            delta = (delta @ net.weights[k].T) * a * (1 - a)
    return w_grads + b_grads, loss


def train_dense(
    net: DenseNet,
    x: np.ndarray,
    t: np.ndarray,
    x_held: np.ndarray,
    t_held: np.ndarray,
    settings: DenseSettings,
    progress=None,
    checkpoint: Path | None = None,
) -> DenseReport:
    """Fit ``net`` in place on (x, t); keep the weights of the best held-out epoch.

    With ``checkpoint`` (a ``.npz`` path) the whole state of the fit is written there
    atomically after every epoch, and a fit that finds one goes on from it: a killed
    fit loses at most an epoch and ends with the very weights an unbroken one has."""
    run = _load_checkpoint(checkpoint, net, settings) if checkpoint and checkpoint.exists() else None
    if run is None:
        report = DenseReport(len(x), len(x_held))
        best = cross_entropy(net.outputs(x_held), t_held)
        report.held_out_loss.append(best)
        rng = np.random.default_rng(settings.seed)
        run = _Run(net.copy(), _AdamW(net), rng, report, settings.lr, 0, 0, best, False)
    report, rng, adam = run.report, run.rng, run.adam
    start = time.perf_counter() - report.seconds
    for epoch in range(report.epochs + 1, settings.epochs + 1):
        if run.done:
            break
        order = rng.permutation(len(x))
        seen, total = 0, 0.0
        for i in range(0, len(order), settings.batch):
            idx = np.sort(order[i : i + settings.batch])  # sorted rows gather faster
            grads, loss = _gradients(net, x[idx], t[idx])
            adam.apply(net, grads, run.lr, settings.weight_decay)
            total += loss * len(idx)
            seen += len(idx)
        held = cross_entropy(net.outputs(x_held), t_held)
        report.train_loss.append(total / max(seen, 1))
        report.held_out_loss.append(held)
        report.lr.append(run.lr)
        report.epochs = epoch
        if progress:
            progress(epoch, total / max(seen, 1), held, run.lr)
        if held < run.best - 1e-6:
            run.best, run.stale, report.best_epoch, run.best_net = held, 0, epoch, net.copy()
        else:
            run.stale += 1
            if run.stale >= settings.patience:
                if run.cuts >= settings.cuts:
                    run.done = True
                else:
                    run.lr *= settings.cut
                    run.cuts += 1
                    run.stale = 0
        report.seconds = round(time.perf_counter() - start, 1)
        if checkpoint:
            _save_checkpoint(checkpoint, net, run, settings)
    net.weights, net.biases = run.best_net.weights, run.best_net.biases
    return report


@dataclass
class _Run:
    """Everything a fit carries from one epoch to the next."""

    best_net: DenseNet
    adam: _AdamW
    rng: np.random.Generator
    report: DenseReport
    lr: float
    stale: int
    cuts: int
    best: float
    done: bool


def _layer_arrays(prefix: str, net: DenseNet) -> dict[str, np.ndarray]:
    """A net's layers as named arrays of a ``.npz`` (``{prefix}W0``, ``{prefix}b0``, ...)."""
    arrays = {f"{prefix}W{k}": w for k, w in enumerate(net.weights)}
    return arrays | {f"{prefix}b{k}": b for k, b in enumerate(net.biases)}


def _layers_from(data, prefix: str, encoding: str, layers: int) -> DenseNet:
    """The net ``_layer_arrays`` wrote into an open ``.npz``."""
    return DenseNet(
        encoding,
        [data[f"{prefix}W{k}"].astype(np.float32) for k in range(layers)],
        [data[f"{prefix}b{k}"].astype(np.float32) for k in range(layers)],
    )


def _save_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """``arrays`` compressed into ``path``, written whole or not at all."""
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez_compressed(tmp, **arrays)  # type: ignore[arg-type]  # numpy's stub gives **kwds the type of allow_pickle
    os.replace(tmp, path)


def _save_checkpoint(path: Path, net: DenseNet, run: _Run, settings: DenseSettings) -> None:
    arrays = _layer_arrays("net_", net) | _layer_arrays("best_", run.best_net)
    arrays |= {f"adam_m{k}": m for k, m in enumerate(run.adam.m)} | {f"adam_v{k}": v for k, v in enumerate(run.adam.v)}
    meta = {
        "settings": {k: v for k, v in settings.as_dict().items() if k != "epochs"},
        "encoding": net.encoding,
        "adam_step": run.adam.step,
        "rng": run.rng.bit_generator.state,
        "report": run.report.as_dict(),
        "lr": run.lr,
        "stale": run.stale,
        "cuts": run.cuts,
        "best": run.best,
        "done": run.done,
    }
    arrays["meta"] = np.array(json.dumps(meta))
    _save_npz(path, arrays)


def _load_checkpoint(path: Path, net: DenseNet, settings: DenseSettings) -> _Run:
    with np.load(path) as data:
        meta = json.loads(str(data["meta"]))
        wanted = {k: v for k, v in settings.as_dict().items() if k != "epochs"}
        if meta["settings"] != wanted or meta["encoding"] != net.encoding:
            raise ValueError(f"{path} is the checkpoint of another fit ({meta['settings']}); remove it or fit anew")
        layers = len(net.weights)
        if f"net_W{layers - 1}" not in data.files or f"net_W{layers}" in data.files:
            raise ValueError(f"{path} is the checkpoint of a net of another depth")
        now = _layers_from(data, "net_", net.encoding, layers)
        net.weights, net.biases = now.weights, now.biases
        best_net = _layers_from(data, "best_", net.encoding, layers)
        adam = _AdamW(net)
        adam.m = [data[f"adam_m{k}"] for k in range(len(adam.m))]
        adam.v = [data[f"adam_v{k}"] for k in range(len(adam.v))]
    adam.step = meta["adam_step"]
    rng = np.random.default_rng()
    rng.bit_generator.state = meta["rng"]
    report = DenseReport(**meta["report"])
    return _Run(best_net, adam, rng, report, meta["lr"], meta["stale"], meta["cuts"], meta["best"], meta["done"])
