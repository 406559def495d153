"""Duplicate-dice duels between two players, optionally over several processes."""

from __future__ import annotations

import math
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass

import numpy as np

from engine.players.registry import install_players, make_player, registered_players
from engine.rollout.game import kernel_duel, play_game
from engine.rules.dice import game_seed
from engine.rules.moves import MoveBuffers


@dataclass
class DuelResult:
    player_a: str
    player_b: str
    games: int
    ppg: float  # points per game for A
    stderr: float  # over duplicate pairs, the independent unit
    unpaired_stderr: float  # what the error bar would be without duplicate dice
    win_rate: float
    gammon_rate: float  # games A won or lost with a gammon (not backgammon)
    backgammon_rate: float
    games_per_s: float
    seed: int

    def as_dict(self) -> dict:
        return asdict(self)

    def summary(self) -> str:
        lo, hi = self.ppg - 1.96 * self.stderr, self.ppg + 1.96 * self.stderr
        return (
            f"{self.player_a} vs {self.player_b}: {self.games} games (duplicate dice)\n"
            f"  ppg for {self.player_a}: {self.ppg:+.4f} +/- {self.stderr:.4f} (s.e.; 95% {lo:+.3f}..{hi:+.3f}; "
            f"unpaired s.e. {self.unpaired_stderr:.4f})\n"
            f"  wins {100 * self.win_rate:.2f}%  gammons {100 * self.gammon_rate:.2f}%  "
            f"backgammons {100 * self.backgammon_rate:.2f}%\n"
            f"  {self.games_per_s:,.0f} games/s"
        )


def play_pairs(spec_a: str, spec_b: str, seed: int, first_pair: int, n_pairs: int) -> np.ndarray:
    """Points for A, shape (n_pairs, 2); runs in numba when both players allow it."""
    return play_player_pairs(make_player(spec_a), make_player(spec_b), seed, first_pair, n_pairs)


def play_player_pairs(a, b, seed: int, first_pair: int, n_pairs: int) -> np.ndarray:
    buffers = MoveBuffers()
    if a.kernel is not None and b.kernel is not None:
        points, _ = kernel_duel(
            a.kernel[0], a.kernel[1], b.kernel[0], b.kernel[1], seed, first_pair, n_pairs, *buffers.args()
        )
        return points
    points = np.zeros((n_pairs, 2), dtype=np.int64)
    for p in range(n_pairs):
        s = game_seed(seed, first_pair + p)
        winner, pts, _ = play_game(a, b, s, buffers)
        points[p, 0] = pts if winner == 0 else -pts
        winner, pts, _ = play_game(b, a, s, buffers)
        points[p, 1] = pts if winner == 1 else -pts
    return points


def summarize(spec_a: str, spec_b: str, points: np.ndarray, seconds: float, seed: int) -> DuelResult:
    flat = points.reshape(-1)
    games = flat.size
    pair_means = points.mean(axis=1)
    stderr = float(pair_means.std(ddof=1) / math.sqrt(len(pair_means))) if len(pair_means) > 1 else float("nan")
    return DuelResult(
        player_a=spec_a,
        player_b=spec_b,
        games=games,
        ppg=float(flat.mean()),
        stderr=stderr,
        unpaired_stderr=float(flat.std(ddof=1) / math.sqrt(games)),
        win_rate=float((flat > 0).mean()),
        gammon_rate=float((np.abs(flat) == 2).mean()),
        backgammon_rate=float((np.abs(flat) == 3).mean()),
        games_per_s=games / seconds if seconds > 0 else float("inf"),
        seed=seed,
    )


def run_duel(spec_a: str, spec_b: str, games: int, seed: int = 1, workers: int = 1) -> DuelResult:
    """Play ``games`` games (rounded up to whole duplicate pairs) and summarise for A."""
    if games < 2:
        raise ValueError("a duel needs at least 2 games (one duplicate pair)")
    make_player(spec_a), make_player(spec_b)  # fail fast on a bad spec, before forking
    n_pairs = (games + 1) // 2
    # warm the compiled code outside the timed region (numba compiles on first call)
    play_pairs(spec_a, spec_b, seed, n_pairs, 1)
    start = time.perf_counter()
    if workers <= 1:
        points = play_pairs(spec_a, spec_b, seed, 0, n_pairs)
    else:
        chunks = np.array_split(np.arange(n_pairs), workers)
        with ProcessPoolExecutor(
            max_workers=workers, initializer=install_players, initargs=(registered_players(),)
        ) as pool:
            futures = [pool.submit(play_pairs, spec_a, spec_b, seed, int(c[0]), len(c)) for c in chunks if len(c)]
            points = np.concatenate([f.result() for f in futures])
    return summarize(spec_a, spec_b, points, time.perf_counter() - start, seed)


def run_duel_players(a, spec_b: str, games: int, seed: int = 1) -> dict:
    """In-process duel of a player object (or an Evaluator) against a spec, as a dict."""
    from engine.eval.evaluator import Evaluator
    from engine.players.registry import NetPlayer

    if isinstance(a, Evaluator):
        a = NetPlayer(a)
    b = make_player(spec_b)
    start = time.perf_counter()
    points = play_player_pairs(a, b, seed, 0, (games + 1) // 2)
    return summarize(a.name, spec_b, points, time.perf_counter() - start, seed).as_dict()
