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

The cache is direct-mapped like gnubg's: an exact 80-bit position key per slot (so a
hit is never a different position), and a newer position simply evicts an older one.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from engine.eval.bearoff import load_bearoff_db
from engine.eval.encode import CONTACT, CONTACT2
from engine.eval.eval_sets import (
    BearoffTables,
    SetScratch,
    all_in_home,
    bearoff_tables,
    invert_probs,
    make_set_scratch,
    static_set,
    won_probs,
)
from engine.eval.evaluator import NetPair
from engine.eval.incremental import ReplyScratch, evaluate_replies, make_reply_scratch
from engine.eval.limits import MAX_HIDDEN, MAX_INPUTS, RAW_LANES
from engine.eval.net import NetArrays, equity_of
from engine.eval.pubeval import board_has_contact
from engine.eval.split_eval import KEY_SIZE, evaluate_split
from engine.eval.static import WON, evaluate_static, weighted_equity  # noqa: F401  (part of this module's face)
from engine.rules.boards import flip_into as _flip
from engine.rules.dice import DISTINCT_ROLLS as ROLLS
from engine.rules.dice import ROLL_WEIGHTS
from engine.rules.moves import generate_moves

CACHE_BITS = 18
_OCCUPIED = np.uint64(1) << np.uint64(40)  # marks a used slot; real high key parts are < 2**16
_MIX = np.uint64(0x9E3779B97F4A7C15)


PRUNE_KEEP = 4  # replies a pruning net passes on to the full net inside a lookahead


class SearchContext(NamedTuple):
    """Everything the search kernels share: the nets, the bearoff tables, the position
    cache and the scratch of each kind of evaluation (``make_context``).  Every kernel
    that takes it gets all of it as arguments, so a new array here costs every call
    that is not inlined: a buffer idle while another is in use serves both."""

    nets: NetPair  # the full nets (``engine.eval.evaluator``)
    bearoff: BearoffTables  # ``engine.eval.eval_sets.bearoff_probs``
    cache_keys: np.ndarray  # (slots, 2) uint64: each slot's position key, 0 when empty
    cache_values: np.ndarray  # (slots, 5): its probabilities
    cache_counts: np.ndarray  # lookups and hits since the cache was last cleared
    # one evaluation's scratch (``engine.eval.static.evaluate_static``, ``evaluate_split``);
    # while a root set is evaluated, ``inputs`` and ``hidden`` hold its chain's even
    # inputs and odd sums (``engine.eval.eval_sets.static_set``)
    inputs: np.ndarray  # MAX_INPUTS
    hidden: np.ndarray  # MAX_HIDDEN
    raw: np.ndarray  # RAW_LANES
    chain_sums: np.ndarray  # MAX_HIDDEN: a root set's chain's even sums
    own_sums: np.ndarray  # MAX_HIDDEN: a lookahead's own sums (``engine.eval.split_eval``)
    own_key: np.ndarray  # KEY_SIZE: the row those sums belong to
    prune_net: NetArrays  # the pruning net (the contact net where there is none)
    prune_keep: int  # replies it passes on to the full net (0: no pruning)
    reply_scratch: ReplyScratch  # a set's pass (``engine.eval.incremental``)
    set_scratch: SetScratch  # a root set's (``engine.eval.eval_sets.static_set``)


def make_context(evaluator, cache_bits: int = CACHE_BITS, prune: bool = True) -> SearchContext:
    """The numba-side context of ``evaluator``, its pruning net (``evaluator.prune``)
    used when ``prune`` is set, and a cache of ``2**cache_bits`` positions."""
    size = 1 << cache_bits
    small = evaluator.prune if prune and evaluator.prune is not None else evaluator.contact
    keep = PRUNE_KEEP if prune and evaluator.prune is not None else 0
    return SearchContext(
        nets=evaluator.kernel_params(),
        bearoff=bearoff_tables(load_bearoff_db()),
        cache_keys=np.zeros((size, 2), np.uint64),
        cache_values=np.zeros((size, 5), np.float32),
        cache_counts=np.zeros(2, np.int64),
        inputs=np.zeros(MAX_INPUTS, np.float32),
        hidden=np.zeros(MAX_HIDDEN, np.float32),
        raw=np.empty(RAW_LANES, np.float32),
        chain_sums=np.zeros(MAX_HIDDEN, np.float32),
        own_sums=np.zeros(MAX_HIDDEN, np.float32),
        own_key=np.zeros(KEY_SIZE, np.float32),
        prune_net=small.arrays(),
        prune_keep=keep,
        reply_scratch=make_reply_scratch(),
        set_scratch=make_set_scratch(),
    )


def clear_cache(ctx: SearchContext) -> None:
    ctx.cache_keys[:] = 0
    ctx.cache_counts[:] = 0


def cache_stats(ctx: SearchContext) -> dict:
    """Lookups and hits of the position cache since it was last cleared."""
    lookups, hits = (int(v) for v in ctx.cache_counts)
    return {"lookups": lookups, "hits": hits, "hit_rate": hits / lookups if lookups else 0.0}


@njit(cache=True)
def position_key(board):
    """gnubg's position-key layout as two words (a 1 per checker, a 0 after each
    point), row 0 first: exact, so a cache hit is always the same position."""
    lo = np.uint64(0)
    hi = np.uint64(0)
    bit = 0
    for side in range(2):
        for i in range(25):
            n = np.int64(board[side, i])
            if n > 0:
                ones = (np.uint64(1) << np.uint64(n)) - np.uint64(1)  # n <= 15
                if bit < 64:
                    lo |= ones << np.uint64(bit)
                    if bit + n > 64:  # the run crosses into the high word
                        hi |= ones >> np.uint64(64 - bit)
                else:
                    hi |= ones << np.uint64(bit - 64)
            bit += n + 1
    return lo, hi


# inline: a call passes the context's tuple of arrays field by field, and this runs for
# every position a lookahead looks up (the 2-ply search ran about 15% faster inlined)
@njit(cache=True, inline="always")
def evaluate0(ctx, board, probs):
    """Static probabilities of ``board`` for its side on roll, through the cache."""
    keys, values = ctx.cache_keys, ctx.cache_values
    lo, hi = position_key(board)
    slot = np.int64(((lo ^ (hi * _MIX)) * _MIX) >> np.uint64(64 - CACHE_BITS)) & (keys.shape[0] - 1)
    marked = hi | _OCCUPIED
    counts = ctx.cache_counts
    counts[0] += 1
    if keys[slot, 0] == lo and keys[slot, 1] == marked:
        counts[1] += 1
        for j in range(5):
            probs[j] = values[slot, j]
        return
    _evaluate_miss(ctx, board, probs)
    keys[slot, 0] = lo
    keys[slot, 1] = marked
    for j in range(5):
        values[slot, j] = probs[j]


@njit(cache=True, inline="always")
def _evaluate_miss(ctx, board, probs):
    """``evaluate_static`` as a lookahead's cache misses need it: a contact position
    by ``engine.eval.split_eval`` (the side on roll's own sums kept in ``ctx.own_sums``)."""
    nets = ctx.nets
    enc = nets.contact_enc
    if (
        (enc != CONTACT and enc != CONTACT2)
        or (all_in_home(board[0]) and all_in_home(board[1]))
        or (nets.use_race and not board_has_contact(board))
    ):
        evaluate_static(ctx, board, probs)
        return
    scratch = ctx.reply_scratch
    evaluate_split(
        nets.contact_W1,
        nets.contact_b1,
        nets.contact_W2,
        nets.contact_b2,
        nets.contact_arch,
        enc,
        board,
        ctx.inputs,
        ctx.hidden,
        ctx.own_sums,
        ctx.own_key,
        scratch.rows,
        scratch.deltas,
        ctx.raw,
        probs,
    )


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
    evaluate_replies(small.W1, small.b1, small.W2, small.b2, small.arch, small.enc, boards, n, ctx.reply_scratch, opp)
    cheap = np.empty(n)
    for i in range(n):
        cheap[i] = -equity_of(opp[i])  # the opponent's figures: the mover's equity is minus theirs
        chosen[i] = False
    for _ in range(keep):
        top = -1
        for i in range(n):
            if not chosen[i] and (top < 0 or cheap[i] > cheap[top]):
                top = i
        chosen[top] = True


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
    static_set(ctx, candidates, n, probs)
    for i in range(n):
        equities[i] = weighted_equity(probs[i], weights)
        plies[i] = 0
        if candidates[i, 0].sum() == 0:
            plies[i] = WON  # exact: never re-searched, always preferred
    if ply > 0:
        _deeper(ctx, candidates, n, ply, filters, weights, buf2, buf1, equities, probs, plies)
    best = -1
    for i in range(n):
        if best < 0 or plies[i] > plies[best] or (plies[i] == plies[best] and equities[i] > equities[best]):
            best = i
    return best


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
