#!/usr/bin/env python3
"""A neutral referee of match play: decisions judged by cubeful rollouts (issue 35, part 2).

Fresh decisions at seven-point match scores (cube centred and owned, Crawford and
post-Crawford games among them) and in money play (Jacoby off, as on FIBS): contact
checker decisions from pubeval self-play and cube decisions from our net's
self-play, from ``--seed`` (see ``scripts/referee/decisions.py``).

Players: ``net:default@table`` (our table level), ``net:default@2``, GNU Backgammon
1.07 at 2-ply (its ``hint`` at the score, world-class settings) and, for checker
play, gnubg-nn's cubeless 2-ply.  The judge is our cubeful rollouts (0-ply inside,
the pruning net keeping 8, one process): at a checker decision every player's move
and the best 3 of our 2-ply ranking are rolled out on the same dice; at a cube
decision no double and double/take are, double/drop being exact.  A player's error
is what its choice gives up against the best by the rollout: EMG at the score, the
starting cube's equity in money play.  The summary gives each player's mean error
x1000 with its standard error, for match checker, money checker, match cube and
money cube decisions, and the table level's ratio to gnubg 2-ply's.

Results go to ``--out``, one decision a line; a rerun skips what is there, so a long
run can be stopped and resumed.  Seed 3535 is the acceptance run's; it was not used
to tune anything (choose tuning seeds elsewhere):

    nice -n 10 python scripts/referee/judge_match_play.py --decisions 300 --cube-decisions 300 \\
        --seed 3535 --games 1296 --out bench/match-play/referee-seed3535.jsonl
    python scripts/referee/judge_match_play.py --seed 3535 --out bench/match-play/referee-seed3535.jsonl --summary
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from scripts.referee.decisions import CHECKER, checker_decisions, cube_decisions, interleaved  # noqa: E402
from scripts.referee.gnubg_answers import gnubg_available, gnubg_cubes, gnubg_moves  # noqa: E402
from scripts.referee.summary import format_summary, summarise  # noqa: E402

CHUNK = 8  # decisions gnubg answers in one run: a stopped run loses at most these


def row_key(row: dict) -> tuple[str, str, int]:
    return (row["kind"], row["play"], row["index"])


def load_rows(path: Path, seed: int | None) -> dict[tuple[str, str, int], dict]:
    """The decisions already judged in ``path``; refuses a file of another seed."""
    done = {}
    if not path.exists():
        return done
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        if seed is not None and row["seed"] != seed:
            raise SystemExit(f"{path} holds decisions of seed {row['seed']}, not {seed}: use another --out")
        done[row_key(row)] = row
    return done


def judge_chunk(referee, chunk: list, use_gnubg: bool) -> list[dict]:
    checkers = [d for d in chunk if d.kind == CHECKER]
    cubes = [d for d in chunk if d.kind != CHECKER]
    moves = dict(zip((d.key for d in checkers), gnubg_moves(checkers))) if use_gnubg and checkers else {}
    hints = dict(zip((d.key for d in cubes), gnubg_cubes(cubes))) if use_gnubg and cubes else {}
    rows = []
    for decision in chunk:
        if decision.kind == CHECKER:
            answer = moves.get(decision.key)
            if use_gnubg and answer is None:
                print(f"judge_match_play: gnubg gave no move at {decision.xgid}", file=sys.stderr)
            rows.append(referee.judge_checker(decision, answer))
        else:
            rows.append(referee.judge_cube(decision, hints.get(decision.key)))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decisions", type=int, default=300, help="match-play checker decisions (default 300)")
    parser.add_argument(
        "--money-decisions", type=int, help="money-play checker decisions (default: half of --decisions)"
    )
    parser.add_argument("--cube-decisions", type=int, default=300, help="cube decisions, match and money (default 300)")
    parser.add_argument("--seed", type=int, required=True, help="self-play seed of the decisions (not a tuning seed)")
    parser.add_argument("--games", type=int, default=1296, help="rollout games a candidate (default 1296)")
    parser.add_argument("--out", type=Path, required=True, help="JSON lines, one decision each (resumable)")
    parser.add_argument("--summary", action="store_true", help="summarise --out as it is; judge nothing")
    parser.add_argument("--no-gnubg", action="store_true", help="leave GNU Backgammon 1.07 out")
    parser.add_argument(
        "--also",
        action="append",
        default=[],
        metavar="SPEC",
        help="judge this player of ours too (net:NAME@LEVEL, e.g. net:default@roller), for trials on tuning seeds",
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = parser.parse_args(argv)
    done = load_rows(args.out, args.seed)
    start = time.perf_counter()
    if not args.summary:
        use_gnubg = not args.no_gnubg
        if use_gnubg and not gnubg_available():
            parser.error("GNU Backgammon 1.07 is not at /usr/games/gnubg (or pass --no-gnubg)")
        from scripts.referee.judging import Referee

        money = args.decisions // 2 if args.money_decisions is None else args.money_decisions
        checkers = checker_decisions(args.decisions, money, args.seed)
        todo = interleaved(
            [
                [d for d in checkers if d.play == "match"],
                [d for d in checkers if d.play == "money"],
                cube_decisions(args.cube_decisions, args.seed),
            ]
        )
        todo = [d for d in todo if d.key not in done]
        print(f"judge_match_play: {len(done)} judged already, {len(todo)} to go", file=sys.stderr)
        referee = Referee(args.games, args.seed, also=tuple(args.also))
        args.out.parent.mkdir(parents=True, exist_ok=True)
        with args.out.open("a") as sink:
            for first in range(0, len(todo), CHUNK):
                for row in judge_chunk(referee, todo[first : first + CHUNK], use_gnubg):
                    sink.write(json.dumps(row) + "\n")
                    sink.flush()
                    done[row_key(row)] = row
                elapsed = time.perf_counter() - start
                judged = min(first + CHUNK, len(todo))
                print(
                    f"judge_match_play: {judged}/{len(todo)} in {elapsed:.0f} s "
                    f"({60 * judged / elapsed:.1f} decisions a minute)",
                    file=sys.stderr,
                    flush=True,
                )
    rows = [done[k] for k in sorted(done)]
    summary = summarise(rows) | {
        "seed": args.seed,
        "games": sorted({row["games"] for row in rows}),
        "seconds": round(time.perf_counter() - start, 1),
    }
    print(json.dumps(summary, indent=2) if args.json else format_summary(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
