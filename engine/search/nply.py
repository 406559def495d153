"""n-ply evaluation (n = 0, 1, 2) with gnubg-style move filters and a position cache.

Plies count as gnubg counts them.  The value of a position with a side to roll:

* 0-ply: the net (or, when both sides are on their home points, the one-sided
  bearoff database);
* n-ply: the average over the 21 rolls (doubles 1/36, others 2/36) of the (n-1)-ply
  value of the reply the side on roll would pick at 0-ply, as gnubg does: choosing
  each reply by the static net keeps 2-ply to thousands of evaluations, not millions.

A move decision scores every legal move at 0-ply, keeps at most ``k1`` within
``w1`` of the best for 1-ply, then at most ``k2`` within ``w2`` of the best 1-ply
value for 2-ply (gnubg's defaults are of this size).  Everything below runs in numba;
the context ``ctx`` (``SearchContext``) carries the nets, the bearoff tables, the
cache and scratch.

The 1-ply pass of a 2-ply decision keeps, for each candidate and roll, the reply it
chose; the 2-ply pass of the same candidate starts from those replies rather than
generating and choosing them again (the same replies, so the same figures).

A decision's root and every set of replies are evaluated as sets, each result from
a nearby reference (``engine.eval.eval_sets``, ``engine.eval.incremental``): equal to one-by-one
evaluation up to float32 rounding.

The context, its position cache and the cached 0-ply evaluation are
``engine.search.context``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.eval.eval_sets import (
    invert_probs,
    static_set,
    won_probs,
)
from engine.eval.incremental import evaluate_replies
from engine.eval.net import equity_of
from engine.eval.static import (  # noqa: F401  (part of this module's face)
    PRUNED,
    WON,
    best_of,
    evaluate_static,
    mark_best,
    prune_root,
    weighted_equity,
)
from engine.rules.boards import flip_into as _flip
from engine.rules.dice import DISTINCT_ROLLS as ROLLS
from engine.rules.dice import ROLL_WEIGHTS
from engine.rules.moves import generate_moves
from engine.search.context import evaluate0


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
    m = 0
    for i in range(n):
        if mask[i]:
            few[m] = boards[i]
            where[m] = i
            m += 1
    return few, where, m


@njit(cache=True)
def best_reply0(ctx, boards, n, flipped, best_probs, weights=None):
    """Index of the 0-ply best of ``n`` post-move boards, its mover probabilities;
    with a pruning net, only its favourite replies meet the full net.  ``weights``:
    the mover's gammon values at a match score (``weighted_equity``); without them,
    cubeless money equity (compiled apart, so the money search is unchanged)."""
    for i in range(n):
        if boards[i, 0].sum() == 0:
            won_probs(boards[i], best_probs)
            return i
    keep = ctx.prune_keep
    chosen = np.ones(n, np.bool_)
    if keep > 0 and n > keep:
        pruned(ctx, boards, n, flipped, keep, chosen)
    best = -1
    best_eq = -1e9
    p = np.empty(5, np.float32)
    for i in range(n):
        if not chosen[i]:
            continue
        # the few chosen replies, mostly cached, one by one: an incremental path here
        # saves little time and doubles what numba compiles before the first move
        value0(ctx, boards[i], flipped, p)
        if weights is None:
            eq = equity_of(p)
        else:
            eq = weighted_equity(p, weights)
        if eq > best_eq:
            best_eq = eq
            best = i
            for j in range(5):
                best_probs[j] = p[j]
    return best


@njit(cache=True)
def evaluate1(ctx, board, buf1, probs):
    """1-ply probabilities of ``board`` for its side on roll."""
    # nothing kept: this runs for every position of a 2-ply look, and the copies would show
    choose_replies(ctx, board, buf1, probs, np.empty((1, 2, 25), np.int8), np.empty((21, 5), np.float32), False)


@njit(cache=True)
def choose_replies(ctx, board, buf, probs, replies, reply_probs, keep=True, weights=None):
    """1-ply probabilities of ``board`` for its side on roll, and each roll's chosen
    reply's 0-ply figures; with ``keep``, the replies too (a 2-ply look starts from
    them); ``weights``: the side on roll's gammon values (``best_reply0``)."""
    boards, steps, tk, st, stack = buf
    acc = np.zeros(5)
    flipped = np.empty((2, 25), np.int8)
    for r in range(21):
        n = generate_moves(board, ROLLS[r, 0], ROLLS[r, 1], boards, steps, tk, st, stack)
        best = best_reply0(ctx, boards, n, flipped, reply_probs[r], weights)
        if keep:
            for s in range(2):
                for p in range(25):
                    replies[r, s, p] = boards[best, s, p]
        for j in range(5):
            acc[j] += ROLL_WEIGHTS[r] * reply_probs[r, j]
    for j in range(5):
        probs[j] = acc[j]


@njit(cache=True)
def evaluate2(ctx, board, buf2, buf1, probs):
    """2-ply probabilities of ``board`` for its side on roll."""
    replies = np.empty((21, 2, 25), np.int8)
    reply_probs = np.empty((21, 5), np.float32)
    choose_replies(ctx, board, buf2, probs, replies, reply_probs)
    evaluate2_from(ctx, replies, reply_probs, buf1, probs)


@njit(cache=True)
def evaluate2_from(ctx, replies, reply_probs, buf1, probs):
    """2-ply probabilities of a position from the replies ``choose_replies`` kept for
    it: each reply that does not end the game, looked at 1-ply deep."""
    acc = np.zeros(5)
    p = np.empty(5, np.float32)
    opp = np.empty(5, np.float32)
    flipped = np.empty((2, 25), np.int8)
    for r in range(21):
        for j in range(5):
            p[j] = reply_probs[r, j]
        if replies[r, 0].sum() > 0:
            _flip(replies[r], flipped)
            evaluate1(ctx, flipped, buf1, opp)
            invert_probs(opp, p)
        for j in range(5):
            acc[j] += ROLL_WEIGHTS[r] * p[j]
    for j in range(5):
        probs[j] = acc[j]


@njit(cache=True)
def evaluate_at(ctx, board, ply, buf2, buf1, probs):
    """``ply``-ply probabilities of ``board`` for its side on roll."""
    if ply == 0:
        evaluate0(ctx, board, probs)
    elif ply == 1:
        evaluate1(ctx, board, buf1, probs)
    else:
        evaluate2(ctx, board, buf2, buf1, probs)


@njit(cache=True)
def value_at(ctx, cand, ply, buf2, buf1, out):
    """Probabilities for the mover of a post-move board, looked at ``ply`` deep."""
    if ply == 0 or cand[0].sum() == 0:
        value0(ctx, cand, np.empty((2, 25), np.int8), out)
        return
    flipped = np.empty((2, 25), np.int8)
    _flip(cand, flipped)
    opp = np.empty(5, np.float32)
    evaluate_at(ctx, flipped, ply, buf2, buf1, opp)
    invert_probs(opp, out)


@njit(cache=True)
def _select(equities, plies, n, at_ply, keep, window, chosen):
    """Mark up to ``keep`` candidates evaluated at ``at_ply`` within ``window`` of the best."""
    best = -1e9
    for i in range(n):
        if plies[i] == at_ply and equities[i] > best:
            best = equities[i]
    order = np.argsort(-equities[:n])
    count = 0
    for k in range(n):
        i = order[k]
        chosen[i] = False
        if plies[i] == at_ply and count < keep and equities[i] >= best - window:
            chosen[i] = True
            count += 1
    return count


@njit(cache=True)
def rank_candidates(ctx, candidates, n, ply, filters, weights, buf2, buf1, equities, probs, plies):
    """Evaluate post-move boards at 0-ply, then the filtered ones deeper.

    ``filters`` = (k1, w1, k2, w2).  Fills per-candidate equity (``weights``),
    probabilities and the ply each was last evaluated at; returns the best index.
    A move that ends the game is always chosen (its value is exact).
    """
    if ply == 0 and ctx.root_keep > 0 and _pruned_root(ctx, candidates, n, weights, equities, probs, plies):
        return best_of(plies, equities, n)
    static_set(ctx, candidates, n, probs)
    for i in range(n):
        equities[i] = weighted_equity(probs[i], weights)
        plies[i] = 0
        if candidates[i, 0].sum() == 0:
            plies[i] = WON  # exact: never re-searched, always preferred
    if ply > 0:
        _deeper(ctx, candidates, n, ply, filters, weights, buf2, buf1, equities, probs, plies)
    return best_of(plies, equities, n)


@njit(cache=True)
def _pruned_root(ctx, candidates, n, weights, equities, probs, plies):
    """A 0-ply decision's root pruned (``engine.eval.static.prune_root``): the root net's
    favourites scored by the full net as one set, the rest ``PRUNED`` with the root
    net's figures; False where the root is not pruned (nothing done)."""
    chosen = np.ones(n, np.bool_)
    if not prune_root(ctx, candidates, n, weights, chosen, probs):
        return False
    keep = ctx.root_keep
    for i in range(n):
        equities[i] = weighted_equity(probs[i], weights)
        plies[i] = PRUNED
    few, where, m = gather_marked(candidates, n, chosen, keep)
    few_probs = np.empty((keep, 5), np.float32)
    static_set(ctx, few, m, few_probs)
    for c in range(m):
        i = where[c]
        for j in range(5):
            probs[i, j] = few_probs[c, j]
        equities[i] = weighted_equity(few_probs[c], weights)
        plies[i] = 0
    return True


@njit(cache=True)
def _deeper(ctx, candidates, n, ply, filters, weights, buf2, buf1, equities, probs, plies):
    """The filtered candidates of ``rank_candidates`` evaluated 1 and 2 plies deep."""
    p = np.empty(5, np.float32)
    chosen = np.zeros(n, np.bool_)
    # the 1-ply pass keeps each roll's reply, so the 2-ply pass need not choose it again
    kept = max(int(filters[0]), 1) if ply >= 2 else 1
    replies = np.empty((kept, 21, 2, 25), np.int8)
    reply_probs = np.empty((kept, 21, 5), np.float32)
    slot = np.full(n, -1, np.int64)
    flipped = np.empty((2, 25), np.int8)
    opp = np.empty(5, np.float32)
    for level in range(1, ply + 1):
        keep = int(filters[0]) if level == 1 else int(filters[2])
        window = filters[1] if level == 1 else filters[3]
        if _select(equities, plies, n, level - 1, keep, window, chosen) < 2:
            break
        used = 0
        for i in range(n):
            if not chosen[i]:
                continue
            if ply >= 2 and level == 1 and used < kept:
                _flip(candidates[i], flipped)
                choose_replies(ctx, flipped, buf1, opp, replies[used], reply_probs[used])
                invert_probs(opp, p)
                slot[i] = used
                used += 1
            elif level == 2 and slot[i] >= 0:
                evaluate2_from(ctx, replies[slot[i]], reply_probs[slot[i]], buf1, opp)
                invert_probs(opp, p)
            else:
                value_at(ctx, candidates[i], level, buf2, buf1, p)
            for j in range(5):
                probs[i, j] = p[j]
            equities[i] = weighted_equity(p, weights)
            plies[i] = level


@njit(cache=True)
def search_choose(params, board, n, candidates):
    """Duel kernel: the move of an n-ply search (see ``rank_candidates``)."""
    ctx, ply, filters, weights, buf2, buf1, equities, probs, plies = params
    return rank_candidates(ctx, candidates, n, ply[0], filters, weights, buf2, buf1, equities, probs, plies)
