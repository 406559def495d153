"""The table level's decisions on a quiet machine and beside busy ones: the same?

Takes 40 match-play decisions (consecutive turns of self-play games from a fixed seed,
at the table bench's scores and cube states; each a cube decision and a move) with
``net:default@table``, once as the machine is, once beside ``--busy`` processes that
spin on a core each, and compares every move, the ply of every ranked move and every
cube action.  The table level's deeper look is bounded by work, not seconds
(``engine.players.table``), so the two runs must agree; the clock's safety cap, logged
as ``table_look_cut``, must not fire.

    .venv/bin/python scripts/checks/table_determinism.py [--decisions 40] [--seed 91] [--busy 3] [--workers 2]

Exit 0 when the runs agree, 1 when a decision differs; bad input exits 2.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np
from structlog.testing import capture_logs

from fibsbot.bench.search import decision_positions
from fibsbot.bench.table import _states
from nets.player import load_agent

BUSY_LOOP = "while True: pass"


def decide_all(workers: int, positions, dice, states) -> dict:
    """Every decision's cube action and move with the table level, timed, and the cap's firings."""
    agent = load_agent("net:default@table", workers=workers)
    agent.choose_move(positions[0], int(dice[0, 0]), int(dice[0, 1]), states[0])  # compile outside the timing
    agent.clear_cache()
    decisions: list[dict] = []
    seconds: list[float] = []
    with capture_logs() as logs:
        for board, (d1, d2), state in zip(positions, dice, states):
            start = time.perf_counter()
            cube = agent.double_decision(np.ascontiguousarray(board), state)
            choice = agent.choose_move(board, int(d1), int(d2), state)
            seconds.append(time.perf_counter() - start)
            plies = [[list(map(list, m.steps)), m.ply] for m in choice.ranked]
            decisions.append({"cube": cube.action, "cube_ply": cube.ply, "move": plies[0][0], "plies": plies})
    return {
        "decisions": decisions,
        "deeper_moves": sum(any(ply == 3 for _, ply in d["plies"]) for d in decisions),
        "deeper_cubes": sum(d["cube_ply"] == 3 for d in decisions),
        "turn_median_s": round(statistics.median(seconds), 3),
        "turn_max_s": round(max(seconds), 3),
        "cap_fired": sum(entry["event"] == "table_look_cut" for entry in logs),
        "load_after": [round(x, 2) for x in os.getloadavg()],
    }


def beside_busy(busy: int, run):
    """``run()`` while ``busy`` processes spin, each on a core of its own; they are ended after."""
    spinners = [subprocess.Popen([sys.executable, "-c", BUSY_LOOP]) for _ in range(busy)]
    try:
        time.sleep(1.0)  # let them take their cores before the first decision
        return run()
    finally:
        for proc in spinners:
            proc.kill()
            proc.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=40)
    parser.add_argument("--seed", type=int, default=91, help="the self-play games' seed (91: the table bench's)")
    parser.add_argument("--busy", type=int, default=3, help="busy-loop processes beside the second run")
    parser.add_argument("--workers", type=int, default=2, help="threads of the cubeful lookahead ([play] workers)")
    parser.add_argument("--json", action="store_true", help="print the comparison as one JSON object")
    args = parser.parse_args(argv)
    if args.decisions < 1 or args.busy < 0 or args.workers < 1:
        print("table_determinism: --decisions and --workers must be 1 or more, --busy 0 or more", file=sys.stderr)
        return 2
    positions, dice = decision_positions(args.decisions, seed=args.seed)
    states = _states(len(positions))
    quiet = decide_all(args.workers, positions, dice, states)
    loaded = beside_busy(args.busy, lambda: decide_all(args.workers, positions, dice, states))
    differ = [i for i, (a, b) in enumerate(zip(quiet["decisions"], loaded["decisions"])) if a != b]
    summary = {
        "decisions": len(positions),
        "seed": args.seed,
        "workers": args.workers,
        "busy": args.busy,
        "differ": differ,
        "same": not differ,
        **{f"quiet_{k}": v for k, v in quiet.items() if k != "decisions"},
        **{f"busy_{k}": v for k, v in loaded.items() if k != "decisions"},
    }
    if args.json:
        print(json.dumps(summary))
    else:
        for key, value in summary.items():
            print(f"{key:24s} {value}")
    return 0 if not differ else 1


if __name__ == "__main__":
    sys.exit(main())
