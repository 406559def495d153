#!/usr/bin/env python3
"""Trial: which pick among close moves does Open Sage's cubeless 3-ply like best?

The table level looks one ply deeper (3-ply) at the best moves of its 2-ply when
they lie within ``CLOSE_MOVE`` of each other.  On contact decisions of a seed, this
writes each decision's close candidates with their cubeless 2-ply and 3-ply equities
and Open Sage's 3-ply equity (the bgsage extra), then reports the mean error
(x1000, by Open Sage) of picking by 2-ply, by 3-ply and by a weighted mean of the
two, each paired against the 2-ply pick.  Run on a seed nobody tunes the
acceptance on (the checker-play acceptance uses 4711).

    python scripts/trials/close_moves.py --seed 5150 --decisions 300 --out close.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.players.table import _scored, close_leaders  # noqa: E402
from nets.player import load_agent  # noqa: E402
from scripts.judge_checker_play import decisions, key  # noqa: E402

PICKS = (("2-ply", 0.0), ("3-ply", 1.0), ("mean 1:1", 0.5), ("mean 3:1 for 2-ply", 0.25), ("mean 1:3", 0.75))


def collect(seed: int, count: int, out: Path) -> None:
    import bgsage

    from nets.train.labellers import sage_board

    two = load_agent("net:default@2")
    sage = bgsage.BgBotAnalyzer(eval_level="3ply", cubeful=False, parallel_threads=1)
    with out.open("w") as sink:
        for index, (board, dice) in enumerate(decisions(count, seed)):
            ranked = two.choose_move(board, *dice).ranked
            depth = max(m.ply for m in ranked)
            top = _scored(two.tree, [m for m in ranked if m.ply == depth], None, depth)
            close = close_leaders(top)
            candidates = close if len(close) > 1 else top[:1]
            three = {key(m.board): m.equity for m in _scored(two.tree, close, None, 3)} if len(close) > 1 else {}
            sage_equity = {tuple(m.board): float(m.equity) for m in sage.checker_play(sage_board(board), *dice).moves}
            moves = [
                {"e2": m.equity, "e3": three.get(key(m.board)), "sage": sage_equity.get(tuple(sage_board(m.board)))}
                for m in candidates
            ]
            row = {"index": index, "dice": list(dice), "board": board.tolist(), "close": len(close)}
            sink.write(json.dumps(row | {"moves": moves, "sage_best": max(sage_equity.values())}) + "\n")


def report(path: Path) -> None:
    rows = [json.loads(line) for line in path.open()]
    rows = [r for r in rows if all(m["sage"] is not None for m in r["moves"])]
    print(
        f"{len(rows)} decisions, {sum(r['close'] > 1 for r in rows)} with close moves; error x1000 by Open Sage 3-ply"
    )

    def errors(weight: float) -> list[float]:
        def score(m: dict) -> float:
            return m["e2"] if m["e3"] is None else weight * m["e3"] + (1 - weight) * m["e2"]

        return [r["sage_best"] - max(r["moves"], key=score)["sage"] for r in rows]

    base = errors(0.0)
    for name, weight in PICKS:
        errs = errors(weight)
        diff = [a - b for a, b in zip(errs, base)]
        mean = sum(diff) / len(diff)
        se = math.sqrt(sum((x - mean) ** 2 for x in diff) / (len(diff) - 1) / len(diff))
        print(f"{name:20s} {1000 * sum(errs) / len(errs):.3f}   minus 2-ply {1000 * mean:+.3f} +/- {1000 * se:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=5150)
    parser.add_argument("--decisions", type=int, default=300)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--report-only", action="store_true", help="report on an existing --out")
    args = parser.parse_args()
    if not args.report_only:
        collect(args.seed, args.decisions, args.out)
    report(args.out)


if __name__ == "__main__":
    main()
