"""`fibsbot bench`: speed of the engine's hot paths, measured on one core.

Each benchmark returns its JSON keys plus the sample it measured; the command
repeats each timing and reports the median with the spread, so a figure in the
README can be reproduced and compared against a reference measured in the same run.
"""

from __future__ import annotations

import statistics
import time
from typing import Callable

import numpy as np
from numba import njit

from engine.dice import game_seed, opening_roll, roll
from engine.game import initial_board, kernel_duel
from engine.moves import MoveBuffers, generate_moves
from engine.players import PubevalPlayer
from engine.pubeval import pubeval_choose, pubeval_weights


@njit(cache=True)
def _collect_positions(weights, seed, games, boards, steps, table_key, table_stamp, stamp, stack):
    """Positions and rolls met in pubeval self-play: the 'positions from real games'."""
    out_boards = np.zeros((games * 120, 2, 25), dtype=np.int8)
    out_dice = np.zeros((games * 120, 2), dtype=np.int64)
    count = 0
    for g in range(games):
        s = game_seed(seed, g)
        board = initial_board()
        d0, d1 = opening_roll(s)
        for turn in range(1000):
            if turn > 0:
                d0, d1 = roll(s, turn)
            if count < out_boards.shape[0]:
                out_boards[count] = board
                out_dice[count, 0] = d0
                out_dice[count, 1] = d1
                count += 1
            n = generate_moves(board, d0, d1, boards, steps, table_key, table_stamp, stamp, stack)
            best = pubeval_choose(weights, board, n, boards) if n > 1 else 0
            if boards[best, 0].sum() == 0:
                break
            for i in range(25):
                board[0, i] = boards[best, 1, i]
                board[1, i] = boards[best, 0, i]
    return out_boards[:count], out_dice[:count]


@njit(cache=True)
def _generate_all(positions, dice, boards, steps, table_key, table_stamp, stamp, stack):
    total = 0
    for i in range(positions.shape[0]):
        total += generate_moves(positions[i], dice[i, 0], dice[i, 1], boards, steps, table_key,
                                table_stamp, stamp, stack)
    return total


def real_game_positions(games: int = 500, seed: int = 2024) -> tuple[np.ndarray, np.ndarray]:
    buffers = MoveBuffers()
    return _collect_positions(pubeval_weights(), seed, games, *buffers.args())


def _timed(fn: Callable[[], object], repeats: int) -> list[float]:
    fn()  # compile and warm caches outside the timing
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def _rate(count: int, times: list[float]) -> dict:
    rates = sorted(count / t for t in times)
    return {"median": statistics.median(rates), "min": rates[0], "max": rates[-1],
            "repeats": len(rates)}


def bench_movegen(repeats: int = 5) -> dict:
    positions, dice = real_game_positions()
    buffers = MoveBuffers()
    results = _generate_all(positions, dice, *buffers.args())
    rate = _rate(len(positions), _timed(lambda: _generate_all(positions, dice, *buffers.args()), repeats))
    return {
        "movegen_positions_per_s": rate["median"],
        "movegen": {**rate, "positions": len(positions), "mean_results": results / len(positions),
                    "sample": "positions and rolls of 500 pubeval self-play games"},
    }


def bench_pubeval_games(games: int = 4000, repeats: int = 3) -> dict:
    player = PubevalPlayer()
    buffers = MoveBuffers()
    fn, params = player.kernel

    def run():
        kernel_duel(fn, params, fn, params, 7, 0, games // 2, *buffers.args())

    rate = _rate(games, _timed(run, repeats))
    return {"pubeval_games_per_s": rate["median"], "pubeval_games": {**rate, "games": games}}


BENCHMARKS: dict[str, Callable[[], dict]] = {
    "movegen": bench_movegen,
    "pubeval": bench_pubeval_games,
}


def register_benchmark(name: str, fn: Callable[[], dict]) -> None:
    BENCHMARKS[name] = fn


def run_benchmarks(names: list[str] | None = None) -> dict:
    """Run the named benchmarks (all by default) and merge their keys."""
    out: dict = {}
    for name in names or list(BENCHMARKS):
        out.update(BENCHMARKS[name]())
    return out
