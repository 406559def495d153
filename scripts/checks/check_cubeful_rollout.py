#!/usr/bin/env python3
"""Our cubeful rollouts against GNU Backgammon's own, position by position.

Fixed positions (turns of pubeval self-play, before the roll, seeded) under a dozen
cube situations: money with the cube centred, owned and the opponent's (Jacoby off);
a seven-point match at five scores with the cube centred and owned; a Crawford game
from both sides; post-Crawford games from both sides (the trailer's free double).
Each position is rolled out by gnubg 1.07 (``set rollout cubeful on``, 0-ply chequer
play and cube decisions, its rollout of the current position, in which the side on
roll does not double before its first roll: the no-double branch of its cube
decision, or the double/take branch where the cube is already the other side's) and
by ours with the same number of games and the same settings
(``engine.rollout.cubeful``; 0-ply, the pruning net keeping 8 as gnubg prunes).
The two use different dice and different nets, so they agree when the difference is
within two combined standard errors; the report gives the share that does, and the
speed of both in games per CPU second (gnubg timed on the rollouts alone).

    python scripts/checks/check_cubeful_rollout.py --per-state 3 --games 1296 --seed 35 \
        --out bench/rollout-check/cubeful-vs-gnubg-seed35.json
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

from engine.rollout.cubeful import CubefulSettings, rollout_cubeful_position  # noqa: E402
from engine.rollout.cubeless import ROLLOUT_PRUNE_KEEP  # noqa: E402
from engine.rollout.selfplay_sample import sample_positions  # noqa: E402
from engine.rules.ids import CENTRED, MatchState, match_id  # noqa: E402
from engine.rules.position import position_id  # noqa: E402
from fibsbot.bench.gnubg_rollout import gnubg_cubeful_rollouts  # noqa: E402

# (name, match length, score of the side on roll, score of the other, cube,
#  owner: -1 centred, 0 the side on roll, 1 the other; Crawford)
CUBE_SITUATIONS = (
    ("money, centred", 0, 0, 0, 1, CENTRED, False),
    ("money, 2-cube on roll's", 0, 0, 0, 2, 0, False),
    ("money, 2-cube other's", 0, 0, 0, 2, 1, False),
    ("7pt 0-0, centred", 7, 0, 0, 1, CENTRED, False),
    ("7pt 2-4, centred", 7, 2, 4, 1, CENTRED, False),
    ("7pt 4-2, centred", 7, 4, 2, 1, CENTRED, False),
    ("7pt 3-3, 2-cube on roll's", 7, 3, 3, 2, 0, False),
    ("7pt 1-3, 2-cube other's", 7, 1, 3, 2, 1, False),
    ("7pt 6-3, Crawford, leader on roll", 7, 6, 3, 1, CENTRED, True),
    ("7pt 3-6, Crawford, trailer on roll", 7, 3, 6, 1, CENTRED, True),
    ("7pt 4-6, post-Crawford, trailer on roll", 7, 4, 6, 1, CENTRED, False),
    ("7pt 6-2, post-Crawford, leader on roll", 7, 6, 2, 1, CENTRED, False),
)


def situation_state(situation) -> MatchState:
    """The match state of a situation, the side on roll being gnubg's player 1 as a
    Position ID from its side expects (player 0 then is the other)."""
    _, length, mine, theirs, cube, owner, crawford = situation
    owner_abs = CENTRED if owner == CENTRED else (1 if owner == 0 else 0)
    return MatchState(
        cube=cube,
        cube_owner=owner_abs,
        on_roll=1,
        crawford=crawford,
        match_length=length,
        score=(theirs, mine),
        jacoby=False,
    )


def positions(count: int, seed: int) -> list[np.ndarray]:
    """Turns of pubeval self-play before the roll, with contact or in the race alike."""
    boards = []
    for sample in sample_positions(count * 4, seed, players=("pubeval",)):
        boards.append(np.ascontiguousarray(sample.board, np.int8))
        if len(boards) == count:
            break
    return boards


def cases(per_state: int, seed: int) -> list[dict]:
    boards = positions(per_state * len(CUBE_SITUATIONS), seed)
    out = []
    for k, situation in enumerate(CUBE_SITUATIONS):
        state = situation_state(situation)
        for board in boards[k * per_state : (k + 1) * per_state]:
            out.append({"situation": situation[0], "board": board, "state": state})
    return out


def ours(case_list: list[dict], games: int, seed: int, prune: int) -> tuple[list[dict], float]:
    import nets.player  # noqa: F401  registers net:NAME
    from nets.player import load_agent

    agent = load_agent("net:default", ply=0)
    settings = CubefulSettings(seed=seed, prune=prune)
    rollout_cubeful_position(case_list[0]["board"], case_list[0]["state"], 36, settings, agent=agent)  # compile
    spent = 0.0
    rows = []
    for case in case_list:
        start = time.process_time()
        result = rollout_cubeful_position(case["board"], case["state"], games, settings, agent=agent)
        spent += time.process_time() - start
        rows.append({"equity": result.equity, "equity_stderr": result.equity_stderr})
    return rows, games * len(case_list) / spent


def compare(case_list: list[dict], games: int, seed: int, prune: int = ROLLOUT_PRUNE_KEEP) -> dict:
    ids = [(position_id(c["board"]), match_id(c["state"])) for c in case_list]
    theirs = gnubg_cubeful_rollouts(ids, games, seed=seed)
    if theirs is None:
        raise SystemExit("GNU Backgammon is missing or did not answer (/usr/games/gnubg)")
    mine, our_rate = ours(case_list, games, seed, prune)
    rows = []
    for case, (pid, mid), a, b in zip(case_list, ids, mine, theirs):
        combined = math.hypot(a["equity_stderr"], b.equity_stderr)
        diff = a["equity"] - b.equity
        rounding = 0.00005  # gnubg prints four decimals: a figure with no spread may differ by that much
        rows.append(
            {
                "situation": case["situation"],
                "position_id": pid,
                "match_id": mid,
                "ours": round(a["equity"], 4),
                "ours_stderr": round(a["equity_stderr"], 4),
                "gnubg": b.equity,
                "gnubg_stderr": b.equity_stderr,
                "diff": round(diff, 4),
                "combined_stderr": round(combined, 4),
                "within_2se": abs(diff) <= 2 * combined + rounding,
            }
        )
    gnubg_rate = games * len(case_list) / sum(b.cpu_s for b in theirs)
    within = sum(r["within_2se"] for r in rows)
    z = [r["diff"] / r["combined_stderr"] for r in rows if r["combined_stderr"] > 0]
    return {
        "positions": len(rows),
        "games": games,
        "seed": seed,
        "within_2se": within,
        "share_within_2se": within / len(rows),
        "mean_z": float(np.mean(z)) if z else 0.0,
        "our_games_per_cpu_s": our_rate,
        "gnubg_games_per_cpu_s": gnubg_rate,
        "speed_ratio": our_rate / gnubg_rate,
        "settings": f"cubeful, 0-ply chequer play and cube, no variance reduction, no truncation; ours prune {prune}",
        "rows": rows,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-state", type=int, default=3, help="positions per cube situation (12 situations)")
    parser.add_argument("--games", type=int, default=1296)
    parser.add_argument("--seed", type=int, default=35, help="positions and dice (both sides' rollouts)")
    parser.add_argument("--out", type=Path, help="write the whole report here as JSON")
    args = parser.parse_args(argv)
    report = compare(cases(args.per_state, args.seed), args.games, args.seed)
    for row in report["rows"]:
        mark = "" if row["within_2se"] else "  <-- beyond 2 SE"
        print(
            f"{row['situation']:42s} {row['position_id']} {row['match_id']}  ours {row['ours']:+.4f} "
            f"+/- {row['ours_stderr']:.4f}  gnubg {row['gnubg']:+.4f} +/- {row['gnubg_stderr']:.4f}{mark}"
        )
    print(
        f"{report['within_2se']} of {report['positions']} within two combined standard errors "
        f"({100 * report['share_within_2se']:.0f}%), mean z {report['mean_z']:+.2f}; games per CPU s: ours "
        f"{report['our_games_per_cpu_s']:.0f}, gnubg {report['gnubg_games_per_cpu_s']:.0f} "
        f"({report['speed_ratio']:.2f}x)"
    )
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
