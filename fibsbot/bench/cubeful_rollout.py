"""Cubeful rollout benchmark: games per CPU second of our cubeful rollouts, with GNU
Backgammon's own cubeful rollouts of the same positions in the same run as the
reference.

Both play every game to the end with 0-ply cube decisions and 0-ply chequer play
chosen cubefully, the pruning nets choosing what the full net scores (gnubg's
default; ours keeps 8), no variance reduction, one thread; once in money play
(Jacoby off) and once at 2-4 in a seven-point match.  gnubg is timed on its rollouts
alone (CPU seconds inside its process), so its start-up does not count against it.
"""

from __future__ import annotations

import time
from typing import Any

from engine.rules.ids import MatchState, match_id, position_id
from fibsbot.bench.gnubg_rollout import gnubg_cubeful_rollouts
from fibsbot.bench.search import decision_positions
from fibsbot.bench.speed import register_benchmark

SCORES = {"money": MatchState(jacoby=False), "match": MatchState(match_length=7, score=(2, 4), jacoby=False)}


def bench_cubeful_rollout(positions: int = 6, games: int = 144) -> dict:
    from engine.rollout.cubeful import CubefulSettings, rollout_cubeful_position
    from engine.rollout.cubeless import ROLLOUT_PRUNE_KEEP
    from fibsbot.bench.speed import BENCH_NET
    from nets.player import load_agent

    boards, _ = decision_positions(positions, seed=31)
    agent = load_agent(f"net:{BENCH_NET}", ply=0)
    settings = CubefulSettings(seed=3, prune=ROLLOUT_PRUNE_KEEP)
    detail: dict[str, Any] = {
        "settings": f"cubeful, 0-ply cube and chequer play, the pruning net passing {ROLLOUT_PRUNE_KEEP} moves "
        "to the full net, no variance reduction, games played to the end",
        "sample": "pubeval self-play turns with a choice, before the roll",
    }
    total_games, total_cpu = 0, 0.0
    for name, state in SCORES.items():
        rollout_cubeful_position(boards[0], state, 36, settings, agent=agent)  # compile outside the timing
        start = time.process_time()
        for board in boards:
            rollout_cubeful_position(board, state, games, settings, agent=agent)
        cpu = time.process_time() - start
        detail[name] = {"games": games * len(boards), "cpu_s": cpu, "games_per_s": games * len(boards) / cpu}
        total_games += games * len(boards)
        total_cpu += cpu
    rate = total_games / total_cpu
    result: dict[str, Any] = {"cubeful_rollout_games_per_s": rate, "cubeful_rollout": detail}
    ids = [(position_id(b), match_id(state)) for state in SCORES.values() for b in boards]
    reference = gnubg_cubeful_rollouts(ids, games)
    if reference is None:
        detail["reference_gnubg_cubeful_rollout"] = "skipped: GNU Backgammon not installed or not answering"
        return result
    gnubg_cpu = sum(r.cpu_s for r in reference)
    detail["reference_gnubg_cubeful_rollout"] = {
        "games_per_s": total_games / gnubg_cpu,
        "games": total_games,
        "cpu_s": gnubg_cpu,
        "note": "gnubg rollout, 1 thread, cubeful, 0-ply chequer play and cube with its pruning nets, no "
        "variance reduction, quasi-random dice, no truncation; CPU seconds of the rollouts alone",
    }
    detail["ratio_vs_gnubg_cubeful_rollout"] = rate / (total_games / gnubg_cpu)
    return result


register_benchmark("cubeful_rollout", bench_cubeful_rollout)
