"""Players that choose a move: random, pubeval, and the interface nets plug into.

A player has a ``name`` and ``choose(board, d1, d2, candidates) -> index`` over
post-move boards (mover in row 0).  Players that can run inside numba also expose
``kernel = (choose_function, params)`` so whole duels run without Python overhead.
Players are built from short specs (``random``, ``pubeval``, ``gnubg0``, ``net:NAME@PLY``)
so that worker processes can rebuild them.
"""

from __future__ import annotations

from typing import Callable, Protocol

import numpy as np
from numba import njit

from engine.dice import splitmix64
from engine.pubeval import pubeval_choose, pubeval_weights


class Player(Protocol):
    name: str
    kernel: tuple | None

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
        from engine.moves import MoveBuffers, generate_moves, steps_to_move

        if not hasattr(self, "_buffers"):
            self._buffers = MoveBuffers()
        buffers = self._buffers
        n = generate_moves(np.ascontiguousarray(board, np.int8), d1, d2, *buffers.args())
        best = self.choose(board, d1, d2, buffers.boards[:n]) if n > 1 else 0
        return steps_to_move(buffers.steps[best]), buffers.boards[best].copy()


class PlayerSpecError(ValueError):
    """A player spec that names no known player."""


def _random_player(arg: str) -> RandomPlayer:
    if not arg:
        return RandomPlayer(0)
    if not arg.isdigit() or int(arg) >= 2**64:
        raise PlayerSpecError(f"random:SEED needs a seed from 0 to 2**64 - 1, got {arg!r}")
    return RandomPlayer(int(arg))


def _gnubg_player(arg: str) -> Player:
    from engine.gnubg_player import GnubgPlayer

    return GnubgPlayer()


PLAYER_FACTORIES: dict[str, Callable[[str], Player]] = {
    "random": _random_player,
    "pubeval": lambda arg: PubevalPlayer(),
    "gnubg0": _gnubg_player,
}


def register_player(kind: str, factory: Callable[[str], Player]) -> None:
    """Let later modules (nets, search) add spec kinds such as ``net``."""
    PLAYER_FACTORIES[kind] = factory


def make_player(spec: str) -> Player:
    """Build a player from ``kind`` or ``kind:argument`` (``random:7``, ``net:default@2``)."""
    kind, _, arg = spec.partition(":")
    if kind == "net" and "net" not in PLAYER_FACTORIES:
        import nets.player  # noqa: F401  registers the neural player on import
    factory = PLAYER_FACTORIES.get(kind)
    if factory is None:
        known = ", ".join(sorted(PLAYER_FACTORIES))
        raise PlayerSpecError(f"unknown player {spec!r}; known kinds: {known}")
    return factory(arg)
