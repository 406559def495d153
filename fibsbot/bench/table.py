"""The table level's decision time: moves and cube decisions at match scores.

The table level (``net:NAME@table``) takes every decision cubefully at 2-ply and
spends up to its budget (``think`` seconds) on a deeper look where the decision is
close, so its time is a distribution, not a rate: the benchmark plays consecutive
turns of self-play games as a 7-point match at a spread of scores and cube states,
and reports the median and 99th percentile of the move and cube decisions apart.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from engine.rules.ids import CENTRED, MatchState
from fibsbot.bench.search import decision_positions
from fibsbot.bench.speed import register_benchmark

# (our score, theirs, cube, owner) in a 7-point match: level, trailing, leading, cube turned
SCORES = (
    (0, 0, 1, CENTRED),
    (2, 4, 1, CENTRED),
    (4, 2, 2, 0),
    (3, 3, 2, 1),
    (5, 5, 1, CENTRED),
    (1, 5, 2, 0),
    (5, 1, 1, CENTRED),
)


def _states(count: int) -> list[MatchState]:
    return [
        MatchState(match_length=7, score=(s[0], s[1]), cube=s[2], cube_owner=s[3])
        for s in (SCORES[i % len(SCORES)] for i in range(count))
    ]


def _percentiles(times: list[float]) -> dict:
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, int(round(0.99 * (len(ordered) - 1))))]
    return {
        "median_s": statistics.median(ordered),
        "p99_s": p99,
        "max_s": ordered[-1],
        "mean_s": statistics.fmean(ordered),
        "decisions": len(ordered),
    }


def _timed(agent, positions, dice, states) -> tuple[list[float], list[float]]:
    """Seconds of each cube decision and each move decision, in turn."""
    agent.choose_move(positions[0], int(dice[0, 0]), int(dice[0, 1]), states[0])  # compile outside the timing
    agent.double_decision(positions[0], states[0])
    agent.clear_cache()
    moves, cubes = [], []
    for board, (d1, d2), state in zip(positions, dice, states):
        start = time.perf_counter()
        agent.double_decision(np.ascontiguousarray(board), state)
        cubes.append(time.perf_counter() - start)
        start = time.perf_counter()
        agent.choose_move(board, int(d1), int(d2), state)
        moves.append(time.perf_counter() - start)
    return moves, cubes


def bench_table(decisions: int = 120) -> dict:
    """The table level's times with one thread and with every core (the daemon's
    default ``[play] workers``), on the same turns in the same run."""
    from engine.players.agent import Agent
    from fibsbot.bench.speed import shipped_net_evaluator
    from fibsbot.config import PlaySettings
    from nets.player import TABLE_THINK

    evaluator, what = shipped_net_evaluator()
    positions, dice = decision_positions(decisions, seed=91)
    states = _states(len(positions))
    threads = PlaySettings().threads
    runs = {}
    for workers in dict.fromkeys((1, threads)):
        agent = Agent(evaluator, ply=2, think=TABLE_THINK, name="net:default@table", workers=workers)
        moves, cubes = _timed(agent, positions, dice, states)
        runs[workers] = {
            "moves": _percentiles(moves),
            "cubes": _percentiles(cubes),
            "turns": _percentiles([m + c for m, c in zip(moves, cubes)]),
        }
    default = runs[threads]
    return {
        "table_move_median_s": default["moves"]["median_s"],
        "table_move_p99_s": default["moves"]["p99_s"],
        "table_cube_median_s": default["cubes"]["median_s"],
        "table_cube_p99_s": default["cubes"]["p99_s"],
        "table_turn_median_s": default["turns"]["median_s"],
        "table_turn_p99_s": default["turns"]["p99_s"],
        "table": {
            **default,
            "workers": threads,
            "one_thread": runs[1],
            "think_s": TABLE_THINK,
            "net": what,
            "sample": "consecutive pubeval self-play turns with a choice, as a 7-point match at "
            f"{len(SCORES)} scores and cube states in turn, one cache kept across turns; a turn is "
            "its cube decision and its move",
        },
    }


register_benchmark("table", bench_table)
