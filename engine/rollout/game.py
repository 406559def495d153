"""The self-play turn loop: roll, generate the moves, choose one, flip, until a side bears off.

There are two copies of the loop and only two: ``game_turns`` for Python players
and ``kernel_turns`` for numba ones.  Every game the engine plays goes through one
of them: duels (``play_game``, ``play_kernel_game``), rollouts
(``engine.rollout.cubeless``), the self-play samples and training positions
(``engine.rollout.selfplay_sample``, ``nets.train.labels``, ``nets.train.harvest``)
and the benchmark positions (``fibsbot.bench.speed``).

Seats 0 and 1 take the dice of ``engine.rules.dice`` for a game seed; swapping which
player sits in seat 0 replays the same dice with the roles exchanged, the basis of
duplicate duels.  A *kernel* is a numba function ``choose(params, board, n,
candidates) -> index`` choosing among post-move boards (mover still in row 0).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import NamedTuple

import numpy as np
from numba import njit

from engine.rules.boards import flip_into, initial_board, mover_win_points
from engine.rules.dice import game_seed, opening_roll, roll
from engine.rules.moves import MoveBuffers, generate_moves

MAX_TURNS = 10_000  # random play ends long before; guards against a broken player

# What an ``on_turn`` hook of ``kernel_turns`` returns, besides a candidate's index
PLAYERS_CHOOSE = -1  # the seat's kernel player picks the move
STOP = -2  # the game stops before this turn's move (a rollout's truncation)

# How ``kernel_turns`` ended
BORNE_OFF = 0
STOPPED = 1
OUT_OF_TURNS = 2


# Inlined into every caller (numba's own inlining, before types are inferred), so
# the ``choose`` and ``on_turn`` functions a caller names are plain calls there:
# passed on at run time they would be addresses in the machine code, and a cached
# caller (the rollouts, the training positions) could then not be saved to disk.
@njit(inline="always")
def kernel_turns(choose0, params0, choose1, params1, on_turn, state, board, seed_value, d0, d1, seat, max_turns, root):
    """Play turns from ``board`` (the side in ``seat`` on roll in row 0, about to play
    (d0, d1), turn 0 of game seed ``seed_value``); return (how it ended, seat, turns played).

    Each turn ``on_turn(state, board, d0, d1, turn, seat, n, candidates)`` sees the
    position and its ``n`` results before the move: it may record them, return a
    candidate's index to play, ``STOP`` to end the game there, or ``PLAYERS_CHOOSE``
    to let ``choose0`` or ``choose1`` (the kernel of the seat on roll) pick, asked only
    when there is a choice.

    Sharing the loop costs next to nothing: timed against the loops it replaced, in
    one process on the same games, duels (pubeval, random) and rollouts (plain,
    pruned, varredn) play at 0.99 to 1.01 times their old speed, harvesting too,
    and 0-ply self-play for training positions at about 0.98.  What does cost is
    a call per turn that takes the search context apart (a reference count per
    array): keep a hook's ``state`` small, and let the function that searches take
    the player apart itself (``engine.rollout.cubeless_kernel._choose0``).

    ``board`` ends as the last position from the view of the returned seat: the
    winner's, checkers all off, when ``BORNE_OFF``; the one on roll when ``STOPPED``.
    ``root`` is ``MoveBuffers.args()``, whose boards hold the turn's results.
    """
    boards, steps, table, stamp, stack = root
    for turn in range(max_turns):
        if turn > 0:
            d0, d1 = roll(seed_value, turn)
        n = generate_moves(board, d0, d1, boards, steps, table, stamp, stack)
        best = on_turn(state, board, d0, d1, turn, seat, n, boards)
        if best == STOP:
            return STOPPED, seat, turn
        if best == PLAYERS_CHOOSE:
            best = 0
            if n > 1:
                if seat == 0:
                    best = choose0(params0, board, n, boards)
                else:
                    best = choose1(params1, board, n, boards)
        after = boards[best]
        if after[0].sum() == 0:
            board[:] = after
            return BORNE_OFF, seat, turn + 1
        flip_into(after, board)
        seat ^= 1
    return OUT_OF_TURNS, seat, max_turns


@njit(inline="always")
def kernel_game(choose0, params0, choose1, params1, on_turn, state, seed_value, max_turns, root):
    """``kernel_turns`` from the starting position and the opening roll, whose higher
    die moves first; returns ``kernel_turns``'s figures and the last board."""
    board = initial_board()
    d0, d1 = opening_roll(seed_value)
    end, seat, turns = kernel_turns(
        choose0,
        params0,
        choose1,
        params1,
        on_turn,
        state,
        board,
        seed_value,
        d0,
        d1,
        0 if d0 > d1 else 1,
        max_turns,
        root,
    )
    return end, seat, turns, board


@njit(cache=True)
def players_choose(state, board, d0, d1, turn, seat, n, candidates):
    """The ``on_turn`` hook of a plain game: the players pick every move."""
    return PLAYERS_CHOOSE


# Not cached on disk: numba keys a cache entry by the dispatcher types of the
# ``choose`` arguments, which never match across processes, so every run compiled
# anyway and appended an entry to an index that grew without bound, until entries
# whose dispatchers no longer exist made every save fail ("underlying object has
# vanished").  Compiling costs about 2 s per pairing of player kinds per process.
@njit
def play_kernel_game(choose0, params0, choose1, params1, seed_value, boards, steps, table, stamp, stack):
    """Play one game; return (winning seat, points 1-3, number of turns)."""
    end, seat, turns, board = kernel_game(
        choose0,
        params0,
        choose1,
        params1,
        players_choose,
        0,
        seed_value,
        MAX_TURNS,
        (boards, steps, table, stamp, stack),
    )
    if end == BORNE_OFF:
        return seat, mover_win_points(board), turns
    return -1, 0, MAX_TURNS


@njit  # not cached on disk, for the reason given at play_kernel_game
def kernel_duel(choose_a, params_a, choose_b, params_b, seed, first_pair, n_pairs, boards, steps, table, stamp, stack):
    """Points for A in each game of ``n_pairs`` duplicate pairs: shape (n_pairs, 2).

    Game 0 of a pair seats A in seat 0, game 1 seats B there with the same dice.
    """
    points = np.zeros((n_pairs, 2), dtype=np.int64)
    turns = 0
    for p in range(n_pairs):
        s = game_seed(seed, first_pair + p)
        winner, pts, t = play_kernel_game(choose_a, params_a, choose_b, params_b, s, boards, steps, table, stamp, stack)
        points[p, 0] = pts if winner == 0 else -pts
        turns += t
        winner, pts, t = play_kernel_game(choose_b, params_b, choose_a, params_a, s, boards, steps, table, stamp, stack)
        points[p, 1] = pts if winner == 1 else -pts
        turns += t
    return points, turns


# ``choose(board, d1, d2, candidates) -> index``, a Python player's choice
PythonChooser = Callable[[np.ndarray, int, int, np.ndarray], int]


class Turn(NamedTuple):
    """One turn of ``game_turns``: the position before the move and the move played."""

    number: int  # 0 for the opening roll
    seat: int  # of the side on roll
    board: np.ndarray  # before the move, mover in row 0; the game's own, never written again
    dice: tuple[int, int]
    candidates: np.ndarray  # every legal result; a view of the move buffers, valid until the next turn
    chosen: int  # index of the move played
    after: np.ndarray  # candidates[chosen]
    bears_off: bool  # the move bore off the last checker, ending the game


def game_turns(
    choose0: PythonChooser, choose1: PythonChooser, seed_value: int, buffers: MoveBuffers | None = None
) -> Iterator[Turn]:
    """Yield every turn of one game between Python choosers, the same game
    ``play_kernel_game`` plays for the same seed and choices; the last turn
    ``bears_off`` unless the game ran past ``MAX_TURNS``.

    Each turn is yielded once its move is chosen, so a caller that stops early has
    had one choice made for nothing; the choosers see only the turns with a choice.
    The ``Turn`` records make games of the quickest players (pubeval, random) about
    4% slower than the loops this one replaced; next to a Python player's own
    thinking they are nothing.
    """
    buffers = buffers or MoveBuffers()
    seed_value = np.uint64(seed_value)  # type: ignore[assignment]  # the dice kernels take the unsigned word
    board = initial_board()
    d0, d1 = opening_roll(seed_value)
    seat = 0 if d0 > d1 else 1
    choosers = (choose0, choose1)
    for turn in range(MAX_TURNS):
        if turn > 0:
            d0, d1 = roll(seed_value, turn)
        dice = (int(d0), int(d1))
        n = generate_moves(board, d0, d1, *buffers.args())
        candidates = buffers.boards[:n]
        best = 0 if n == 1 else choosers[seat](board, dice[0], dice[1], candidates)
        after = candidates[best]
        bears_off = after[0].sum() == 0
        yield Turn(turn, seat, board, dice, candidates, best, after, bears_off)
        if bears_off:
            return
        board = after[::-1].copy()
        seat ^= 1


def play_game(player0, player1, seed_value: int, buffers: MoveBuffers | None = None):
    """Play one game between Python players; return (winning seat, points, turns).

    Uses the same dice as ``play_kernel_game`` for the same game seed.
    """
    last = None
    for last in game_turns(  # noqa: B007  (the last turn is the one wanted)
        player0.choose, player1.choose, seed_value, buffers
    ):
        pass
    if last is None or not last.bears_off:
        raise RuntimeError(f"game did not end within {MAX_TURNS} turns")
    return last.seat, int(mover_win_points(last.after)), last.number + 1
