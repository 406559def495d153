"""Label committed sets' positions by the mean of several nets' 0-ply probabilities (an
ensemble), for a net of the same size to learn from (distillation): one output file a set,
with the set's boards in the set's order, so ``fibsbot train fit``'s held-out split (and
``scripts/training/dense_fit.py``'s) is the same as on the set itself.

    python scripts/labels/ensemble_labels.py nets/runs/sage-labels/h21.npz ... \
        --nets runs/shape/d400x128 runs/shape/d400x128s2 --key ens --out-dir /tmp/ens

Each file is ``OUT_DIR/NAME.npz`` (boards, the key, sources); the commands that use it
name ``OUT_DIR/NAME.npz:KEY``.  The labels come from our nets alone (whatever their own
labels came from), never from GNU Backgammon.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.eval.evaluator import Evaluator  # noqa: E402
from nets.player import resolve_net_path  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("sets", nargs="+", help="label sets (.npz with boards)")
    p.add_argument("--nets", nargs="+", required=True, help="the nets whose mean labels the positions")
    p.add_argument("--key", default="ens")
    p.add_argument("--out-dir", type=Path, required=True)
    args = p.parse_args(argv)
    evaluators = [Evaluator.load(resolve_net_path(name)) for name in args.nets]
    args.out_dir.mkdir(parents=True, exist_ok=True)
    for path in args.sets:
        start = time.perf_counter()
        with np.load(path) as data:
            boards = data["boards"]
        labels = np.mean([evaluator.probabilities(boards) for evaluator in evaluators], axis=0)
        out = args.out_dir / Path(path).name
        source = (
            f"{args.key}: the mean of {', '.join(args.nets)}'s 0-ply probabilities (scripts/labels/ensemble_labels.py)"
        )
        tmp = out.with_suffix(".tmp.npz")
        np.savez(tmp, boards=boards, sources=np.array([source]), **{args.key: labels.astype(np.float32)})
        tmp.replace(out)
        print(f"{out}: {len(boards)} positions in {time.perf_counter() - start:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
