"""Players that choose a move, and the registry that builds them from a spec.

A player has a ``name`` and ``choose(board, d1, d2, candidates) -> index`` over
post-move boards (mover in row 0).  Players that can run inside numba also expose
``kernel = (choose_function, params)`` so whole duels run without Python overhead.
Players are built from short specs (``random``, ``pubeval``, ``gnubg0``, ``net:NAME@PLY``)
so that worker processes can rebuild them.

The engine knows how to play a net it is handed (``NetPlayer``, ``engine.players.agent.Agent``)
but not where nets live: ``net:NAME`` is registered by ``nets.player``, the layer
that owns the weights.  Work sent to other processes carries the registry with it
(``registered_players``), so a spawned or remote worker knows the same specs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np
from numba import njit

from engine.eval.evaluator import Evaluator, net_choose
from engine.eval.pubeval import pubeval_choose, pubeval_weights
from engine.rules.boards import kernel_board
from engine.rules.dice import splitmix64
from engine.rules.moves import MAX_RESULTS


class Player(Protocol):
    # read-only: a player may fix its kernel to a tuple, or to None, and still be one
    @property
    def name(self) -> str: ...

    @property
    def kernel(self) -> tuple | None: ...

    def choose(self, board: np.ndarray, d1: int, d2: int, candidates: np.ndarray) -> int: ...


_FNV_PRIME = np.uint64(0x100000001B3)


@njit(cache=True)
def random_choose(params, board, n, candidates):
    """Uniform-looking choice, a pure function of the player's seed and the decision.

    Hashing the position and the first candidate (which depends on the roll) rather
    than advancing a counter keeps a game's moves independent of the games played
    before it, so a duel split over workers replays exactly as in one process.
    """
    h = splitmix64(params[0] ^ np.uint64(n))
    for side in range(2):
        for i in range(25):
            # FNV-style mixing of every checker count, finished by one splitmix64
            h = (h ^ np.uint64(board[side, i] * 16 + candidates[0, side, i])) * _FNV_PRIME
    return np.int64(splitmix64(h) % np.uint64(n))


class RandomPlayer:
    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.params = np.array([seed], dtype=np.uint64)
        self.kernel = (random_choose, self.params)

    def choose(self, board, d1, d2, candidates) -> int:
        return int(random_choose(self.params, board, len(candidates), candidates))


class PubevalPlayer:
    name = "pubeval"

    def __init__(self) -> None:
        self.weights = pubeval_weights()
        self.kernel = (pubeval_choose, self.weights)

    def choose(self, board, d1, d2, candidates) -> int:
        return int(pubeval_choose(self.weights, board, len(candidates), candidates))

    def play(self, board, d1: int, d2: int) -> tuple[tuple[tuple[int, int], ...], np.ndarray]:
        """Pubeval's move for a roll: its steps and the board after it (mover in row 0)."""
        from engine.rules.moves import MoveBuffers, generate_moves, steps_to_move

        if not hasattr(self, "_buffers"):
            self._buffers = MoveBuffers()
        buffers = self._buffers
        n = generate_moves(kernel_board(board), d1, d2, *buffers.args())
        best = self.choose(board, d1, d2, buffers.boards[:n]) if n > 1 else 0
        return steps_to_move(buffers.steps[best]), buffers.boards[best].copy()


class NetPlayer:
    """Chooses the move with the highest 0-ply equity of the nets it is handed."""

    def __init__(self, evaluator: Evaluator, name: str | None = None) -> None:
        self.evaluator = evaluator
        self.name = name or f"net:{evaluator.name}"
        self.kernel = (
            net_choose,
            (evaluator.kernel_params(), np.zeros(MAX_RESULTS, np.float64), np.zeros((MAX_RESULTS, 5), np.float32)),
        )

    def choose(self, board, d1, d2, candidates) -> int:
        return int(net_choose(self.kernel[1], board, len(candidates), candidates))


class PlayerSpecError(ValueError):
    """A player spec that names no known player."""


class GnubgPlayerError(RuntimeError):
    """gnubg's move is not among our legal results."""


class GnubgPlayer:
    """GNU Backgammon's checker play at ``ply`` 0, 1 or 2 (``gnubg0``, ``gnubg1``,
    ``gnubg2``: gnubg-nn's ``best_move(..., n=PLY)``, cubeless money), through the
    gnubg-nn package.

    It gives the strength figures of our nets a reference measured on the same dice
    and by the same code, rather than a figure quoted from elsewhere.  gnubg-nn is
    optional: the player is built only when a duel names it.
    """

    kernel = None  # a Python call per decision: gnubg's nets do not run inside numba

    def __init__(self, ply: int = 0) -> None:
        if ply not in (0, 1, 2):
            raise PlayerSpecError(f"gnubg{ply}: gnubg-nn plays at 0, 1 or 2 plies")
        self.ply = ply
        self.name = f"gnubg{ply}"
        try:
            import gnubg_nn
        except ImportError as exc:
            raise PlayerSpecError(
                f"the gnubg0 player needs the gnubg-nn package (pip install gnubg-nn), which is not installed: {exc}"
            ) from exc
        self.gnubg = gnubg_nn

    def choose(self, board: np.ndarray, d1: int, d2: int, candidates: np.ndarray) -> int:
        # gnubg_nn boards have the player on roll in row 1; its key names the result
        # with the mover in row 0, like our candidates
        _steps, key = self.gnubg.best_move(board[::-1].tolist(), d1, d2, n=self.ply, b=1)
        for i, candidate in enumerate(candidates):
            if self.gnubg.key_of_board(candidate.tolist()) == key:
                return i
        raise GnubgPlayerError(f"dice {d1}{d2}: gnubg's move is not among our {len(candidates)} legal results")


def _random_player(arg: str) -> RandomPlayer:
    if not arg:
        return RandomPlayer(0)
    if not arg.isdigit() or int(arg) >= 2**64:
        raise PlayerSpecError(f"random:SEED needs a seed from 0 to 2**64 - 1, got {arg!r}")
    return RandomPlayer(int(arg))


def _pubeval_player(arg: str) -> PubevalPlayer:
    return PubevalPlayer()


def _gnubg_player(arg: str) -> GnubgPlayer:
    return GnubgPlayer(0)


def _gnubg1_player(arg: str) -> GnubgPlayer:
    return GnubgPlayer(1)


def _gnubg2_player(arg: str) -> GnubgPlayer:
    return GnubgPlayer(2)


# module-level functions only: a worker process receives them pickled by name
PLAYER_FACTORIES: dict[str, Callable[[str], Player]] = {
    "random": _random_player,
    "pubeval": _pubeval_player,
    "gnubg0": _gnubg_player,
    "gnubg1": _gnubg1_player,
    "gnubg2": _gnubg2_player,
}


def register_player(kind: str, factory: Callable[[str], Player]) -> None:
    """Let a higher layer add a spec kind (``nets.player`` adds ``net``); ``factory``
    must be a module-level function so that workers can receive it."""
    PLAYER_FACTORIES[kind] = factory


def registered_players() -> dict[str, Callable[[str], Player]]:
    """The registry as it stands, to hand to a worker process with its work."""
    return dict(PLAYER_FACTORIES)


def install_players(factories: dict[str, Callable[[str], Player]]) -> None:
    """In a worker: know the specs its parent knew (the kinds it registered too)."""
    PLAYER_FACTORIES.update(factories)


def make_player(spec: str) -> Player:
    """Build a player from ``kind`` or ``kind:argument`` (``random:7``, ``net:default@2``)."""
    kind, _, arg = spec.partition(":")
    factory = PLAYER_FACTORIES.get(kind)
    if factory is None:
        known = ", ".join(sorted(PLAYER_FACTORIES))
        hint = " (net:NAME is known once nets.player is imported)" if kind == "net" else ""
        raise PlayerSpecError(f"unknown player {spec!r}; known kinds: {known}{hint}")
    return factory(arg)
