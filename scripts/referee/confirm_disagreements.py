#!/usr/bin/env python3
"""The referee's second look: where two players chose different moves, roll out both
choices again, much longer and on dice independent of the first look.

A player's error at a decision is the best candidate's rolled-out equity minus its own
choice's, so the difference of two players' errors is the difference of their choices'
equities, whatever the best is: it needs no best candidate picked from noisy means, and
it is zero wherever the two chose alike.  The mean over all decisions of a group (the
disagreements summed, divided by every decision of the group) is the paired difference
of the two players' mean errors, with its standard error from the second rollouts alone.

    python scripts/referee/confirm_disagreements.py bench/match-play/referee-seed3535.jsonl \\
        --a net:default@table --b gnubg-1.07@2 --games 10368 --seed 777001 \\
        --out bench/match-play/referee-seed3535-confirm-table-gnubg.json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.cube.met import CubeView  # noqa: E402
from engine.rollout.cubeful import (  # noqa: E402
    CubefulSettings,
    mover_equities,
    rollout_after_moves,
    standard_error,
)
from engine.rollout.cubeless import ROLLOUT_PRUNE_KEEP  # noqa: E402
from engine.rules.ids import parse_xgid  # noqa: E402
from engine.rules.moves import MoveBuffers, generate_moves, steps_to_move  # noqa: E402
from engine.rules.notation import format_gnubg  # noqa: E402


def disagreements(rows: list[dict], a: str, b: str, play: str) -> list[dict]:
    """The checker decisions of ``play`` where ``a`` and ``b`` both chose, differently."""
    return [
        r
        for r in rows
        if r["kind"] == "checker" and r["play"] == play and a in r["picks"] and b in r["picks"]
        if r["picks"][a] != r["picks"][b]
    ]


def confirm(row: dict, a: str, b: str, games: int, seed: int, agent, buffers: MoveBuffers) -> dict:
    """``b``'s choice minus ``a``'s, rolled out again: per game, for the mover (EMG at the
    score, the cube's equity in money play)."""
    board, state = parse_xgid(row["xgid"])
    d1, d2 = row["dice"]
    n = generate_moves(board, d1, d2, *buffers.args())
    by_move = {format_gnubg(board, steps_to_move(buffers.steps[i])): buffers.boards[i].copy() for i in range(n)}
    moves = [row["candidates"][row["picks"][name]]["move"] for name in (a, b)]
    view = CubeView.of(state)
    settings = CubefulSettings(seed=seed, prune=ROLLOUT_PRUNE_KEEP)
    results = rollout_after_moves([by_move[move] for move in moves], view, games, settings, agent)
    diff = mover_equities(results[1], view) - mover_equities(results[0], view)
    first = row["errors"][a] - row["errors"][b]
    return {
        "xgid": row["xgid"],
        "scenario": row["scenario"],
        "moves": {a: moves[0], b: moves[1]},
        "first_look": first,
        "second_look": float(diff.mean()),
        "second_look_stderr": standard_error(diff),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=Path, help="the referee's JSON lines (scripts/referee/judge_match_play.py --out)")
    parser.add_argument("--a", default="net:default@table")
    parser.add_argument("--b", default="gnubg-1.07@2")
    parser.add_argument("--play", choices=("match", "money"), default="match")
    parser.add_argument("--games", type=int, default=10368)
    parser.add_argument("--seed", type=int, default=777001, help="dice of the second look (not the first's)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    import nets.player  # noqa: F401  registers net:NAME
    from nets.player import load_agent

    rows = [json.loads(line) for line in args.rows.read_text().splitlines() if line.strip()]
    group = [r for r in rows if r["kind"] == "checker" and r["play"] == args.play]
    todo = disagreements(rows, args.a, args.b, args.play)
    agent, buffers = load_agent("net:default", ply=0), MoveBuffers()
    confirmed = []
    for row in todo:
        start = time.perf_counter()
        result = confirm(row, args.a, args.b, args.games, args.seed, agent, buffers)
        confirmed.append(result)
        print(
            f"{1000 * result['first_look']:+8.1f} -> {1000 * result['second_look']:+8.1f} "
            f"+/- {1000 * result['second_look_stderr']:5.1f}  {result['moves'][args.a]} | {result['moves'][args.b]} "
            f"({time.perf_counter() - start:.0f} s)",
            file=sys.stderr,
            flush=True,
        )
    n = len(group)
    first = sum(r["first_look"] for r in confirmed) / n
    second = sum(r["second_look"] for r in confirmed) / n
    second_se = math.sqrt(sum(r["second_look_stderr"] ** 2 for r in confirmed)) / n
    summary = {
        "rows": str(args.rows),
        "a": args.a,
        "b": args.b,
        "play": args.play,
        "decisions": n,
        "disagreements": len(confirmed),
        "games": args.games,
        "seed": args.seed,
        "a_minus_b_first_look_x1000": 1000 * first,
        "a_minus_b_second_look_x1000": 1000 * second,
        "a_minus_b_second_look_stderr_x1000": 1000 * second_se,
        "confirmed": confirmed,
    }
    print(
        f"{args.a} minus {args.b}, {args.play} checker play, x1000 a decision over {n} decisions "
        f"({len(confirmed)} disagreements): first look {1000 * first:+.2f}, second look "
        f"{1000 * second:+.2f} +/- {1000 * second_se:.2f} ({args.games} games, seed {args.seed})"
    )
    if args.out:
        args.out.write_text(json.dumps(summary, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
