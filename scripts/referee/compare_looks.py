#!/usr/bin/env python3
"""The referee's games where players differ: compare a table level's possible deeper
looks (and gnubg 1.07's 2-ply) on match-play checker decisions, rolling out only the
decisions where the players chose differently, long, on common dice.

A player's error is the best pooled candidate's rolled-out equity minus its own
choice's; wherever all players chose alike every error is zero and nothing is rolled
out, so the games go where the differences are.  Two players' paired difference at a
decision needs no best candidate (the difference of their choices' equities), and its
standard error comes from the candidates' covariance over the common-dice games.

    nice -n 10 python scripts/referee/compare_looks.py --seed 3502 --decisions 400 --games 5184 \\
        --looks 2ply table mean23 roller36x5 roller144x5 roller72x10 \\
        --out bench/match-play/looks-seed3502.jsonl
    python scripts/referee/compare_looks.py --seed 3502 --out bench/match-play/looks-seed3502.jsonl.gz --summary

Tune on seeds of your own choosing; the acceptance seeds must be fresh.  A rerun skips
the decisions already in ``--out``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from scripts.referee.decisions import checker_decisions  # noqa: E402
from scripts.referee.gnubg_answers import gnubg_available, gnubg_moves  # noqa: E402

GNUBG = "gnubg-1.07@2"
CHUNK = 8


def judge(decision, agents: dict, gnubg_answer, games: int, seed: int, roller, buffers) -> dict:
    from engine.cube.met import CubeView
    from engine.rollout.cubeful import CubefulSettings, mover_equities, rollout_after_moves
    from engine.rollout.cubeless import ROLLOUT_PRUNE_KEEP
    from engine.rules.notation import format_gnubg
    from scripts.referee.judge_checker_play import key
    from scripts.referee.judging import legal_results, pooled

    board, (d1, d2), state = decision.board, decision.dice, decision.state
    legal = legal_results(decision, buffers)
    picks, seconds = {}, {}
    for name, agent in agents.items():
        start = time.perf_counter()
        picks[name] = key(agent.choose_move(board, d1, d2, state).board)
        seconds[name] = round(time.perf_counter() - start, 3)
    if gnubg_answer is not None:
        picks[GNUBG] = key(gnubg_answer[1])
    pool = pooled(decision, legal, list(picks.values()))
    row = {
        "index": decision.index,
        "seed": seed,
        "scenario": decision.scenario.label,
        "xgid": decision.xgid,
        "dice": [d1, d2],
        "candidates": [format_gnubg(board, legal[k][1]) for k in pool],
        "picks": {name: pool.index(pick) for name, pick in picks.items()},
        "seconds": seconds,
        "games": 0,
        "means": [0.0] * len(pool),
        "covariance": [[0.0] * len(pool) for _ in pool],
    }
    if len(pool) > 1:
        view = CubeView.of(state)
        settings = CubefulSettings(seed=seed * 100003 + decision.index, prune=ROLLOUT_PRUNE_KEEP)
        results = rollout_after_moves([legal[k][0] for k in pool], view, games, settings, roller)
        equities = np.stack([mover_equities(result, view) for result in results])
        row |= {
            "games": games,
            "means": [float(e.mean()) for e in equities],
            "covariance": (np.cov(equities) / games).tolist(),
        }
    return row


def summarise(rows: list[dict], reference: str) -> dict:
    """Each player's mean error (x1000 EMG a decision) against the pool's best, and its
    paired difference to ``reference``, each with its standard error."""
    names = sorted({name for row in rows for name in row["picks"]})
    out = {"decisions": len(rows), "rolled_out": sum(1 for r in rows if r["games"]), "players": {}}
    for name in names:
        mine = [r for r in rows if name in r["picks"]]
        err, err_var, diff, diff_var = 0.0, 0.0, 0.0, 0.0
        for r in mine:
            means, cov = np.array(r["means"]), np.array(r["covariance"])
            best, own = int(np.argmax(means)), r["picks"][name]
            err += means[best] - means[own]
            err_var += cov[best, best] + cov[own, own] - 2 * cov[best, own]
            if reference in r["picks"]:
                ref = r["picks"][reference]
                diff += means[ref] - means[own]
                diff_var += cov[ref, ref] + cov[own, own] - 2 * cov[ref, own]
        n = max(len(mine), 1)
        out["players"][name] = {
            "decisions": len(mine),
            "error_x1000": 1000 * err / n,
            "error_stderr_x1000": 1000 * math.sqrt(err_var) / n,
            f"minus_{reference}_x1000": 1000 * diff / n,
            f"minus_{reference}_stderr_x1000": 1000 * math.sqrt(diff_var) / n,
            "median_seconds": float(np.median([r.get("seconds", {}).get(name, 0.0) for r in mine] or [0.0])),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--decisions", type=int, default=400, help="match-play checker decisions (default 400)")
    parser.add_argument("--games", type=int, default=5184, help="rollout games a candidate (default 5184)")
    parser.add_argument("--looks", nargs="+", default=["2ply", "table", "mean23", "roller36x5"])
    parser.add_argument("--no-gnubg", action="store_true")
    parser.add_argument("--reference", default="net:default@table", help="the player the others are paired with")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--summary", action="store_true", help="summarise --out; judge nothing")
    args = parser.parse_args(argv)
    done = {}
    if args.out.exists():
        text = gzip.decompress(args.out.read_bytes()).decode() if args.out.suffix == ".gz" else args.out.read_text()
        for line in text.splitlines():
            if line.strip():
                row = json.loads(line)
                if row["seed"] != args.seed:
                    raise SystemExit(f"{args.out} holds seed {row['seed']}, not {args.seed}")
                done[row["index"]] = row
    if not args.summary and args.out.suffix == ".gz":
        parser.error(f"{args.out}: a compressed file can only be summarised (--summary)")
    if not args.summary:
        use_gnubg = not args.no_gnubg
        if use_gnubg and not gnubg_available():
            parser.error("GNU Backgammon 1.07 is not at /usr/games/gnubg (or pass --no-gnubg)")
        import nets.player  # noqa: F401  registers net:NAME
        from engine.eval.evaluator import Evaluator
        from engine.rollout.cubeless import rollout_agent
        from engine.rules.moves import MoveBuffers
        from nets.player import resolve_net_path
        from scripts.referee.looks import look_agent

        evaluator = Evaluator.load(resolve_net_path("default"))
        agents = {f"net:default@{look}": look_agent(look, evaluator) for look in args.looks}
        roller, buffers = rollout_agent("net:default"), MoveBuffers()
        todo = [d for d in checker_decisions(args.decisions, 0, args.seed) if d.index not in done]
        print(f"compare_looks: {len(done)} done, {len(todo)} to go", file=sys.stderr, flush=True)
        start = time.perf_counter()
        args.out.parent.mkdir(parents=True, exist_ok=True)
        with args.out.open("a") as sink:
            for first in range(0, len(todo), CHUNK):
                chunk = todo[first : first + CHUNK]
                answers = gnubg_moves(chunk) if use_gnubg else [None] * len(chunk)
                for decision, answer in zip(chunk, answers):
                    row = judge(decision, agents, answer, args.games, args.seed, roller, buffers)
                    sink.write(json.dumps(row) + "\n")
                    sink.flush()
                    done[row["index"]] = row
                print(
                    f"compare_looks: {first + len(chunk)}/{len(todo)} in {time.perf_counter() - start:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
    summary = summarise([done[k] for k in sorted(done)], args.reference) | {"seed": args.seed}
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
