"""Small numba helpers on bare ``(2, 25)`` boards that every layer needs.

The starting position, the board seen from the other side, and what a finished game
is worth to the side that bore off; kept with the rules so that evaluation, search
and self-play share one copy.
"""

from __future__ import annotations

import numpy as np
from numba import njit


def kernel_board(board) -> np.ndarray:
    """``board`` as the kernels take it: C-ordered, writeable int8 (a copy where it is
    not).  numba compiles a kernel apart for a read-only array (a ``Position``'s board
    is one), so every board that enters the kernels from Python passes here: one
    compiled copy of the search, the one the warm-up compiles."""
    return np.require(board, np.int8, ("C", "W"))


@njit(cache=True)
def initial_board():
    board = np.zeros((2, 25), dtype=np.int8)
    for side in range(2):
        board[side, 5] = 5
        board[side, 7] = 3
        board[side, 12] = 5
        board[side, 23] = 2
    return board


@njit(cache=True)
def mover_win_points(board):
    """Points the mover (row 0, all checkers off) wins: 1, gammon 2, backgammon 3."""
    if board[1].sum() < 15:
        return 1
    for i in range(18, 25):
        if board[1, i] > 0:
            return 3
    return 2


@njit(cache=True)
def flip_into(src, dst):
    for i in range(25):
        dst[0, i] = src[1, i]
        dst[1, i] = src[0, i]
