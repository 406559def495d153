"""0-ply evaluation of a whole set of post-move boards (the results of one roll).

The set is split by evaluator: finished games (exact), positions inside the
one-sided bearoff database, races (the race net) and contact positions (the
contact net).  Each net's share is evaluated in one ``evaluate_replies_chained``
pass, each board from the one before it (``engine.eval.incremental``).  Context layout: see
``engine.search.nply.make_context``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.eval.bearoff_gen import _rank
from engine.rules.boards import mover_win_points
from engine.eval.incremental import MAX_HIDDEN, evaluate_replies_chained
from engine.eval.pubeval import board_has_contact


@njit(cache=True)
def _in_home(row):
    for i in range(6, 25):
        if row[i] > 0:
            return False
    return True


@njit(cache=True)
def _bearoff_probs(ctx, board, probs):
    off, tail_off, tail_first, binom = ctx[1], ctx[2], ctx[3], ctx[4]
    c0, c1 = ctx[10], ctx[11]
    for p in range(6):
        c0[p] = board[0, p]
        c1[p] = board[1, p]
    us = _rank(c0, binom)
    them = _rank(c1, binom)
    n = off.shape[1]
    win = 0.0
    gammon_win = 0.0
    gammon_loss = 0.0
    for k in range(n):
        win += off[us, k] * tail_off[them, k]
        gammon_win += off[us, k] * tail_first[them, k]
        gammon_loss += off[them, k] * tail_first[us, k + 1]
    win = min(win, 1.0)
    probs[0] = win
    probs[1] = min(gammon_win, win)
    probs[2] = 0.0
    probs[3] = min(gammon_loss, max(1.0 - win, 0.0))
    probs[4] = 0.0


@njit(cache=True)
def _won(cand, probs):
    """The mover's probabilities after a move that bore off its last checker."""
    pts = mover_win_points(cand)
    probs[0] = 1.0
    probs[1] = 1.0 if pts >= 2 else 0.0
    probs[2] = 1.0 if pts >= 3 else 0.0
    probs[3] = 0.0
    probs[4] = 0.0


@njit(cache=True)
def invert_probs(src, out):
    """The other side's five probabilities (``out`` may be ``src`` itself)."""
    win, wg, wbg, lg, lbg = src[0], src[1], src[2], src[3], src[4]
    out[0] = 1.0 - win
    out[1] = lg
    out[2] = lbg
    out[3] = wg
    out[4] = wbg


@njit(cache=True)
def _gather(boards, n, cls, which, dest, index):
    count = 0
    for i in range(n):
        if cls[i] == which:
            for s in range(2):
                for p in range(25):
                    dest[count, s, p] = boards[i, s, p]
            index[count] = i
            count += 1
    return count


@njit(cache=True)
def static_set(ctx, boards, n, out):
    """The mover's 0-ply probabilities of each of ``n`` post-move boards (mover in
    row 0) into ``out[i]``, without the cache: a decision's root, where every
    candidate is new."""
    nets = ctx[0]
    use_race = nets[12]
    opp, dest, index = ctx[15], ctx[16], ctx[17]
    cls, flipped, p = ctx[19]  # cls: 0 contact net, 1 race net, 2 done here
    # the chain's buffers: a single evaluation's scratch, idle while a set is evaluated
    # (new arrays in the context would slow every call that passes it)
    chain = (ctx[7], ctx[8][:MAX_HIDDEN], ctx[8][MAX_HIDDEN:2 * MAX_HIDDEN])
    for i in range(n):
        cls[i] = 0
        if boards[i, 0].sum() == 0:
            _won(boards[i], out[i])
            cls[i] = 2
        elif _in_home(boards[i, 0]) and _in_home(boards[i, 1]):
            for s in range(2):
                for k in range(25):
                    flipped[s, k] = boards[i, 1 - s, k]
            _bearoff_probs(ctx, flipped, p)
            invert_probs(p, out[i])
            cls[i] = 2
        elif use_race and not board_has_contact(boards[i]):
            cls[i] = 1
    contact = 0
    for i in range(n):
        contact += cls[i] == 0
    if contact == n:  # the usual case: every result for the contact net, in place
        evaluate_replies_chained(nets[0], nets[1], nets[2], nets[3], nets[4], nets[5], boards, n, ctx[14], chain, opp)
        for c in range(n):
            invert_probs(opp[c], out[c])
        return
    for which in range(2):
        count = _gather(boards, n, cls, which, dest, index)
        if count == 0:
            continue
        if which == 0:
            evaluate_replies_chained(nets[0], nets[1], nets[2], nets[3], nets[4], nets[5], dest, count, ctx[14], chain,
                                     opp)
        else:
            evaluate_replies_chained(nets[6], nets[7], nets[8], nets[9], nets[10], nets[11], dest, count, ctx[14],
                                     chain, opp)
        for c in range(count):
            invert_probs(opp[c], out[index[c]])
