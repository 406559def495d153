"""What ``fibsbot rollout --prune`` costs in accuracy: the same positions rolled out
with every move scored by the full net and with the pruning net passing K moves to
it (each K of ``--keep``), on the same dice, each compared with Open Sage's
evaluation where it is installed (an offline referee here, as in the benchmark set).

    python scripts/checks/rollout_prune_accuracy.py --positions 80 --games 1296 --seed 43 --keep 4 8
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.eval.net import cubeless_equities  # noqa: E402
from engine.rollout.cubeless import ROLLOUT_PRUNE_KEEP, rollout_position  # noqa: E402
from fibsbot.bench.search import decision_positions  # noqa: E402
from nets.player import load_agent  # noqa: E402
from nets.train.labellers import LabellerError, parse_labeller  # noqa: E402


def _label(keep: int) -> str:
    return f"pruned {keep}" if keep else "full"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--games", type=int, default=1296)
    parser.add_argument("--seed", type=int, default=41, help="self-play seed of the positions")
    parser.add_argument("--net", default="default")
    parser.add_argument("--referee", default="bgsage@3")
    parser.add_argument(
        "--keep",
        type=int,
        nargs="+",
        default=[ROLLOUT_PRUNE_KEEP],
        help=f"moves the pruning net passes on (default {ROLLOUT_PRUNE_KEEP})",
    )
    args = parser.parse_args()
    boards, _ = decision_positions(args.positions, seed=args.seed)
    agent = load_agent(f"net:{args.net}", ply=0)
    equities = {}
    for keep in [0, *args.keep]:
        start = time.process_time()
        equities[keep] = np.array(
            [rollout_position(b, args.games, agent=agent, seed=9, prune=keep).equity for b in boards]
        )
        rate = len(boards) * args.games / (time.process_time() - start)
        print(f"{_label(keep)}: {rate:.0f} games per CPU second")
    for keep in args.keep:
        diff = equities[keep] - equities[0]
        print(
            f"{_label(keep)} - full over {len(boards)} positions: mean {diff.mean():+.4f} +/- "
            f"{diff.std(ddof=1) / np.sqrt(len(diff)):.4f}, mean absolute {np.abs(diff).mean():.4f}"
        )
    try:
        reference = cubeless_equities(parse_labeller(args.referee).label(boards))
    except (LabellerError, ImportError) as exc:
        print(f"no referee: {exc}")
        return 0
    for keep in equities:
        err = equities[keep] - reference
        print(
            f"{_label(keep)} against {args.referee}: mean {err.mean():+.4f}, "
            f"mean absolute {np.abs(err).mean():.4f} +/- {np.abs(err).std(ddof=1) / np.sqrt(len(err)):.4f}, "
            f"rms {np.sqrt((err**2).mean()):.4f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
