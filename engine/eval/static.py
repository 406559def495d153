"""0-ply decisions without the search kernels: a small path for a cold start.

``engine.search.nply.rank_candidates`` evaluates a roll's candidates as one set
(``engine.eval.eval_sets.static_set``, incremental) and links the whole lookahead, so
numba compiles all of the 2-ply search the first time any decision is made, even at
0-ply.  The functions here give the same 0-ply figures one candidate at a time
(equal up to float32 rounding) and compile only the net, the encoders and the
bearoff lookup: what a bot needs to play while the search is still being compiled
elsewhere (``fibsbot.warmup``), and all that a 0-ply decision ever needs (with the
root net's incremental pass where the root is pruned, ``prune_root``).

Compiling even these takes over ten CPU seconds on a fresh install, so
``rank_interpreted`` and ``probabilities_interpreted`` run the same code without
numba (``engine.eval.pytwin``): a few milliseconds a candidate, nothing to compile.

The context (``ctx``) is ``engine.search.context.SearchContext``; only its nets, bearoff
tables and one evaluation's scratch (inputs, hidden, raw) are used here.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.eval.eval_sets import all_in_home, bearoff_probs, invert_probs, won_probs
from engine.eval.evaluator import evaluate_pair
from engine.eval.incremental import ChainScratch, evaluate_replies_chained
from engine.eval.pubeval import board_has_contact
from engine.eval.pytwin import twin
from engine.rules.boards import flip_into as _flip

WON = 99  # the depth given to a move that ends the game: its value is exact
PRUNED = -1  # the depth of a root candidate the root net passed over: never chosen, never searched


# inline: a call passes the context's tuple of arrays field by field, and this runs for
# every position a lookahead looks up (the 2-ply search ran about 15% faster inlined)
@njit(cache=True, inline="always")
def evaluate_static(ctx, board, probs):
    """Static probabilities of ``board`` for its side on roll, without the cache."""
    if all_in_home(board[0]) and all_in_home(board[1]):
        bearoff_probs(ctx, board, probs)
    else:
        evaluate_pair(ctx.nets, board, ctx.inputs, ctx.hidden, ctx.raw, probs)


@njit(cache=True)
def weighted_equity(p, weights):
    """Equity with gammon and backgammon values (money: all ones)."""
    return 2.0 * p[0] - 1.0 + weights[0] * p[1] + weights[1] * p[2] - weights[2] * p[3] - weights[3] * p[4]


@njit(cache=True)
def prune_root(ctx, candidates, n, weights, chosen, probs):
    """Whether a decision's root is pruned (``ctx.root_keep`` > 0, more candidates than
    that, every one in contact: races and bear-offs have cheap evaluators of their own);
    if so, the root net's (``Evaluator.root``) mover probabilities of every candidate
    into ``probs`` and its ``root_keep`` favourites (by ``weights``) marked in ``chosen``
    for the full net, as gnubg's pruning nets choose what its full net scores."""
    keep = ctx.root_keep
    if keep <= 0 or n <= keep:
        return False
    for i in range(n):
        if not board_has_contact(candidates[i]):
            return False
    net = ctx.root_net
    opp = ctx.set_scratch.other_probs
    chain = ChainScratch(ctx.inputs, ctx.hidden, ctx.chain_sums)
    evaluate_replies_chained(
        net.W1, net.b1, net.W2, net.b2, net.W3, net.b3, net.arch, net.enc,
        candidates, n, ctx.reply_scratch, chain, opp,
    )  # fmt: skip
    cheap = np.empty(n)
    for i in range(n):
        invert_probs(opp[i], probs[i])
        cheap[i] = weighted_equity(probs[i], weights)
    mark_best(cheap, n, keep, chosen)
    return True


@njit(cache=True)
def mark_best(values, n, keep, chosen):
    """Mark in ``chosen`` the ``keep`` of the ``n`` highest ``values`` (the first of equals)."""
    for i in range(n):
        chosen[i] = False
    for _ in range(keep):
        top = -1
        for i in range(n):
            if not chosen[i] and (top < 0 or values[i] > values[top]):
                top = i
        chosen[top] = True


@njit(cache=True)
def best_of(plies, equities, n):
    """The index of the deepest candidate, the best by equity among equals."""
    best = -1
    for i in range(n):
        if best < 0 or plies[i] > plies[best] or (plies[i] == plies[best] and equities[i] > equities[best]):
            best = i
    return best


@njit(cache=True)
def rank_static(ctx, candidates, n, weights, equities, probs, plies):
    """0-ply figures of ``n`` post-move boards (mover in row 0), as
    ``engine.search.nply.rank_candidates`` gives them at ply 0: per-candidate equity
    (``weights``), the mover's probabilities, and the depth (0, ``WON`` for a move
    that ends the game, which is always chosen, or ``PRUNED`` at a pruned root,
    ``prune_root``, with the root net's figures); returns the best index."""
    flipped = np.empty_like(candidates[0])
    p = np.empty(5, np.float32)
    chosen = np.ones(n, np.bool_)
    prune_root(ctx, candidates, n, weights, chosen, probs)
    for i in range(n):
        if not chosen[i]:
            equities[i] = weighted_equity(probs[i], weights)
            plies[i] = PRUNED
            continue
        if candidates[i, 0].sum() == 0:
            won_probs(candidates[i], p)
            plies[i] = WON
        else:
            _flip(candidates[i], flipped)
            evaluate_static(ctx, flipped, p)
            invert_probs(p, p)  # the opponent's figures, turned to the mover's
            plies[i] = 0
        for j in range(5):
            probs[i, j] = p[j]
        equities[i] = weighted_equity(p, weights)
    return best_of(plies, equities, n)


def rank_interpreted(ctx, candidates, n, weights, equities, probs, plies) -> int:
    """``rank_static`` run by the interpreter (``engine.eval.pytwin``): nothing is compiled."""
    boards = np.ascontiguousarray(candidates[:n], dtype=np.int64)  # numba's integer widths
    return int(twin(rank_static)(ctx, boards, n, np.asarray(weights, np.float64), equities, probs, plies))


def probabilities_interpreted(ctx, board, probs) -> None:
    """``evaluate_static`` run by the interpreter: the side on roll's five probabilities."""
    twin(evaluate_static)(ctx, np.ascontiguousarray(board, dtype=np.int64), probs)
