#!/usr/bin/env python3
"""Checker play judged by rollouts: the table level against GNU Backgammon's 2-ply.

Decisions are contact turns with a real choice from pubeval self-play (seeded, a
seed nobody tuned on).  At each, the players pick their moves (cubeless money):
ours at the table level (``net:default@table``) and at 2-ply, gnubg-nn at 0 and 2
plies (``best_move(..., n=PLY)``).  Every move one of them picked, plus the best few
of our 2-ply ranking, is rolled out with the same dice (common random numbers) by
our 0-ply rollouts (the pruning net keeping 8, bearoff truncation): a judge that is
not the table level itself.  A player's error at a decision is the rollout equity of
the best rolled-out move minus that of its own; the report gives each player's mean
error (x1000 equity a decision) with its standard error, and the ratio of the table
level's to gnubg 2-ply's.  With ``--sage``, Open Sage's 3-ply (bgsage, whose labels
our nets learned from) judges the same moves beside the rollouts.

Results are appended to ``--out`` one decision a line and a rerun skips what is
there, so a long run can be stopped and resumed.

    python scripts/referee/judge_checker_play.py --decisions 200 --seed 4711 --games 1296 --out bench/judge.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.players.registry import GnubgPlayer  # noqa: E402
from engine.rollout.cubeless import ROLLOUT_PRUNE_KEEP, rollout_position  # noqa: E402
from engine.rollout.selfplay_sample import sample_positions  # noqa: E402
from engine.rules.moves import MoveBuffers, generate_moves  # noqa: E402
from engine.rules.position import Position, position_id  # noqa: E402
from nets.player import load_agent  # noqa: E402

TOP = 3  # the best of our 2-ply ranking rolled out beside the players' choices
PLAYERS = ("net:default@table", "net:default@2", "gnubg2", "gnubg0")


def decisions(count: int, seed: int) -> list[tuple[np.ndarray, tuple[int, int]]]:
    buffers = MoveBuffers()
    chosen = []
    for sample in sample_positions(count * 6, seed, players=("pubeval",)):
        board = np.ascontiguousarray(sample.board, np.int8)
        if not Position(board).has_contact():
            continue
        if generate_moves(board, *sample.dice, *buffers.args()) > 1:
            chosen.append((board, (int(sample.dice[0]), int(sample.dice[1]))))
        if len(chosen) == count:
            break
    return chosen


def key(board: np.ndarray) -> bytes:
    return np.ascontiguousarray(board, np.int8).tobytes()


class Judge:
    def __init__(self, games: int, sage: bool) -> None:
        self.games = games
        self.table = load_agent("net:default@table")
        self.two = load_agent("net:default@2")
        self.roller = load_agent("net:default@0")
        self.gnubg = {"gnubg2": GnubgPlayer(2), "gnubg0": GnubgPlayer(0)}
        self.buffers = MoveBuffers()
        self.sage = None
        if sage:
            import bgsage

            self.sage = bgsage.BgBotAnalyzer(eval_level="3ply", cubeful=False, parallel_threads=1)

    def picks(self, board: np.ndarray, dice: tuple[int, int]) -> tuple[dict[str, bytes], list[np.ndarray]]:
        n = generate_moves(board, *dice, *self.buffers.args())
        candidates = self.buffers.boards[:n].copy()
        picks = {"net:default@table": key(self.table.choose_move(board, *dice).board)}
        ranked = self.two.choose_move(board, *dice).ranked
        picks["net:default@2"] = key(ranked[0].board)
        for name, player in self.gnubg.items():
            picks[name] = key(candidates[player.choose(board, *dice, candidates)])
        pool = {k: None for k in picks.values()} | {key(m.board): None for m in ranked[:TOP]}
        boards = {key(c): c for c in candidates}
        return picks, [boards[k] for k in pool]

    def rollouts(self, afters: list[np.ndarray], seed: int) -> list[tuple[float, np.ndarray]]:
        out = []
        for after in afters:
            result = rollout_position(
                np.ascontiguousarray(after[::-1]), self.games, agent=self.roller, seed=seed, prune=ROLLOUT_PRUNE_KEEP
            )
            out.append(-result.equities)  # the opponent's outcomes, turned to the mover's
        return out

    def sage_equities(self, board: np.ndarray, dice: tuple[int, int], afters: list[np.ndarray]) -> list[float] | None:
        if self.sage is None:
            return None
        from nets.train.labellers import sage_board

        # its moves' boards are seen by the mover, as ours after a move (mover in row 0)
        by_board = {
            tuple(move.board): float(move.equity) for move in self.sage.checker_play(sage_board(board), *dice).moves
        }
        return [by_board.get(tuple(sage_board(a))) for a in afters]


def judge_one(judge: Judge, index: int, board: np.ndarray, dice: tuple[int, int], seed: int) -> dict:
    picks, afters = judge.picks(board, dice)
    outcomes = judge.rollouts(afters, seed * 100003 + index)
    means = [float(o.mean()) for o in outcomes]
    best = int(np.argmax(means))
    keys = [key(a) for a in afters]
    row = {
        "index": index,
        "position": position_id(board),
        "board": board.tolist(),
        "dice": list(dice),
        "candidates": len(afters),
        "equities": means,
        "errors": {},
        "error_stderr": {},
    }
    for name, pick in picks.items():
        j = keys.index(pick)
        diff = outcomes[best] - outcomes[j]
        row["errors"][name] = float(diff.mean())
        row["error_stderr"][name] = float(diff.std(ddof=1) / math.sqrt(len(diff))) if j != best else 0.0
    sage = judge.sage_equities(board, dice, afters)
    if sage is not None and all(v is not None for v in sage):
        top = max(sage)
        row["sage_errors"] = {name: top - sage[keys.index(pick)] for name, pick in picks.items()}
    return row


def summary(rows: list[dict]) -> dict:
    out = {"decisions": len(rows), "players": {}}
    for name in PLAYERS:
        errors = np.array([r["errors"][name] for r in rows])
        entry = {
            "error_x1000": 1000 * float(errors.mean()),
            "stderr_x1000": 1000 * float(errors.std(ddof=1) / math.sqrt(len(errors))) if len(errors) > 1 else 0,
        }
        sage = [r["sage_errors"][name] for r in rows if "sage_errors" in r]
        if sage:
            entry["sage3_error_x1000"] = 1000 * float(np.mean(sage))
            entry["sage3_decisions"] = len(sage)
        out["players"][name] = entry
    if len(rows) > 1:
        diff = np.array([r["errors"]["net:default@table"] - 0.8 * r["errors"]["gnubg2"] for r in rows])
        table, gnubg = out["players"]["net:default@table"], out["players"]["gnubg2"]
        out["table_over_gnubg2"] = table["error_x1000"] / gnubg["error_x1000"] if gnubg["error_x1000"] else None
        out["table_minus_0.8_gnubg2_x1000"] = {
            "mean": 1000 * float(diff.mean()),
            "stderr": 1000 * float(diff.std(ddof=1) / math.sqrt(len(diff))),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decisions", type=int, default=200)
    parser.add_argument("--seed", type=int, default=4711, help="self-play seed of the decisions")
    parser.add_argument("--games", type=int, default=1296, help="rollout games a candidate (default 1296)")
    parser.add_argument("--sage", action="store_true", help="also judge by Open Sage's 3-ply (bgsage extra)")
    parser.add_argument("--out", type=Path, required=True, help="JSON lines, one decision each (resumable)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    done = {}
    if args.out.exists():
        for line in args.out.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                done[row["index"]] = row
    judge = Judge(args.games, args.sage)
    start = time.perf_counter()
    with args.out.open("a") as sink:
        for index, (board, dice) in enumerate(decisions(args.decisions, args.seed)):
            if index in done:
                continue
            row = judge_one(judge, index, board, dice, args.seed)
            sink.write(json.dumps(row) + "\n")
            sink.flush()
            done[index] = row
    result = summary([done[i] for i in sorted(done)]) | {
        "seed": args.seed,
        "games": args.games,
        "seconds": round(time.perf_counter() - start, 1),
    }
    print(json.dumps(result, indent=None if args.json else 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
