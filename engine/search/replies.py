"""A roll's reply inside a lookahead, chosen as gnubg chooses it: the pruning net
scores every legal move, the full net its few favourites (``engine.search.context.PRUNE_KEEP``),
and the best of those by the full net is played.  ``choose_replies`` does so for the
21 rolls of a position (the 1-ply look, and the first half of a 2-ply one).

With a ``deep5`` contact net the 21 rolls' favourites are gathered first and looked up
together (``engine.search.context.evaluate0_many``), so that its cache misses are
evaluated four at a time; the choice and the figures are those of one roll at a time.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.eval.eval_sets import invert_probs, won_probs
from engine.eval.incremental import evaluate_replies
from engine.eval.net import DEEP5, equity_of
from engine.eval.static import evaluate_static, mark_best, weighted_equity
from engine.rules.boards import flip_into as _flip
from engine.rules.dice import DISTINCT_ROLLS as ROLLS
from engine.rules.dice import ROLL_WEIGHTS
from engine.rules.moves import generate_moves
from engine.search.context import evaluate0, evaluate0_many


# inline: a call passes the context's tuple of arrays field by field, and this runs for
# every position a lookahead looks up (the 2-ply search ran about 15% faster inlined)
@njit(cache=True, inline="always")
def value0(ctx, cand, flipped, out, cached=True):
    """0-ply probabilities, for the mover, of a post-move board (mover in row 0).

    The root of a decision skips the cache (``cached=False``): its candidates are
    seen once, while positions inside a lookahead recur across rolls and candidates.
    (A decision's root goes through ``engine.eval.eval_sets.static_set`` instead.)"""
    if cand[0].sum() == 0:
        won_probs(cand, out)
        return
    _flip(cand, flipped)
    if cached:
        evaluate0(ctx, flipped, out)
    else:
        evaluate_static(ctx, flipped, out)
    invert_probs(out, out)  # the opponent's figures, turned to the mover's


@njit(cache=True)
def pruned(ctx, boards, n, flipped, keep, chosen):
    """Mark the ``keep`` replies the small pruning net likes best (gnubg's pruning:
    the full net then scores only those)."""
    small = ctx.prune_net
    opp = ctx.set_scratch.other_probs
    evaluate_replies(
        small.W1,
        small.b1,
        small.W2,
        small.b2,
        small.W3,
        small.b3,
        small.arch,
        small.enc,
        boards,
        n,
        ctx.reply_scratch,
        opp,
    )
    cheap = np.empty(n)
    for i in range(n):
        cheap[i] = -equity_of(opp[i])  # the opponent's figures: the mover's equity is minus theirs
    mark_best(cheap, n, keep, chosen)


@njit(cache=True)
def pruned_results(ctx, boards, n, keep):
    """The ``keep`` results the pruning net likes best, copied out in their order:
    (those boards, their indices among the ``n``, how many)."""
    mask = np.zeros(n, np.bool_)
    pruned(ctx, boards, n, np.empty((2, 25), np.int8), keep, mask)
    return gather_marked(boards, n, mask, keep)


@njit(cache=True)
def gather_marked(boards, n, mask, keep):
    """The at most ``keep`` of ``n`` results marked in ``mask``, copied out in their order:
    (those boards, their indices among the ``n``, how many)."""
    few = np.empty((keep, 2, 25), np.int8)
    where = np.empty(keep, np.int64)
    m = np.int64(0)
    for i in range(n):
        if mask[i]:
            few[m] = boards[i]
            where[m] = i
            m += 1
    return few, where, m


@njit(cache=True, inline="always")
def _favourites(ctx, boards, n, flipped, chosen):
    """The replies of ``n`` that the full net scores, marked in ``chosen``: the pruning
    net's ``ctx.prune_keep`` favourites, or all where there are no more (or no pruning
    net).  Returns -1, or the index of a reply that ends the game (its figures are
    exact, so it is played and nothing is marked)."""
    for i in range(n):
        if boards[i, 0].sum() == 0:
            return i
    for i in range(n):
        chosen[i] = True
    keep = ctx.prune_keep
    if keep > 0 and n > keep:
        pruned(ctx, boards, n, flipped, keep, chosen)
    return -1


@njit(cache=True, inline="always")
def _reply_equity(p, weights):
    """The mover's equity of a reply's probabilities: cubeless money equity without
    ``weights``, else with those gammon values (``weighted_equity``)."""
    if weights is None:
        return equity_of(p)
    return weighted_equity(p, weights)


@njit(cache=True)
def best_reply0(ctx, boards, n, flipped, best_probs, weights):
    """Index of the 0-ply best of ``n`` post-move boards, its mover probabilities;
    with a pruning net, only its favourite replies meet the full net.  ``weights``:
    the mover's gammon values at a match score (``weighted_equity``); without them,
    cubeless money equity (compiled apart, so the money search is unchanged)."""
    chosen = np.empty(n, np.bool_)
    won = _favourites(ctx, boards, n, flipped, chosen)
    if won >= 0:
        won_probs(boards[won], best_probs)
        return won
    best = -1
    best_eq = -1e9
    p = np.empty(5, np.float32)
    for i in range(n):
        if not chosen[i]:
            continue
        # the few chosen replies, mostly cached, one by one: an incremental path here
        # saves little time and doubles what numba compiles before the first move
        value0(ctx, boards[i], flipped, p)
        eq = _reply_equity(p, weights)
        if eq > best_eq:
            best_eq = eq
            best = i
            for j in range(5):
                best_probs[j] = p[j]
    return best


@njit(cache=True)
def choose_replies(ctx, board, buf, probs, replies, reply_probs, weights):
    """1-ply probabilities of ``board`` for its side on roll, and each roll's chosen
    reply's 0-ply figures; ``replies`` (21 rows, or none where nothing is kept)
    receives the replies (a 2-ply look starts from them); ``weights``: the side on
    roll's gammon values, or None for cubeless money (``best_reply0``).

    Every caller passes every argument with the same types (no defaults, no
    constants): numba compiles a function apart for each omitted argument and each
    literal, and this one, with all it inlines, is the largest part of the search."""
    if ctx.nets.contact_arch == DEEP5 and ctx.prune_keep > 0:
        _choose_replies_together(ctx, board, buf, reply_probs, replies, weights)
    else:
        boards, steps, tk, st, stack = buf
        flipped = np.empty((2, 25), np.int8)
        for r in range(21):
            n = generate_moves(board, ROLLS[r, 0], ROLLS[r, 1], boards, steps, tk, st, stack)
            best = best_reply0(ctx, boards, n, flipped, reply_probs[r], weights)
            if replies.shape[0] > 0:
                for s in range(2):
                    for p in range(25):
                        replies[r, s, p] = boards[best, s, p]
    acc = np.zeros(5)
    for r in range(21):
        for j in range(5):
            acc[j] += ROLL_WEIGHTS[r] * reply_probs[r, j]
    for j in range(5):
        probs[j] = acc[j]


@njit(cache=True)
def _choose_replies_together(ctx, board, buf, reply_probs, replies, weights):
    """``choose_replies``' choice of each roll's reply (``best_reply0``) for a ``deep5``
    net with a pruning net: the 21 rolls' favourites gathered first and evaluated
    together (``evaluate0_many``: four at a time), then each roll's best chosen among
    its own.  The same replies and figures as one roll at a time; ``replies`` (21 rows,
    or none) receives the chosen boards."""
    boards, steps, tk, st, stack = buf
    keep = ctx.prune_keep
    chosen_boards = np.empty((21 * keep, 2, 25), np.int8)  # each roll's favourites, as moved
    flipped = np.empty((21 * keep, 2, 25), np.int8)  # and as the next side sees them
    start = np.zeros(21, np.int64)  # roll r's favourites: start[r] to start[r] + count[r]
    count = np.zeros(21, np.int64)  # none where a move ends the game (its figures are exact)
    mask = np.empty(boards.shape[0], np.bool_)
    scratch_flip = np.empty((2, 25), np.int8)
    m = np.int64(0)  # int64 from the start: numba compiled evaluate0_many apart for a literal 0 too
    for r in range(21):
        start[r] = m
        n = generate_moves(board, ROLLS[r, 0], ROLLS[r, 1], boards, steps, tk, st, stack)
        won = _favourites(ctx, boards, n, scratch_flip, mask[:n])
        if won >= 0:
            won_probs(boards[won], reply_probs[r])
            if replies.shape[0] > 0:
                replies[r] = boards[won]
            continue
        for i in range(n):
            if mask[i]:
                chosen_boards[m] = boards[i]
                _flip(boards[i], flipped[m])
                m += 1
        count[r] = m - start[r]
    opp = np.empty((m, 5), np.float32)
    evaluate0_many(ctx, flipped, m, opp)
    p = np.empty(5, np.float32)
    for r in range(21):
        if count[r] == 0:
            continue
        best = -1
        best_eq = -1e9
        for c in range(start[r], start[r] + count[r]):
            invert_probs(opp[c], p)
            eq = _reply_equity(p, weights)
            if eq > best_eq:
                best_eq = eq
                best = c
                for j in range(5):
                    reply_probs[r, j] = p[j]
        if replies.shape[0] > 0:
            replies[r] = chosen_boards[best]
