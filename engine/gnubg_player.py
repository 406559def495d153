"""GNU Backgammon's 0-ply as a duel player (``gnubg0``), through the gnubg-nn package.

It gives the strength figures of our nets a reference measured on the same dice
and by the same code, rather than a figure quoted from elsewhere.  gnubg-nn is
optional: the player is built only when a duel names it.
"""

from __future__ import annotations

import numpy as np

from engine.players import PlayerSpecError


class GnubgPlayerError(RuntimeError):
    """gnubg's move is not among our legal results."""


class GnubgPlayer:
    name = "gnubg0"
    kernel = None  # a Python call per decision: gnubg's nets do not run inside numba

    def __init__(self) -> None:
        try:
            import gnubg_nn
        except ImportError as exc:
            raise PlayerSpecError("the gnubg0 player needs the gnubg-nn package (pip install gnubg-nn), "
                                   f"which is not installed: {exc}") from exc
        self.gnubg = gnubg_nn

    def choose(self, board: np.ndarray, d1: int, d2: int, candidates: np.ndarray) -> int:
        # gnubg_nn boards have the player on roll in row 1; its key names the result
        # with the mover in row 0, like our candidates
        _steps, key = self.gnubg.best_move(board[::-1].tolist(), d1, d2, b=1)
        for i, candidate in enumerate(candidates):
            if self.gnubg.key_of_board(candidate.tolist()) == key:
                return i
        raise GnubgPlayerError(f"dice {d1}{d2}: gnubg's move is not among our {len(candidates)} legal results")
