"""The table level's decision time: moves and cube decisions at match scores.

The table level (``net:NAME@table``) takes every decision cubefully at 2-ply and
looks a ply deeper at close moves and at every cube decision, its work bounded by a
count of evaluations (``engine.players.table``), so its time is a distribution, not a
rate: the benchmark plays consecutive turns of self-play games as a 7-point match at
a spread of scores and cube states, and reports the median and 99th percentile of the
move and cube decisions apart, and how many took the deeper look.
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


def _timed(agent, positions, dice, states) -> tuple[list[float], list[float], dict]:
    """Seconds of each cube decision and each move decision, in turn, and how many of
    them looked a ply deeper than 2."""
    agent.choose_move(positions[0], int(dice[0, 0]), int(dice[0, 1]), states[0])  # compile outside the timing
    agent.double_decision(positions[0], states[0])
    agent.clear_cache()
    moves, cubes = [], []
    deeper = {"moves": 0, "moves_looked": 0, "cubes": 0, "cube_decisions": 0}
    for board, (d1, d2), state in zip(positions, dice, states):
        start = time.perf_counter()
        cube = agent.double_decision(np.ascontiguousarray(board), state)
        cubes.append(time.perf_counter() - start)
        start = time.perf_counter()
        choice = agent.choose_move(board, int(d1), int(d2), state)
        moves.append(time.perf_counter() - start)
        looked = sum(move.ply == 3 for move in choice.ranked)
        deeper["moves"] += looked > 0
        deeper["moves_looked"] += looked
        deeper["cube_decisions"] += cube.ply > 0  # a cube that may not turn is no decision
        deeper["cubes"] += cube.ply == 3
    return moves, cubes, deeper


def bench_table(decisions: int = 120) -> dict:
    """The table level's times with one thread and with every core (the daemon's
    default ``[play] workers``), on the same turns in the same run."""
    from engine.players.agent import Agent
    from engine.players.table import DEEPER_WORK
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
        moves, cubes, deeper = _timed(agent, positions, dice, states)
        runs[workers] = {
            "moves": _percentiles(moves),
            "cubes": _percentiles(cubes),
            "turns": _percentiles([m + c for m, c in zip(moves, cubes)]),
            "deeper": deeper,
        }
    default = runs[threads]
    return {
        "table_move_median_s": default["moves"]["median_s"],
        "table_move_p99_s": default["moves"]["p99_s"],
        "table_cube_median_s": default["cubes"]["median_s"],
        "table_cube_p99_s": default["cubes"]["p99_s"],
        "table_turn_median_s": default["turns"]["median_s"],
        "table_turn_p99_s": default["turns"]["p99_s"],
        "table_deeper_moves": default["deeper"]["moves"],
        "table_deeper_cubes": default["deeper"]["cubes"],
        "table": {
            **default,
            "workers": threads,
            "one_thread": runs[1],
            "deeper_work": DEEPER_WORK,
            "cap_s": TABLE_THINK,
            "net": what,
            "sample": "consecutive pubeval self-play turns with a choice, as a 7-point match at "
            f"{len(SCORES)} scores and cube states in turn, one cache kept across turns; a turn is "
            "its cube decision and its move",
        },
    }


register_benchmark("table", bench_table)
