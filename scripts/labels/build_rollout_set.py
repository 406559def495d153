"""Select the positions of committed label sets that a rollout labeller should label:
those of one class and phase (the diagnosis's, ``scripts/diagnosis/tags.py``), a seeded
sample of them, as a new label set that ``scripts/labels/relabel_set.py`` labels in chunks.

    python scripts/labels/build_rollout_set.py nets/runs/sage-labels/disagree.npz \
        --class contact --phase middle --count 50000 --seed 1 \
        --out nets/runs/rollout-labels/mid.npz

The labels the sources hold come along (``sage1``, ``sage2``, ``sage3`` where
present), so the rollouts can be compared with them position by position.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from scripts.diagnosis.tags import PHASES, phase, position_class  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("sources", nargs="+", help="label sets (.npz with boards)")
    p.add_argument("--class", dest="cls", default="contact", help="contact, crashed or race")
    p.add_argument("--phase", default="middle", help="the first word of a phase: early, middle or late")
    p.add_argument("--count", type=int, default=50000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    wanted_phase = next(label for label, _ in PHASES if label.startswith(args.phase))
    boards, labels = [], {}
    for path in args.sources:
        with np.load(path) as data:
            boards.append(data["boards"])
            for key in data.files:
                if key not in ("boards", "sources") and data[key].ndim == 2:
                    labels.setdefault(key, []).append(data[key])
    keys = [k for k, parts in labels.items() if len(parts) == len(args.sources)]
    all_boards = np.concatenate(boards)
    match = np.array([position_class(b) == args.cls and phase(b) == wanted_phase for b in all_boards])
    where = np.flatnonzero(match)
    if len(where) < args.count:
        p.error(f"only {len(where)} positions are {args.cls} in the {wanted_phase} phase")
    keep = np.sort(np.random.default_rng(args.seed).choice(where, args.count, replace=False))
    source = (
        f"{args.count} of the {len(where)} {args.cls} positions in the {wanted_phase} phase of "
        f"{', '.join(args.sources)} (seed {args.seed}): python scripts/labels/build_rollout_set.py "
        f"{' '.join(args.sources)} --class {args.cls} --phase {args.phase} --count {args.count} "
        f"--seed {args.seed} --out {args.out}"
    )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        args.out,
        boards=all_boards[keep],
        sources=np.array([source]),
        **{key: np.concatenate(labels[key])[keep] for key in keys},
    )
    print(f"{source}\n-> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
