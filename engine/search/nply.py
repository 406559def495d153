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

from engine.eval.eval_sets import invert_probs, static_set
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
from engine.rules.dice import ROLL_WEIGHTS
from engine.search.context import evaluate0
from engine.search.replies import (  # noqa: F401  (part of this module's face)
    best_reply0,
    choose_replies,
    gather_marked,
    pruned,
    pruned_results,
    value0,
)


@njit(cache=True)
def evaluate1(ctx, board, buf1, probs):
    """1-ply probabilities of ``board`` for its side on roll."""
    # nothing kept: this runs for every position of a 2-ply look, and the copies would show
    choose_replies(ctx, board, buf1, probs, np.empty((0, 2, 25), np.int8), np.empty((21, 5), np.float32), None)


@njit(cache=True)
def evaluate2(ctx, board, buf2, buf1, probs):
    """2-ply probabilities of ``board`` for its side on roll."""
    replies = np.empty((21, 2, 25), np.int8)
    reply_probs = np.empty((21, 5), np.float32)
    choose_replies(ctx, board, buf2, probs, replies, reply_probs, None)
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
    if ply == 0:
        return rank_root(ctx, candidates, n, weights, equities, probs, plies)
    _score_root(ctx, candidates, n, weights, equities, probs, plies)
    _deeper(ctx, candidates, n, ply, filters, weights, buf2, buf1, equities, probs, plies)
    return best_of(plies, equities, n)


@njit(cache=True)
def rank_root(ctx, candidates, n, weights, equities, probs, plies):
    """``rank_candidates`` at 0-ply, compiled apart from the lookahead: a 0-ply player
    (a rollout's, a 0-ply duel's) compiles a few seconds of kernels, not the search's
    minutes.  The root net's favourites alone meet the full net where the context has
    one (``_pruned_root``)."""
    if ctx.root_keep > 0 and _pruned_root(ctx, candidates, n, weights, equities, probs, plies):
        return best_of(plies, equities, n)
    _score_root(ctx, candidates, n, weights, equities, probs, plies)
    return best_of(plies, equities, n)


@njit(cache=True)
def _score_root(ctx, candidates, n, weights, equities, probs, plies):
    """Every candidate's 0-ply figures (one set, ``static_set``) and equity; depth 0, or
    ``WON`` for a move that ends the game (exact: never searched again, always preferred)."""
    static_set(ctx, candidates, n, probs)
    for i in range(n):
        equities[i] = weighted_equity(probs[i], weights)
        plies[i] = 0
        if candidates[i, 0].sum() == 0:
            plies[i] = WON


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
                choose_replies(ctx, flipped, buf1, opp, replies[used], reply_probs[used], None)
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


@njit(cache=True)
def root_choose(params, board, n, candidates):
    """Duel kernel of a 0-ply player: ``search_choose``'s move without the lookahead compiled."""
    ctx, _ply, _filters, weights, _buf2, _buf1, equities, probs, plies = params
    return rank_root(ctx, candidates, n, weights, equities, probs, plies)
