"""Build a label set of positions after a dance (``nets.train.dances``) from committed
label sets, labelled by any labeller spec; the result is a label set ``train fit`` reads.

    python scripts/labels/build_dance_set.py nets/runs/sage-labels/h21.npz \
        nets/runs/sage-labels/h31-h32.npz --labeller bgsage@1 --key sage1 \
        --out nets/runs/sage-labels/dances.npz
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from nets.train.dances import dance_positions
from nets.train.labellers import parse_labeller


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("sources", nargs="+", help="label sets (.npz with boards) whose positions are used")
    p.add_argument("--labeller", default="bgsage@1", help="labeller spec (default bgsage@1)")
    p.add_argument("--key", default="sage1", help="name of the label array in the output (default sage1)")
    p.add_argument("--out", required=True)
    p.add_argument("--chunk", type=int, default=20000, help="positions labelled per call")
    args = p.parse_args(argv)
    boards = np.concatenate([np.load(path)["boards"] for path in args.sources])
    positions = dance_positions(boards)
    labeller = parse_labeller(args.labeller)
    labeller.require()
    start = time.perf_counter()
    labels = np.concatenate(
        [labeller.label(positions[i : i + args.chunk]) for i in range(0, len(positions), args.chunk)]
    )
    source = (
        f"positions after a dance (nets.train.dances) from {', '.join(args.sources)}; "
        f"labelled by {args.labeller}: python scripts/labels/build_dance_set.py {' '.join(args.sources)} "
        f"--labeller {args.labeller} --key {args.key} --out {args.out}"
    )
    np.savez_compressed(args.out, boards=positions, sources=np.array([source]), **{args.key: labels.astype(np.float16)})
    print(
        f"{len(positions)} positions after a dance from {len(boards)}, labelled by {args.labeller} in "
        f"{time.perf_counter() - start:.0f} s: {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
