"""Playing whole cubeless games, fast (numba) or with any Python player.

Seats 0 and 1 take the dice of ``engine.rules.dice`` for a game seed; swapping which
player sits in seat 0 replays the same dice with the roles exchanged, the basis of
duplicate duels.  A *kernel* is a numba function ``choose(params, board, n,
candidates) -> index`` choosing among post-move boards (mover still in row 0).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.rules.dice import game_seed, opening_roll, roll
from engine.rules.moves import MoveBuffers, generate_moves
from engine.rules.boards import flip_into, initial_board, mover_win_points
from engine.rules.position import Position

MAX_TURNS = 10_000  # random play ends long before; guards against a broken player


# Not cached on disk: numba keys a cache entry by the dispatcher types of the
# ``choose`` arguments, which never match across processes, so every run compiled
# anyway and appended an entry to an index that grew without bound, until entries
# whose dispatchers no longer exist made every save fail ("underlying object has
# vanished").  Compiling costs about 2 s per pairing of player kinds per process.
@njit
def play_kernel_game(choose0, params0, choose1, params1, seed_value, boards, steps,
                     table, stamp, stack):
    """Play one game; return (winning seat, points 1-3, number of turns)."""
    board = initial_board()
    d0, d1 = opening_roll(seed_value)
    seat = 0 if d0 > d1 else 1
    for turn in range(MAX_TURNS):
        if turn > 0:
            d0, d1 = roll(seed_value, turn)
        n = generate_moves(board, d0, d1, boards, steps, table, stamp, stack)
        best = 0
        if n > 1:
            if seat == 0:
                best = choose0(params0, board, n, boards)
            else:
                best = choose1(params1, board, n, boards)
        after = boards[best]
        if after[0].sum() == 0:
            return seat, mover_win_points(after), turn + 1
        flip_into(after, board)
        seat ^= 1
    return -1, 0, MAX_TURNS


@njit  # not cached on disk, for the reason given at play_kernel_game
def kernel_duel(choose_a, params_a, choose_b, params_b, seed, first_pair, n_pairs,
                boards, steps, table, stamp, stack):
    """Points for A in each game of ``n_pairs`` duplicate pairs: shape (n_pairs, 2).

    Game 0 of a pair seats A in seat 0, game 1 seats B there with the same dice.
    """
    points = np.zeros((n_pairs, 2), dtype=np.int64)
    turns = 0
    for p in range(n_pairs):
        s = game_seed(seed, first_pair + p)
        winner, pts, t = play_kernel_game(choose_a, params_a, choose_b, params_b, s, boards,
                                          steps, table, stamp, stack)
        points[p, 0] = pts if winner == 0 else -pts
        turns += t
        winner, pts, t = play_kernel_game(choose_b, params_b, choose_a, params_a, s, boards,
                                          steps, table, stamp, stack)
        points[p, 1] = pts if winner == 1 else -pts
        turns += t
    return points, turns


def play_game(player0, player1, seed_value: int, buffers: MoveBuffers | None = None):
    """Play one game between Python players; return (winning seat, points, turns).

    Uses the same dice as ``play_kernel_game`` for the same game seed.
    """
    buffers = buffers or MoveBuffers()
    seed_value = np.uint64(seed_value)
    board = Position.initial().board.copy()
    d0, d1 = opening_roll(seed_value)
    seat = 0 if d0 > d1 else 1
    players = (player0, player1)
    for turn in range(MAX_TURNS):
        if turn > 0:
            d0, d1 = roll(seed_value, turn)
        n = generate_moves(board, d0, d1, *buffers.args())
        best = 0 if n == 1 else players[seat].choose(board, int(d0), int(d1), buffers.boards[:n])
        after = buffers.boards[best]
        if after[0].sum() == 0:
            return seat, int(mover_win_points(after)), turn + 1
        board = after[::-1].copy()
        seat ^= 1
    raise RuntimeError(f"game did not end within {MAX_TURNS} turns")
