#!/usr/bin/env python3
"""Each evaluator's cubeless equity error against the rollout labels rolled out so far.

Reads a label set (``nets/runs/rollout-labels/mid.npz``) and the chunks a resumable
``scripts/labels/relabel_set.py --chunks`` run has written beside it, and prints, for the
positions rolled out, the RMS and mean error of: each of the set's own label keys
(Open Sage's), each ``--nets`` net at 0-ply, and gnubg-nn's 0-ply where the package is
installed, then each of them at 1-ply on the first ``--ply1`` positions.  The rollouts' own noise
is in every row alike, so the rows compare; the judge is the rollouts' player.

    python scripts/labels/errors_vs_rollouts.py nets/runs/rollout-labels/mid.npz \\
        --chunks nets/runs/rollout-labels/mid-rollout36 --nets default runs/shape/s1k400
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.eval.evaluator import Evaluator  # noqa: E402
from engine.eval.forward import cubeless_equities  # noqa: E402
from engine.players.agent import Agent  # noqa: E402
from nets.player import resolve_net_path  # noqa: E402


def rolled_out(chunks: Path) -> tuple[np.ndarray, np.ndarray]:
    """(indices into the set, their rollout probabilities) of every chunk written so far."""
    indices, labels = [], []
    for path in sorted(chunks.glob("chunk-*[0-9].npz")):  # as relabel_set: not a .tmp.npz
        with np.load(path) as chunk:
            first, rows = int(chunk["first"]), chunk["labels"]
        indices.append(np.arange(first, first + len(rows)))
        labels.append(rows)
    if not indices:
        raise SystemExit(f"no chunks in {chunks}")
    return np.concatenate(indices), np.concatenate(labels)


def row(name: str, equities: np.ndarray, truth: np.ndarray) -> str:
    error = equities - truth[: len(equities)]
    rms, bias, absolute = np.sqrt(np.mean(error**2)), np.mean(error), np.mean(np.abs(error))
    spread = np.std(np.abs(error)) / np.sqrt(len(error))
    return f"| {name} | {len(error):,} | {rms:.4f} | {bias:+.4f} | {1000 * absolute:.1f} +/- {1000 * spread:.1f} |"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("set", type=Path, help="the label set the rollouts label")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--chunks", type=Path, help="the rollouts' chunk folder")
    source.add_argument("--truth", help="the set's own label key that holds the rollouts (no chunks)")
    parser.add_argument(
        "--family", type=int, help="with --truth: only the positions of this family (scripts/labels/split_set.py)"
    )
    parser.add_argument("--nets", nargs="*", default=["default"], help="nets to score at 0-ply and 1-ply")
    parser.add_argument(
        "--ply1", type=int, default=5000, help="positions for the 1-ply rows, every net's and gnubg's (0: none)"
    )
    args = parser.parse_args(argv)

    with np.load(args.set) as data:
        if args.truth is not None:
            indices = np.arange(len(data["boards"]))
            if args.family is not None:
                indices = indices[data["family"] == args.family]
            labels = data[args.truth][indices].astype(np.float32)
        else:
            indices, labels = rolled_out(args.chunks)
        boards = data["boards"][indices]
        count = len(data["boards"])
        own = {
            key: cubeless_equities(data[key][indices])
            for key in data.files
            if key not in ("boards", "sources", args.truth) and data[key].ndim == 2 and len(data[key]) == count
        }
    truth = cubeless_equities(labels)
    print("| evaluator | positions | RMS error | mean error | mean absolute error x1000 |\n|---|---|---|---|---|")
    for key, equities in own.items():
        print(row(f"label {key}", equities, truth))
    agents = {name: Agent(Evaluator.load(resolve_net_path(name)), ply=0) for name in args.nets}
    for name, agent in agents.items():
        print(row(f"{name} 0-ply", np.array([cubeless_equities(agent.probabilities(b, 0)) for b in boards]), truth))
    first = boards[: args.ply1]
    if args.ply1:
        for name, agent in agents.items():
            print(row(f"{name} 1-ply", np.array([cubeless_equities(agent.probabilities(b, 1)) for b in first]), truth))
    try:
        import gnubg_nn
    except ImportError:
        print("(gnubg-nn is not installed: no gnubg rows)", file=sys.stderr)
        return 0

    def gnubg(board, ply):  # its boards have the side on roll in row 1
        return cubeless_equities(np.array(gnubg_nn.probabilities(board[::-1].tolist(), ply)))

    print(row("gnubg 0-ply", np.array([gnubg(b, 0) for b in boards]), truth))
    if args.ply1:
        print(row("gnubg 1-ply", np.array([gnubg(b, 1) for b in first]), truth))
    return 0


if __name__ == "__main__":
    sys.exit(main())
