"""What the pruning net costs in decisions and saves in time, at 2-ply.

The same positions (consecutive self-play turns with a choice) are decided by the
2-ply search with and without the pruning net; the script prints how often the move
differs, the equity the pruned choice gives up by the unpruned search's own figures,
and both times.

    python scripts/checks/check_pruning.py --positions 300 --seed 77
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.eval.evaluator import Evaluator  # noqa: E402
from engine.players.agent import Agent  # noqa: E402
from fibsbot.bench.search import decision_positions  # noqa: E402
from nets.player import resolve_net_path  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--seed", type=int, default=77)
    parser.add_argument("--net", default="default")
    args = parser.parse_args()
    evaluator = Evaluator.load(resolve_net_path(args.net))
    if evaluator.prune is None:
        raise SystemExit(f"{args.net} has no pruning net: fibsbot train prune --net {args.net}")
    full, pruned = Agent(evaluator, ply=2, prune=False), Agent(evaluator, ply=2, prune=True)
    positions, dice = decision_positions(args.positions, seed=args.seed)
    for agent in (full, pruned):  # compile outside the timing
        agent.choose_move(positions[0], int(dice[0, 0]), int(dice[0, 1]))
        agent.clear_cache()
    seconds = {}
    choices = {}
    for label, agent in (("full", full), ("pruned", pruned)):
        start = time.perf_counter()
        choices[label] = [agent.choose_move(b, int(d[0]), int(d[1])) for b, d in zip(positions, dice)]
        seconds[label] = time.perf_counter() - start
    same = 0
    losses = []
    for a, b in zip(choices["full"], choices["pruned"]):
        if np.array_equal(a.board, b.board):
            same += 1
            losses.append(0.0)
            continue
        by_full = {r.board.tobytes(): r.equity for r in a.ranked}
        losses.append(a.equity - by_full[b.board.tobytes()])
    n = len(positions)
    print(
        f"{n} 2-ply decisions: the pruned search plays the same move in {same} ({same / n:.1%}); "
        f"mean loss {np.mean(losses) * 1000:.2f} x1000 (by the full search's own equities), "
        f"largest {max(losses):.4f}"
    )
    print(
        f"time: full {seconds['full']:.1f} s, pruned {seconds['pruned']:.1f} s "
        f"({seconds['full'] / seconds['pruned']:.2f}x faster)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
