"""The games of a cubeless rollout, as numba kernels: the 0-ply player, luck
adjustment (``varredn``), truncation, and ``rollout_games``, which plays a range of
games from one position with the dice of their game seeds.

``engine.rollout.cubeless`` describes the method and runs these kernels over processes
or a Ray cluster; it holds nothing else a game depends on.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.eval.eval_sets import all_in_home as _in_home
from engine.eval.eval_sets import static_set
from engine.eval.eval_sets import won_probs as _won
from engine.eval.forward import equity_of
from engine.rollout.game import BORNE_OFF, OUT_OF_TURNS, PLAYERS_CHOOSE, STOP, STOPPED, kernel_turns
from engine.rules.dice import DISTINCT_ROLLS, ROLL_WEIGHTS, game_seed
from engine.rules.moves import generate_moves
from engine.search.context import evaluate0
from engine.search.nply import invert_probs, pruned_results, rank_root

MAX_TURNS = 2000


@njit(cache=True)
def _choose0(player, board, n, boards):
    """The rollouts' kernel player: the 0-ply choice among the ``n`` results in
    ``boards``, its mover probabilities in ``chosen``; ``player`` is (ctx, prune,
    filters, weights, buf2, buf1, equities, probs, plies, chosen).

    With ``prune`` > 0 (and a pruning net), the pruning net's ``prune`` favourites
    are scored by the full net as one incremental set, without the cache: a rollout
    rarely meets a position twice.  The player is taken apart here rather than in a
    wrapper of the kernel form: every call that receives the search context pays
    for it (a reference count per array), and a wrapper made pruned rollouts about 3% slower."""
    ctx, prune, _filters, weights, _buf2, _buf1, equities, probs, plies, chosen = player
    keep = prune if ctx.prune_keep > 0 else 0
    if keep <= 0 or n <= keep:
        best = rank_root(ctx, boards, n, weights, equities, probs, plies)
        for j in range(5):
            chosen[j] = probs[best, j]
        return best
    for i in range(n):
        if boards[i, 0].sum() == 0:
            _won(boards[i], chosen)
            return i
    few, where, m = pruned_results(ctx, boards, n, keep)
    static_set(ctx, few, m, probs)
    top = 0
    for c in range(1, m):
        if equity_of(probs[c]) > equity_of(probs[top]):
            top = c
    for j in range(5):
        chosen[j] = probs[top, j]
    return where[top]


@njit(cache=True)
def _luck(player, board, d0, d1, root, after, luck):
    """Play the 0-ply choice for (d0, d1) into ``after`` and return, in ``luck``, how
    much better its 0-ply figures are for the mover than the average over the 21
    rolls of the 0-ply choice of each (gnubg's variance reduction by luck
    adjustment: the sum of these has mean zero, and taking it off a game's result
    removes most of the dice's noise)."""
    boards, steps, tk, st, stack = root
    p = player[-1]  # where _choose0 leaves the probabilities of its choice
    mean = np.zeros(5)
    for r in range(21):
        a, b = DISTINCT_ROLLS[r, 0], DISTINCT_ROLLS[r, 1]
        n = generate_moves(board, a, b, boards, steps, tk, st, stack)
        best = _choose0(player, board, n, boards)
        for j in range(5):
            mean[j] += ROLL_WEIGHTS[r] * p[j]
        if (a == d0 and b == d1) or (a == d1 and b == d0):
            for j in range(5):
                luck[j] = p[j]
            for s in range(2):
                for k in range(25):
                    after[s, k] = boards[best, s, k]
    for j in range(5):
        luck[j] -= mean[j]


@njit(cache=True)
def _game_over(truncate, max_turns, board, turn):
    """Whether a rollout game stops here: both sides in the bearoff database
    (``truncate``), or ``max_turns`` played."""
    return (truncate and _in_home(board[0]) and _in_home(board[1])) or (max_turns > 0 and turn == max_turns)


@njit(cache=True)
def _stop_when_over(state, board, d0, d1, turn, seat, n, candidates):
    """Stop the game where ``_game_over`` says (``kernel_turns``' hook)."""
    truncate, max_turns = state
    return STOP if _game_over(truncate, max_turns, board, turn) else PLAYERS_CHOOSE


@njit(cache=True)
def _take_luck_until_over(state, board, d0, d1, turn, seat, n, candidates):
    """Stop the game where ``_game_over`` says, else play the turn through ``_luck``
    and add its luck, seen by the starting side (seat 0), to ``luck_sum``
    (``kernel_turns``' hook, for ``varredn``)."""
    player, truncate, max_turns, root, after, luck, luck_sum = state
    if _game_over(truncate, max_turns, board, turn):
        return STOP
    # the luck scan generates every roll's moves over the loop's own: its choice goes back as candidate 0
    _luck(player, board, d0, d1, root, after, luck)
    if seat == 1:
        invert_probs(luck, luck)  # a difference: the mover's gains are the starter's losses
        luck[0] -= 1.0
    for j in range(5):
        luck_sum[j] += luck[j]
    candidates[0] = after
    return 0


@njit(cache=True)
def rollout_games(
    ctx,
    start_board,
    seed,
    first_game,
    n_games,
    truncate,
    filters,
    weights,
    root,
    buf2,
    buf1,
    equities,
    probs,
    plies,
    out,
    varredn=False,
    max_turns=0,
    prune=0,
):
    """Fill ``out[i]`` with the five outcomes (or truncated probabilities) of game
    ``first_game + i`` from ``start_board`` (side on roll in row 0, before its roll),
    from that side's point of view.  ``varredn``: less the luck of every roll (see
    ``_luck``); ``max_turns`` > 0: stop after that many turns with the 0-ply figures;
    ``prune`` > 0: the pruning net picks that many moves for the full net (``_choose0``).
    The games are played by ``engine.rollout.game.kernel_turns``."""
    board = np.empty((2, 25), np.int8)
    p = np.empty(5, np.float32)
    result = np.empty(5)  # the side on roll's, float64 as ``out``
    luck_sum = np.zeros(5)  # the starting side's view
    player = (ctx, prune, filters, weights, buf2, buf1, equities, probs, plies, p)
    luck_state = (player, truncate, max_turns, root, np.empty((2, 25), np.int8), np.empty(5), luck_sum)
    for i in range(n_games):
        g = first_game + i
        s = game_seed(seed, g)
        board[:] = start_board
        luck_sum[:] = 0.0
        r = g % 36  # the first roll: every block of 36 games sees each roll once
        d0, d1 = r // 6 + 1, r % 6 + 1
        # a hook of its own for varredn: a hook's state is taken apart every turn, and
        # one holding the search context as well made the rollouts about 5% slower
        if varredn:
            end, seat, _ = kernel_turns(
                _choose0,
                player,
                _choose0,
                player,
                _take_luck_until_over,
                luck_state,
                board,
                s,
                d0,
                d1,
                np.int64(0),  # a literal 0 seat would compile the hooks apart
                MAX_TURNS,
                root,
            )
        else:
            end, seat, _ = kernel_turns(
                _choose0,
                player,
                _choose0,
                player,
                _stop_when_over,
                (truncate, max_turns),
                board,
                s,
                d0,
                d1,
                np.int64(0),  # a literal 0 seat would compile the hooks apart
                MAX_TURNS,
                root,
            )
        if end == BORNE_OFF:
            _won(board, result)  # the winner's, the side on roll at the end
        elif end == STOPPED:
            evaluate0(ctx, board, p)
            for j in range(5):
                result[j] = p[j]
        else:
            result[:] = 0.0  # a game past MAX_TURNS (never seen) counts as nothing
        if end != OUT_OF_TURNS and seat == 1:
            invert_probs(result, result)
        for j in range(5):
            out[i, j] = result[j] - luck_sum[j]
