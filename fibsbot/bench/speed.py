"""`fibsbot bench`: speed of the engine's hot paths, measured on one core.

Each benchmark returns its JSON keys plus the sample it measured; the command
repeats each timing and reports the median with the spread, so a figure in the
README can be reproduced and compared against a reference measured in the same run.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import numpy as np
from numba import njit

from engine.eval.pubeval import pubeval_choose, pubeval_weights
from engine.players.registry import PubevalPlayer
from engine.rollout.game import PLAYERS_CHOOSE, kernel_duel, kernel_game
from engine.rules.dice import game_seed
from engine.rules.moves import MoveBuffers, generate_moves

SAMPLE_MAX_TURNS = 1000  # pubeval's games end long before


@njit(cache=True)
def _record_position(state, board, d0, d1, turn, seat, n, candidates):
    """Keep every position and roll while there is room; pubeval then plays (``kernel_turns``' hook)."""
    out_boards, out_dice, count = state
    if count[0] < out_boards.shape[0]:
        out_boards[count[0]] = board
        out_dice[count[0], 0] = d0
        out_dice[count[0], 1] = d1
        count[0] += 1
    return PLAYERS_CHOOSE


@njit(cache=True)
def _collect_positions(weights, seed, games, boards, steps, table, stamp, stack):
    """Positions and rolls met in pubeval self-play: the 'positions from real games'."""
    out_boards = np.zeros((games * 120, 2, 25), dtype=np.int8)
    out_dice = np.zeros((games * 120, 2), dtype=np.int64)
    count = np.zeros(1, np.int64)
    root = (boards, steps, table, stamp, stack)
    for g in range(games):
        kernel_game(
            pubeval_choose,
            weights,
            pubeval_choose,
            weights,
            _record_position,
            (out_boards, out_dice, count),
            game_seed(seed, g),
            SAMPLE_MAX_TURNS,
            root,
        )
    return out_boards[: count[0]], out_dice[: count[0]]


@njit(cache=True)
def _generate_all(positions, dice, boards, steps, table, stamp, stack):
    total = 0
    for i in range(positions.shape[0]):
        total += generate_moves(positions[i], dice[i, 0], dice[i, 1], boards, steps, table, stamp, stack)
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
    return {"median": statistics.median(rates), "min": rates[0], "max": rates[-1], "repeats": len(rates)}


def bench_movegen(repeats: int = 5) -> dict:
    positions, dice = real_game_positions()
    buffers = MoveBuffers()
    results = _generate_all(positions, dice, *buffers.args())
    rate = _rate(len(positions), _timed(lambda: _generate_all(positions, dice, *buffers.args()), repeats))
    return {
        "movegen_positions_per_s": rate["median"],
        "movegen": {
            **rate,
            "positions": len(positions),
            "mean_results": results / len(positions),
            "sample": "positions and rolls of 500 pubeval self-play games",
        },
    }


def bench_pubeval_games(games: int = 4000, repeats: int = 3) -> dict:
    player = PubevalPlayer()
    buffers = MoveBuffers()
    fn, params = player.kernel

    def run():
        kernel_duel(fn, params, fn, params, 7, 0, games // 2, *buffers.args())

    rate = _rate(games, _timed(run, repeats))
    return {"pubeval_games_per_s": rate["median"], "pubeval_games": {**rate, "games": games}}


BENCH_NET = "default"  # the net the search benchmarks time (`fibsbot bench --net`)
# a second net the 0-ply and 2-ply benchmarks time in turn with BENCH_NET, in the same
# run and on the same decisions (`fibsbot bench --versus`); None: only BENCH_NET
VERSUS_NET: str | None = None


def shipped_net_evaluator(name: str | None = None):
    """The net ``name`` (by default ``BENCH_NET``: the shipped default unless ``--net``
    names another).  Only when the default is asked for and not shipped (a checkout
    without its nets) does a fresh net of the shipped size stand in (speed does not
    depend on the weights); a net named on purpose that does not exist is an error
    (PlayerSpecError), never timed as another."""
    from engine.eval.evaluator import Evaluator
    from engine.eval.net import Net
    from engine.players.registry import PlayerSpecError
    from nets.player import resolve_net_path

    name = BENCH_NET if name is None else name
    try:
        path = resolve_net_path(name)
        what = "shipped default net" if name == "default" else f"net {name}"
        return Evaluator.load(path), what
    except PlayerSpecError:
        if name != "default":
            raise
        return Evaluator(
            Net.create("gnubg5", "contact2", 400), Net.create("gnubg5", "race", 64)
        ), "untrained net of the shipped size (gnubg5, contact2 encoding, 400 hidden)"


def _gnubg_nn_rate(positions: np.ndarray, limit: int = 20000) -> dict | None:
    """The reference: gnubg's own nets in-process (gnubg-nn), same positions, 0-ply."""
    try:
        import gnubg_nn
    except ImportError:
        return None
    sample = [[list(map(int, b[1])), list(map(int, b[0]))] for b in positions[:limit]]
    for board in sample[:100]:
        gnubg_nn.probabilities(board, 0)
    start = time.perf_counter()
    for board in sample:
        gnubg_nn.probabilities(board, 0)
    elapsed = time.perf_counter() - start
    return {
        "positions_per_s": len(sample) / elapsed,
        "positions": len(sample),
        "note": "gnubg-nn probabilities(board, 0), one Python call per position",
    }


def bench_eval(repeats: int = 5) -> dict:
    from engine.eval.net import evaluate_boards

    evaluator, what = shipped_net_evaluator()
    net = evaluator.contact
    positions, _ = real_game_positions()
    out = np.zeros((len(positions), 5), dtype=np.float32)
    args = net.arrays()
    # a numba dispatcher takes any arguments; its stub says otherwise
    rate = _rate(len(positions), _timed(lambda: evaluate_boards(*args, positions, len(positions), out), repeats))  # type: ignore[call-arg]
    result = {
        "eval_positions_per_s": rate["median"],
        "eval": {
            **rate,
            "positions": len(positions),
            "net": what,
            "size": "-".join(str(n) for n in (net.W1.shape[0], net.hidden, net.hidden2 or None, 5) if n),
        },
    }
    reference = _gnubg_nn_rate(positions)
    if reference:
        result["eval"]["reference_gnubg_nn"] = reference
        result["eval"]["ratio_vs_gnubg_nn"] = rate["median"] / reference["positions_per_s"]
    return result


def bench_td(games: int = 2000, repeats: int = 3) -> dict:
    """TD self-play training speed of the Benchmark 1 net (80 hidden, 3 outputs)."""
    import tempfile

    from nets.train.td import TDConfig, TDTrainer

    with tempfile.TemporaryDirectory() as tmp:
        trainer = TDTrainer(tmp, TDConfig(arch="tesauro3", encoding="tesauro", hidden=80))
        rate = _rate(games, _timed(lambda: trainer.train_chunk(games), repeats))
    return {"td_games_per_s": rate["median"], "td": {**rate, "games": games, "net": "tesauro3 196-80-3, lambda 0"}}


BENCHMARKS: dict[str, Callable[[], dict]] = {
    "movegen": bench_movegen,
    "pubeval": bench_pubeval_games,
    "eval": bench_eval,
    "td": bench_td,
}


def register_benchmark(name: str, fn: Callable[[], dict]) -> None:
    BENCHMARKS[name] = fn


def run_benchmarks(names: list[str] | None = None) -> dict:
    """Run the named benchmarks (all by default) and merge their keys."""
    out: dict = {}
    for name in names or list(BENCHMARKS):
        out.update(BENCHMARKS[name]())
    return out
