"""Split labelled sets into a training set and a test set that no fit may see: a seeded
share of each source set goes to the test set, so each family of positions (a back game
held by the side on roll, one held against it) is in both in proportion.

    python scripts/labels/split_set.py nets/runs/back-games/side-a.npz nets/runs/back-games/side-b.npz \\
        --key rollout36 --test-share 0.25 --seed 11 \\
        --train nets/runs/back-games/train.npz --test nets/runs/back-games/test.npz

Each output holds ``boards``, the labels under ``--key``, ``family`` (the index of its
source set) and ``sources`` (every source set's, and this command).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("sets", nargs="+", help="labelled sets (.npz with boards and --key)")
    p.add_argument("--key", required=True, help="the labels to keep, e.g. rollout36")
    p.add_argument("--test-share", type=float, default=0.25, help="the share of each set held out (default 0.25)")
    p.add_argument("--seed", type=int, default=11)
    p.add_argument("--train", type=Path, required=True)
    p.add_argument("--test", type=Path, required=True)
    args = p.parse_args(argv)
    if not 0 < args.test_share < 1:
        p.error("--test-share must be between 0 and 1")
    rng = np.random.default_rng(args.seed)
    parts: dict[str, list[np.ndarray]] = {"train": [], "test": []}
    labels: dict[str, list[np.ndarray]] = {"train": [], "test": []}
    families: dict[str, list[np.ndarray]] = {"train": [], "test": []}
    sources = []
    for family, path in enumerate(args.sets):
        with np.load(path) as data:
            if args.key not in data.files:
                p.error(f"{path} has no labels {args.key!r}")
            boards, rows = data["boards"], data[args.key]
            sources += [f"{Path(path).name}: {s}" for s in data["sources"]] if "sources" in data.files else []
        order = rng.permutation(len(boards))
        cut = int(round(len(boards) * args.test_share))
        for name, chosen in (("test", np.sort(order[:cut])), ("train", np.sort(order[cut:]))):
            parts[name].append(boards[chosen])
            labels[name].append(rows[chosen])
            families[name].append(np.full(len(chosen), family, np.int8))
    command = "python scripts/labels/split_set.py " + " ".join(sys.argv[1:] if argv is None else argv)
    for name, out in (("train", args.train), ("test", args.test)):
        out.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(
            out,
            boards=np.concatenate(parts[name]),
            family=np.concatenate(families[name]),
            sources=np.array([*sources, f"the {name} share: {command}"]),
            **{args.key: np.concatenate(labels[name])},
        )
        print(f"{sum(len(b) for b in parts[name]):,} positions -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
