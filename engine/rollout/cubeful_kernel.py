"""The games of a cubeful rollout, as numba kernels.

Each game is played from the rollout's position as gnubg's ``BasicCubefulRollout``
plays it at 0-ply: before each roll the side on roll takes its cube decision with
Janowski's cubeful values of its 0-ply probabilities (``engine.cube.janowski_kernel``),
and the other side takes or drops; a dropped double ends the game at the cube before
it.  Every move is the one whose result is worth most to the mover cubefully, the
opponent then on roll and free to double.  The cube's value and owner go with the
game; the rules (money or match, Jacoby, beavers, Crawford) are ``CubeRules``.

A game's value is the starting side's (player 0's): money in points divided by the
starting cube, a match in match winning chance.  ``engine.rollout.cubeful`` hands
out the games and sums them up.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from engine.cube.janowski_kernel import (
    DOUBLE_BEAVER,
    DOUBLE_DROP,
    DOUBLE_TAKE,
    cube_action,
    cube_life,
    decided_value,
    game_value,
    may_double,
)
from engine.eval.eval_sets import static_set
from engine.rollout.game import BORNE_OFF, STOP, kernel_turns
from engine.rules.boards import mover_win_points
from engine.rules.dice import DISTINCT_ROLLS, ROLL_WEIGHTS, game_seed
from engine.rules.moves import generate_moves
from engine.search.context import evaluate0
from engine.search.nply import pruned_results

MAX_TURNS = 2000

# the slots of a game's cube (an int64 array the turns update)
CUBE, OWNER, DROPPED_BY = 0, 1, 2


class CubefulGames(NamedTuple):
    """How the games of one rollout are played."""

    first_decides: bool  # the side on roll may double before the first roll (False: no double there)
    varredn: bool  # take each roll's luck off the game's value
    max_turns: int  # > 0: stop after that many turns with the cubeful 0-ply value


@njit(cache=True)
def _other_side(rules, value):
    return -value if rules.money else 1.0 - value


@njit(cache=True)
def _mover_value(rules, mover, cube, owner, result, mine):
    """The value to ``mover`` of ``result`` (mover in row 0, its probabilities ``mine``),
    the other side then on roll with the cube at ``cube`` and ``owner``, free to double."""
    if result[0].sum() == 0:
        return game_value(rules, mover, mover, mover_win_points(result), cube, owner)
    theirs = (1.0 - mine[0], float(mine[3]), float(mine[4]), float(mine[1]), float(mine[2]))
    return _other_side(rules, decided_value(rules, 1 - mover, cube, owner, theirs, cube_life(result, 1)))


@njit(cache=True)
def choose_cubeful(player, rules, mover, cube, owner, boards, n):
    """The result worth most to ``mover`` cubefully at 0-ply: (its index, its value, the
    row of ``player``'s probabilities that holds its figures, -1 when it ends the game).
    ``player`` is the cubeless rollout's (ctx, prune, ..., probs, ...): with ``prune``
    > 0 the pruning net's favourites are the only ones scored."""
    ctx, prune, filters, weights, buf2, buf1, equities, probs, plies, chosen = player
    for i in range(n):
        if boards[i, 0].sum() == 0:
            return i, game_value(rules, mover, mover, mover_win_points(boards[i]), cube, owner), -1
    keep = prune if ctx.prune_keep > 0 else 0
    if keep <= 0 or n <= keep:
        scored, where, m = boards, np.arange(n), n
    else:
        scored, where, m = pruned_results(ctx, boards, n, keep)
    static_set(ctx, scored, m, probs)
    best, best_value = 0, -np.inf
    for c in range(m):
        value = _mover_value(rules, mover, cube, owner, scored[c], probs[c])
        if value > best_value:
            best, best_value = c, value
    return where[best], best_value, best


@njit(cache=True)
def _roll_luck(player, rules, mover, cube, owner, board, d0, d1, root, after, carried):
    """Play the cubeful choice for (d0, d1) into ``after`` (its probabilities into
    ``carried``); return how much more it is worth to the mover than the mean over the
    21 rolls of each roll's choice (gnubg's variance reduction, cubefully: the luck
    has mean zero and takes most of the dice's noise off a game)."""
    boards, steps, tk, st, stack = root
    probs = player[7]
    mean = 0.0
    actual = 0.0
    for r in range(21):
        a, b = DISTINCT_ROLLS[r, 0], DISTINCT_ROLLS[r, 1]
        n = generate_moves(board, a, b, boards, steps, tk, st, stack)
        best, value, row = choose_cubeful(player, rules, mover, cube, owner, boards, n)
        mean += ROLL_WEIGHTS[r] * value
        if (a == d0 and b == d1) or (a == d1 and b == d0):
            actual = value
            after[:] = boards[best]
            if row >= 0:
                for j in range(5):
                    carried[j] = probs[row, j]
    return actual - mean


@njit(cache=True)
def _cubeful_turn(state, board, d0, d1, turn, seat, n, candidates):
    """``kernel_turns``' hook: the cube decision of the side on roll, then its move.

    ``carried`` holds the mover's probabilities of the move played last turn, which
    are the next side's before its roll (inverted): the cube decision needs no
    evaluation of its own."""
    player, rules, games, game, root, after, luck, carried = state
    if games.max_turns > 0 and turn == games.max_turns:
        return STOP
    cube, owner = game[CUBE], game[OWNER]
    if (turn > 0 or games.first_decides) and may_double(rules, seat, cube, owner):
        if turn == 0:
            p = np.empty(5, np.float32)
            evaluate0(player[0], board, p)
            mine = (float(p[0]), float(p[1]), float(p[2]), float(p[3]), float(p[4]))
        else:
            mine = (1.0 - carried[0], carried[3], carried[4], carried[1], carried[2])
        action, _ = cube_action(rules, seat, cube, owner, mine, cube_life(board, 0))
        if action == DOUBLE_DROP:
            game[DROPPED_BY] = seat
            return STOP
        if action == DOUBLE_TAKE:
            game[CUBE], game[OWNER] = 2 * cube, 1 - seat
        elif action == DOUBLE_BEAVER:
            game[CUBE], game[OWNER] = 4 * cube, 1 - seat
        cube, owner = game[CUBE], game[OWNER]
    if games.varredn:
        # the luck scan generates every roll's moves over the loop's own: its choice goes back as candidate 0
        gained = _roll_luck(player, rules, seat, cube, owner, board, d0, d1, root, after, carried)
        luck[0] += gained if seat == 0 else -gained  # one side's gain, in points or MWC, is the other's loss
        candidates[0] = after
        return 0
    if n <= 1:
        if candidates[0, 0].sum() > 0:
            # a forced move: its figures are still the next side's before its roll
            static_set(player[0], candidates, np.int64(1), player[7])  # int64: a literal is a type apart
            for j in range(5):
                carried[j] = player[7][0, j]
        return 0
    best, _, row = choose_cubeful(player, rules, seat, cube, owner, candidates, n)
    if row >= 0:
        probs = player[7]
        for j in range(5):
            carried[j] = probs[row, j]
    return best


@njit(cache=True)
def cubeful_games(
    ctx,
    start_board,
    seed,
    first_game,
    n_games,
    rules,
    games,
    cube,
    owner,
    filters,
    weights,
    root,
    buf2,
    buf1,
    equities,
    probs,
    plies,
    prune,
    out,
    final_cubes,
):
    """Fill ``out[i]`` with the value to player 0 (on roll in ``start_board``'s row 0)
    of game ``first_game + i``, and ``final_cubes[i]`` with its cube at the end (the
    dropped cube doubled, so that a drop shows as a double).  Money values are points
    divided by the starting ``cube``; match values are MWC."""
    board = np.empty((2, 25), np.int8)
    p = np.empty(5, np.float32)
    game = np.empty(3, np.int64)
    luck = np.zeros(1)
    carried = np.zeros(5)
    player = (ctx, prune, filters, weights, buf2, buf1, equities, probs, plies, p)
    state = (player, rules, games, game, root, np.empty((2, 25), np.int8), luck, carried)
    scale = float(cube) if rules.money else 1.0
    for i in range(n_games):
        g = first_game + i
        s = game_seed(seed, g)
        board[:] = start_board
        game[CUBE], game[OWNER], game[DROPPED_BY] = cube, owner, -1
        luck[0] = 0.0
        r = g % 36  # the first roll: every block of 36 games sees each roll once
        d0, d1 = r // 6 + 1, r % 6 + 1
        end, seat, _ = kernel_turns(
            _choose_unused,
            player,
            _choose_unused,
            player,
            _cubeful_turn,
            state,
            board,
            s,
            d0,
            d1,
            np.int64(0),  # a literal 0 seat would compile the hook apart
            MAX_TURNS,
            root,
        )
        if end == BORNE_OFF:
            value = game_value(rules, 0, seat, mover_win_points(board), game[CUBE], game[OWNER])
        elif game[DROPPED_BY] >= 0:
            value = game_value(rules, 0, game[DROPPED_BY], 1, game[CUBE], game[OWNER])
        else:  # cut short: the cubeful 0-ply value of the side on roll, free to double
            evaluate0(ctx, board, p)
            mine = decided_value(rules, seat, game[CUBE], game[OWNER], p, cube_life(board, 0))
            value = mine if seat == 0 else _other_side(rules, mine)
        out[i] = (value - luck[0]) / scale
        final_cubes[i] = game[CUBE] * (2 if game[DROPPED_BY] >= 0 else 1)


@njit(cache=True)
def _choose_unused(player, board, n, boards):
    """The loop's own chooser, never asked: the cubeful hook picks every move."""
    return 0
