"""The players ``nets.benchmark`` can score: our nets, pubeval, gnubg's 0-ply."""

from __future__ import annotations

import numpy as np

from engine.ids import position_id
from nets.benchmark import BenchmarkError, BenchmarkPlayer

class NetBenchmarkPlayer:
    """Our net searched to its ply: the move it plays, and its probabilities at that ply."""

    def __init__(self, agent) -> None:
        self.agent, self.name = agent, agent.name

    @classmethod
    def from_spec(cls, spec: str) -> "NetBenchmarkPlayer":
        from engine.agent import load_agent
        from engine.players import PlayerSpecError

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
        from engine.players import PubevalPlayer

        self.player = PubevalPlayer()

    def result(self, board, d1, d2):
        return self.player.play(board, d1, d2)[1]

    def cube_probs(self, board):
        return None


class GnubgBenchmarkPlayer:
    """GNU Backgammon's 0-ply (its nets, in-process through ``gnubg_nn``): the move of
    its ``best_move`` and its ``probabilities(board, 0)``; gnubg_nn boards have the
    player on roll in row 1 (see ``engine.gnubg_oracle``)."""

    name = "gnubg0"

    def __init__(self) -> None:
        try:
            import gnubg_nn
        except ImportError as exc:
            raise BenchmarkError("gnubg0 needs the gnubg-nn package (pip install gnubg-nn), "
                                 f"which is not installed: {exc}") from exc
        from engine.moves import MoveBuffers

        self.gnubg = gnubg_nn
        self.buffers = MoveBuffers()

    def result(self, board, d1, d2):
        from engine.moves import generate_moves

        n = generate_moves(np.ascontiguousarray(board, np.int8), d1, d2, *self.buffers.args())
        _steps, key = self.gnubg.best_move(board[::-1].tolist(), d1, d2, b=1)
        for i in range(n):  # gnubg's key of a result: our board with the mover in row 0
            if self.gnubg.key_of_board(self.buffers.boards[i].tolist()) == key:
                return self.buffers.boards[i].copy()
        raise BenchmarkError(f"{position_id(board)} dice {d1}{d2}: gnubg's move is not among our legal results")

    def cube_probs(self, board):
        return np.asarray(self.gnubg.probabilities(board[::-1].tolist(), 0), dtype=np.float64)


def make_player(spec: str) -> BenchmarkPlayer:
    """``net:NAME[@PLY]``, ``pubeval`` or ``gnubg0``."""
    if spec.startswith("net:"):
        return NetBenchmarkPlayer.from_spec(spec)
    if spec == "pubeval":
        return PubevalBenchmarkPlayer()
    if spec in ("gnubg0", "gnubg"):
        return GnubgBenchmarkPlayer()
    raise BenchmarkError(f"unknown player {spec!r}: use net:NAME[@PLY], pubeval or gnubg0")
