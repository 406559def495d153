"""Does rolling candidates out with common dice shrink the standard error of their
difference?  For self-play decisions, the two best 0-ply moves are rolled out with
the same dice (common random numbers) and with independent dice; the script prints
the standard error of the difference both ways.

    python scripts/measure_crn.py --decisions 12 --games 1296 --seed 1
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.rollout.cubeless import rollout_position  # noqa: E402
from engine.rollout.selfplay_sample import sample_positions  # noqa: E402
from engine.rules.moves import MoveBuffers, generate_moves  # noqa: E402
from nets.player import load_agent  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=12)
    parser.add_argument("--games", type=int, default=1296)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    agent = load_agent("net:default@0")
    buffers = MoveBuffers()
    ratios = []
    rows = []
    for sample in sample_positions(args.decisions * 40, args.seed, players=("pubeval",)):
        if len(rows) == args.decisions:
            break
        if generate_moves(sample.board, *sample.dice, *buffers.args()) < 2 or not sample.board[:, 6:].any():
            continue
        first, second = agent.rank_moves(sample.board, *sample.dice, ply=0)[:2]
        a, b = (np.ascontiguousarray(m.board[::-1]) for m in (first, second))
        ra = rollout_position(a, args.games, agent=agent, seed=args.seed + 100)
        rb = rollout_position(b, args.games, agent=agent, seed=args.seed + 100)  # the same dice
        rc = rollout_position(b, args.games, agent=agent, seed=args.seed + 200)  # other dice
        common = (ra.equities - rb.equities).std(ddof=1) / math.sqrt(args.games)
        independent = math.hypot(ra.equity_stderr, rc.equity_stderr)
        rows.append((common, independent))
        ratios.append(common / independent)
        print(
            f"decision {len(rows):2d}: s.e. of the difference {common:.4f} with common dice, "
            f"{independent:.4f} with independent dice (ratio {common / independent:.2f})",
            flush=True,
        )
    print(
        f"{len(rows)} decisions x {args.games} games per move: mean ratio {np.mean(ratios):.3f}, "
        f"median {np.median(ratios):.3f}, common dice smaller in {sum(r < 1 for r in ratios)} of {len(rows)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
