#!/usr/bin/env python3
"""Capacity or labels: how far a net is from its own labels, and its labels from a deeper
labeller, on the positions its fit held out.

A net trained on labels L can be wrong for two reasons: it does not reproduce L (its
shape and fit: the **fit gap**), or L is wrong (the **label gap**, measured against a
deeper reference such as Open Sage's 3-ply).  Both are measured here on the same
held-out contact positions, as mean absolute cubeless equity (x1000), so they add up
like errors do: where the fit gap is the larger, a net that fits better (wider, deeper,
better trained) gains more than better labels would; where the label gap is, the
other way round.  The held-out split is the one ``fibsbot train fit`` made with the
same data, in the same order, and ``--seed`` (its default ``--crashed-repeats 1``).

    python scripts/training/fit_or_labels.py nets/runs/sage-labels/h21.npz:sage1+sage2 \\
        nets/runs/sage-labels/h31-h32.npz:sage1+sage2 ... \\
        --reference nets/runs/sage-labels/h31-h32.npz:sage3 --nets default runs/shape/e800w

Also printed: each net's held-out cross-entropy against its labels and that figure
less the labels' own entropy (the part a perfect fit would remove).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.eval.encode import encode_into  # noqa: E402
from engine.eval.evaluator import Evaluator  # noqa: E402
from engine.eval.forward import hidden_layer, raw_outputs  # noqa: E402
from engine.eval.net import cubeless_equities  # noqa: E402
from nets.player import resolve_net_path  # noqa: E402
from nets.train.label_sets import contact_split, read_label_set  # noqa: E402

EPS = 1e-7


def held_out_contact(specs: list[str], seed: int, held_out: float) -> tuple[np.ndarray, np.ndarray]:
    """The contact positions and labels ``train fit`` held out for these data and seed."""
    boards, labels, held, _, _ = contact_split(specs, seed, held_out)
    return boards[held], labels[held]


def reference_rows(boards: np.ndarray, spec: str) -> tuple[np.ndarray, np.ndarray]:
    """Indices into ``boards`` of the positions the reference set labels, and their labels."""
    ref_boards, ref_labels, _ = read_label_set(spec)
    where = {b.tobytes(): i for i, b in enumerate(ref_boards)}
    found = [(i, where[b.tobytes()]) for i, b in enumerate(boards) if b.tobytes() in where]
    if not found:
        return np.zeros(0, np.int64), np.zeros((0, 5), np.float32)
    mine, theirs = map(np.array, zip(*found))
    return mine, ref_labels[theirs]


def cross_entropy(probs: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Per position: the five outputs' summed binary cross-entropy (the fit's loss)."""
    p = np.clip(probs.astype(np.float64), EPS, 1 - EPS)
    t = labels.astype(np.float64)
    return -(t * np.log(p) + (1 - t) * np.log(1 - p)).sum(axis=1)


def mean_abs(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    d = np.abs(cubeless_equities(a) - cubeless_equities(b))
    return 1000 * float(d.mean()), 1000 * float(d.std(ddof=1) / math.sqrt(len(d)))


def measure(nets: list[str], boards, labels, ref_index, ref_labels) -> dict:
    raw = _raw_net_probabilities
    floor = cross_entropy(labels, labels)
    report: dict = {
        "held_out": len(boards),
        "with_reference": len(ref_index),
        "label_entropy": float(floor.mean()),
        "labels_vs_reference_x1000": mean_abs(labels[ref_index], ref_labels) if len(ref_index) else None,
        "nets": {},
    }
    for name in nets:
        net = Evaluator.load(resolve_net_path(name)).contact
        probs = raw(net, boards)
        loss = cross_entropy(probs, labels)
        excess = loss - floor
        entry = {
            "hidden": "-".join(str(n) for n in (net.hidden, getattr(net, "hidden2", 0)) if n),
            "held_out_loss": float(loss.mean()),
            "excess_over_label_entropy": float(excess.mean()),
            "excess_stderr": float(excess.std(ddof=1) / math.sqrt(len(excess))),
            "fit_gap_x1000": mean_abs(probs, labels),
        }
        if len(ref_index):
            entry["fit_gap_on_reference_positions_x1000"] = mean_abs(probs[ref_index], labels[ref_index])
            entry["net_vs_reference_x1000"] = mean_abs(probs[ref_index], ref_labels)
        report["nets"][name] = entry
    return report


@njit(cache=True)
def _raw_outputs(W1, b1, W2, b2, encoding, boards, out):
    x = np.zeros(W1.shape[0], np.float32)
    h = np.empty(W1.shape[1], np.float32)
    for i in range(boards.shape[0]):
        encode_into(encoding, boards[i], x)
        hidden_layer(W1, b1, x, h)
        raw_outputs(W2, b2, h, out[i])


def _raw_net_probabilities(net, boards: np.ndarray) -> np.ndarray:
    """The contact net's five sigmoid outputs as the fit's loss reads them (before the
    cumulative order is enforced), so the held-out loss is the fit's own."""
    if net.hidden2:  # two hidden layers: the trainer's own forward pass
        from nets.train.dense import DenseNet, encode_all

        return DenseNet.from_net(net).outputs(encode_all(net.encoding, boards))
    if net.arch != "gnubg5":
        raise ValueError(f"the fit's loss is that of five-output nets, not of a {net.arch} net")
    out = np.zeros((len(boards), 5), np.float32)
    _raw_outputs(net.W1, net.b1, net.W2, net.b2, net.encoding_id, np.ascontiguousarray(boards, np.int8), out)
    return out


def render(report: dict) -> str:
    lines = [
        f"{report['held_out']:,} held-out contact positions; {report['with_reference']:,} of them with the "
        f"reference's labels; the labels' own entropy {report['label_entropy']:.5f}",
    ]
    if report["labels_vs_reference_x1000"]:
        m, s = report["labels_vs_reference_x1000"]
        lines.append(f"label gap (labels vs the reference, mean |equity| x1000): {m:.2f} +/- {s:.2f}")
    lines += [
        "",
        "| net | hidden | held-out loss | over the labels' entropy | fit gap (vs labels) x1000 | "
        "on the reference's positions | net vs reference x1000 |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, e in report["nets"].items():
        fit, fit_se = e["fit_gap_x1000"]
        on_ref = e.get("fit_gap_on_reference_positions_x1000")
        vs_ref = e.get("net_vs_reference_x1000")
        lines.append(
            f"| {name} | {e['hidden']} | {e['held_out_loss']:.5f} | {e['excess_over_label_entropy']:.5f} +/- "
            f"{e['excess_stderr']:.5f} | {fit:.2f} +/- {fit_se:.2f} | "
            + (f"{on_ref[0]:.2f} +/- {on_ref[1]:.2f}" if on_ref else "-")
            + " | "
            + (f"{vs_ref[0]:.2f} +/- {vs_ref[1]:.2f}" if vs_ref else "-")
            + " |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="fit_or_labels", description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="+", help="the label sets of the fit, as given to fibsbot train fit")
    parser.add_argument("--nets", nargs="+", required=True, help="nets fitted on those data (names or paths)")
    parser.add_argument("--reference", help="a deeper labeller's set FILE.npz:KEY (e.g. ...h31-h32.npz:sage3)")
    parser.add_argument("--seed", type=int, default=1, help="the fit's --seed (default 1)")
    parser.add_argument("--held-out", type=float, default=0.1, help="the fit's held-out share (default 0.1)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    boards, labels = held_out_contact(args.data, args.seed, args.held_out)
    ref_index, ref_labels = reference_rows(boards, args.reference) if args.reference else (np.zeros(0, int), None)
    report = measure(args.nets, boards, labels, ref_index, ref_labels)
    print(json.dumps(report, indent=1) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
