"""Select the positions where two labellers of committed label sets disagree most, as
a new label set for a deeper (costlier) labeller (wildbg's idea: spend deep search
where shallow search is unsure).

    python scripts/labels/build_disagreement_set.py nets/runs/sage-labels/h21.npz \
        nets/runs/sage-labels/h31-h32.npz nets/runs/sage-labels/dances.npz \
        --keys sage1 sage2 --count 300000 --out nets/runs/sage-labels/disagree.npz

The disagreement of a position is the difference of the two labellers' cubeless
equities. The output keeps both labels; ``scripts/labels/relabel_set.py`` then adds the deep
one in resumable chunks.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.eval.net import cubeless_equities  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("sources", nargs="+", help="label sets holding both keys")
    p.add_argument("--keys", nargs=2, default=["sage1", "sage2"])
    p.add_argument("--count", type=int, default=300000)
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    boards, first, second = [], [], []
    for path in args.sources:
        with np.load(path) as data:
            boards.append(data["boards"])
            first.append(data[args.keys[0]])
            second.append(data[args.keys[1]])
    boards, first, second = np.concatenate(boards), np.concatenate(first), np.concatenate(second)
    gap = np.abs(cubeless_equities(first) - cubeless_equities(second))
    keep = np.sort(np.argsort(-gap, kind="stable")[: args.count])
    source = (
        f"the {len(keep)} positions of {', '.join(args.sources)} where {args.keys[0]} and {args.keys[1]} "
        f"differ most in cubeless equity (at least {gap[keep].min():.4f}): "
        f"python scripts/labels/build_disagreement_set.py {' '.join(args.sources)} --keys {' '.join(args.keys)} "
        f"--count {args.count} --out {args.out}"
    )
    np.savez_compressed(
        args.out,
        boards=boards[keep],
        sources=np.array([source]),
        **{args.keys[0]: first[keep], args.keys[1]: second[keep]},
    )
    print(
        f"{len(keep)} of {len(boards)} positions, equity gap >= {gap[keep].min():.4f} "
        f"(median of all {np.median(gap):.4f}): {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
