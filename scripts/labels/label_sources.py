#!/usr/bin/env python3
"""How close cheaper sources of labels come to a deep labeller, output by output.

Takes the positions of a relabelled directory (``fibsbot train relabel``: its labels
are the reference, e.g. Open Sage's 3-ply) and labels the same positions with each
SOURCE spec (``net:NAME@PLY``, ``bgsage@PLY``, ``rollout:GAMES:NAME``: the outcomes
of the net's own 0-ply self-play games, i.e. TD(1)'s Monte Carlo targets averaged
over GAMES games).  Prints, for each source and each of the five outputs, the mean
signed difference from the reference (bias) and the mean absolute difference, with
standard errors over positions.  A source whose gammon bias is smaller than the
net's own is one whose labels could correct the net's gammon estimates.

    python scripts/labels/label_sources.py runs/h31-sage3 net:x12e@0 bgsage@1 rollout:16:x12e --positions 1500
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from nets.train.harvest import load_harvest  # noqa: E402
from nets.train.labellers import parse_labeller  # noqa: E402

OUTPUTS = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")


def compare(reference: np.ndarray, labels: np.ndarray) -> dict:
    diff = labels.astype(np.float64) - reference.astype(np.float64)
    n = len(diff)
    out = {}
    for k, name in enumerate(OUTPUTS):
        d = diff[:, k]
        out[name] = {
            "bias": float(d.mean()),
            "bias_se": float(d.std(ddof=1) / np.sqrt(n)),
            "mae": float(np.abs(d).mean()),
            "mae_se": float(np.abs(d).std(ddof=1) / np.sqrt(n)),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reference", help="a relabelled directory whose labels are the reference")
    parser.add_argument("sources", nargs="+", help="labeller specs to compare with the reference")
    parser.add_argument("--positions", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    boards, reference = load_harvest(args.reference)
    boards, reference = boards[: args.positions], reference[: args.positions]
    report = {"reference": args.reference, "positions": len(boards), "sources": {}}
    for spec in args.sources:
        start = time.perf_counter()
        labels = parse_labeller(spec).label(boards, args.seed)
        result = compare(reference, labels)
        result["seconds"] = round(time.perf_counter() - start, 1)
        report["sources"][spec] = result
    if args.json:
        print(json.dumps(report))
        return
    print(f"reference {args.reference}, {len(boards)} positions (bias and mean |difference|, x1000, +/- 1 s.e.)")
    for spec, result in report["sources"].items():
        print(f"{spec} ({result['seconds']} s)")
        for name in OUTPUTS:
            r = result[name]
            print(
                f"  {name:16s} bias {1000 * r['bias']:+7.1f} +/- {1000 * r['bias_se']:4.1f}"
                f"   mae {1000 * r['mae']:6.1f} +/- {1000 * r['mae_se']:4.1f}"
            )


if __name__ == "__main__":
    main()
