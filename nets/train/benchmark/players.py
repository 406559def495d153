"""The players a benchmark set scores (our nets, pubeval, gnubg's 0-ply, Open Sage), named by
specs, and the score of a spec with its decisions shared over processes."""

from __future__ import annotations

import numpy as np

from engine.rules.boards import kernel_board
from engine.rules.ids import position_id
from nets.train.benchmark.scoring import (
    Benchmark,
    BenchmarkError,
    BenchmarkPlayer,
    CubeRecord,
    MoveRecord,
    cube_loss_pairs,
    move_outcomes,
    paired_difference,
    summarise,
)
from nets.train.labellers import BGSAGE_PLIES


class NetBenchmarkPlayer:
    """Our net searched to its ply: the move it plays, and its probabilities at that ply."""

    def __init__(self, agent) -> None:
        self.agent, self.name = agent, agent.name

    @classmethod
    def from_spec(cls, spec: str) -> NetBenchmarkPlayer:
        from engine.players.registry import PlayerSpecError
        from nets.player import load_agent

        try:
            return cls(load_agent(spec))
        except (PlayerSpecError, ValueError) as exc:
            raise BenchmarkError(f"{spec}: {exc}") from exc

    def result(self, board, d1, d2):
        return self.agent.rank_moves(board, d1, d2)[0].board

    def cube_probs(self, board):
        return self.agent.probabilities(board)


class PubevalBenchmarkPlayer:
    """Tesauro's pubeval: checker play only."""

    name = "pubeval"

    def __init__(self) -> None:
        from engine.players.registry import PubevalPlayer

        self.player = PubevalPlayer()

    def result(self, board, d1, d2):
        return self.player.play(board, d1, d2)[1]

    def cube_probs(self, board):
        return None


class GnubgBenchmarkPlayer:
    """GNU Backgammon's 0-ply (its nets, in-process through ``gnubg_nn``): the move of
    its ``best_move`` and its ``probabilities(board, 0)``; gnubg_nn boards have the
    player on roll in row 1 (see ``engine.rules.gnubg_oracle``)."""

    name = "gnubg0"

    def __init__(self) -> None:
        from engine.players.registry import GnubgPlayer, PlayerSpecError
        from engine.rules.moves import MoveBuffers

        try:
            self.player = GnubgPlayer()
        except PlayerSpecError as exc:
            raise BenchmarkError(str(exc)) from exc
        self.gnubg = self.player.gnubg
        self.buffers = MoveBuffers()

    def result(self, board, d1, d2):
        from engine.players.registry import GnubgPlayerError
        from engine.rules.moves import generate_moves

        n = generate_moves(kernel_board(board), d1, d2, *self.buffers.args())
        try:
            return self.buffers.boards[self.player.choose(board, d1, d2, self.buffers.boards[:n])].copy()
        except GnubgPlayerError as exc:
            raise BenchmarkError(f"{position_id(board)}: {exc}") from exc

    def cube_probs(self, board):
        return np.asarray(self.gnubg.probabilities(board[::-1].tolist(), 0), dtype=np.float64)


class BgsageBenchmarkPlayer:
    """The Open Sage engine (PyPI ``bgsage``) at its PLY, counted its way (its 1-ply is
    one net evaluation, gnubg's 0-ply): the move its cubeless checker play ranks first,
    and its cubeless probabilities at that level.  For offline comparison on a
    benchmark only: the bot never plays through it."""

    def __init__(self, ply: int) -> None:
        from engine.rules.moves import MoveBuffers
        from nets.train.labellers import BgsageLabeller

        try:
            from bgsage import BgBotAnalyzer
        except ImportError as exc:
            raise BenchmarkError(
                f"bgsage@{ply} needs the optional package bgsage: pip install 'fibsbot[bgsage]'"
            ) from exc
        self.name = f"bgsage@{ply}"
        self.analyzer = BgBotAnalyzer(eval_level=f"{ply}ply", cubeful=False, parallel_threads=1)
        self.labeller = BgsageLabeller(ply)
        self.buffers = MoveBuffers()

    def result(self, board, d1, d2):
        from engine.rules.moves import generate_moves
        from nets.train.labellers import sage_board

        n = generate_moves(kernel_board(board), d1, d2, *self.buffers.args())
        ours = {tuple(sage_board(self.buffers.boards[i])): i for i in range(n)}
        best = self.analyzer.checker_play(sage_board(board), d1, d2).moves[0].board
        if tuple(best) not in ours:
            raise BenchmarkError(f"{position_id(board)} {d1}{d2}: bgsage played a move that is not legal here")
        return self.buffers.boards[ours[tuple(best)]].copy()

    def cube_probs(self, board):
        return self.labeller.label(np.ascontiguousarray(board, np.int8)[None])[0].astype(np.float64)


def make_player(spec: str) -> BenchmarkPlayer:
    """``net:NAME[@PLY]``, ``pubeval``, ``gnubg0`` or ``bgsage@PLY``."""
    if spec.startswith("net:"):
        return NetBenchmarkPlayer.from_spec(spec)
    if spec == "pubeval":
        return PubevalBenchmarkPlayer()
    if spec in ("gnubg0", "gnubg"):
        return GnubgBenchmarkPlayer()
    if spec.startswith("bgsage@") and spec[7:] in [str(p) for p in BGSAGE_PLIES]:
        return BgsageBenchmarkPlayer(int(spec[7:]))
    raise BenchmarkError(
        f"unknown player {spec!r}: use net:NAME[@PLY], pubeval, gnubg0 or bgsage@PLY "
        f"(PLY {BGSAGE_PLIES[0]}-{BGSAGE_PLIES[-1]})"
    )


def score_spec(spec: str, benchmark: Benchmark, workers: int = 1) -> dict:
    """``score`` of the player named by ``spec``, the decisions shared over ``workers``
    processes (each builds its own player; the figures do not depend on ``workers``)."""
    name, outcomes, pairs = outcomes_of_spec(spec, benchmark, workers)
    return summarise(name, benchmark, outcomes, pairs)


def compare_specs(spec: str, versus: str, benchmark: Benchmark, workers: int = 1) -> dict:
    """``score_spec`` of ``spec``, with ``versus`` scored on the same decisions under
    ``result["versus"]`` and the paired difference of the two (``spec`` minus ``versus``)
    under ``result["difference"]``."""
    name, outcomes, pairs = outcomes_of_spec(spec, benchmark, workers)
    other, other_outcomes, other_pairs = outcomes_of_spec(versus, benchmark, workers)
    result = summarise(name, benchmark, outcomes, pairs)
    result["versus"] = summarise(other, benchmark, other_outcomes, other_pairs)
    result["difference"] = paired_difference(benchmark, outcomes, other_outcomes, pairs, other_pairs)
    return result


def outcomes_of_spec(
    spec: str, benchmark: Benchmark, workers: int = 1
) -> tuple[str, list[tuple[float, bool]], list[tuple[float, float]] | None]:
    """The player's name, its (loss, shallow) at each checker decision in record order,
    and its cube losses (None when it makes no cube decisions)."""
    player = make_player(spec)
    if workers <= 1 or len(benchmark.moves) + len(benchmark.cubes) < 2 * workers:
        return player.name, move_outcomes(player, benchmark.moves), cube_loss_pairs(player, benchmark.cubes)
    from concurrent.futures import ProcessPoolExecutor

    move_chunks = _chunks(benchmark.moves, workers * 4)
    by_position: dict[str, list[CubeRecord]] = {}
    for record in benchmark.cubes:  # keep a position's records together: one evaluation each
        by_position.setdefault(record.position_id, []).append(record)
    cube_chunks = [[r for group in part for r in group] for part in _chunks(list(by_position.values()), workers * 4)]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        move_parts = list(pool.map(_move_worker, [spec] * len(move_chunks), move_chunks))
        cube_parts = list(pool.map(_cube_worker, [spec] * len(cube_chunks), cube_chunks))
    outcomes = [x for part in move_parts for x in part]  # in record order: classes are matched by position
    pairs = None if any(p is None for p in cube_parts) else [x for part in cube_parts for x in part]
    return player.name, outcomes, pairs


def _chunks(items, count: int) -> list[list]:
    items = list(items)
    size = max(1, -(-len(items) // max(count, 1)))
    return [items[i : i + size] for i in range(0, len(items), size)]


_worker_players: dict[str, BenchmarkPlayer] = {}


def _worker_player(spec: str) -> BenchmarkPlayer:
    if spec not in _worker_players:
        _worker_players[spec] = make_player(spec)
    return _worker_players[spec]


def _move_worker(spec: str, records: list[MoveRecord]) -> list[tuple[float, bool]]:
    return move_outcomes(_worker_player(spec), records)


def _cube_worker(spec: str, records: list[CubeRecord]):
    return cube_loss_pairs(_worker_player(spec), records)
