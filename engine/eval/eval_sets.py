"""0-ply evaluation of a whole set of post-move boards (the results of one roll).

The set is split by evaluator: finished games (exact), positions inside the
one-sided bearoff database, races (the race net) and contact positions (the
contact net).  Each net's share is evaluated in one ``evaluate_replies_chained``
pass, each board from the one before it (``engine.eval.incremental``).  The context
(``ctx``) is ``engine.search.context.SearchContext``; this module defines the parts of it
that it alone reads, ``BearoffTables`` and ``SetScratch``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from engine.eval.bearoff_gen import BINOM, rank_counts
from engine.eval.incremental import ChainScratch, evaluate_replies_chained
from engine.eval.pubeval import board_has_contact
from engine.rules.boards import mover_win_points
from engine.rules.moves import MAX_RESULTS


class BearoffTables(NamedTuple):
    """The one-sided bearoff database as ``bearoff_probs`` reads it."""

    off: np.ndarray  # (positions, rolls): P(all off in exactly n rolls)
    tail_off: np.ndarray  # P(not all off in n rolls)
    tail_first: np.ndarray  # P(none off in n rolls)
    binom: np.ndarray  # binomials for ``rank_counts``


def bearoff_tables(db) -> BearoffTables:
    """``BearoffTables`` of an ``engine.eval.bearoff.BearoffDB``."""
    return BearoffTables(db.off, db.tail_off, db.tail_first, BINOM.astype(np.int64))


class SetScratch(NamedTuple):
    """The scratch of ``static_set`` (the pruning pass of a lookahead uses ``other_probs`` too)."""

    other_probs: np.ndarray  # (MAX_RESULTS, 5): the other side's figures of each result
    boards: np.ndarray  # (MAX_RESULTS, 2, 25): the results one net evaluates
    origin: np.ndarray  # (MAX_RESULTS,): where each of those stands in the set
    classes: np.ndarray  # (MAX_RESULTS,): which evaluator each result goes to
    board: np.ndarray  # (2, 25): a result flipped
    probs: np.ndarray  # (5,): a result's figures


def make_set_scratch() -> SetScratch:
    return SetScratch(
        np.zeros((MAX_RESULTS, 5), np.float32),
        np.zeros((MAX_RESULTS, 2, 25), np.int8),
        np.zeros(MAX_RESULTS, np.int64),
        np.zeros(MAX_RESULTS, np.int64),
        np.zeros((2, 25), np.int8),
        np.zeros(5, np.float32),
    )


@njit(cache=True)
def all_in_home(row):
    """Whether every checker of a side's row is in its home board (or off)."""
    for i in range(6, 25):
        if row[i] > 0:
            return False
    return True


@njit(cache=True)
def bearoff_probs(ctx, board, probs):
    """The side on roll's five probabilities of a position with both sides in their
    home boards, from the one-sided database."""
    tables = ctx.bearoff
    off, tail_off, tail_first, binom = tables.off, tables.tail_off, tables.tail_first, tables.binom
    # each side's home board ranked in place (its checker counts are small, so the
    # board's int8 add up as its int64 copies did)
    us = rank_counts(board[0, :6], binom)
    them = rank_counts(board[1, :6], binom)
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
def won_probs(cand, probs):
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
    nets = ctx.nets
    use_race = nets.use_race
    scratch = ctx.set_scratch
    opp, dest, index = scratch.other_probs, scratch.boards, scratch.origin
    cls, flipped, p = scratch.classes, scratch.board, scratch.probs  # cls: 0 contact net, 1 race net, 2 done here
    # the chain's buffers: a single evaluation's inputs and hidden units, idle while a
    # set is evaluated (new arrays in the context would slow every call that passes it)
    chain = ChainScratch(ctx.inputs, ctx.hidden, ctx.chain_sums)
    for i in range(n):
        cls[i] = 0
        if boards[i, 0].sum() == 0:
            won_probs(boards[i], out[i])
            cls[i] = 2
        elif all_in_home(boards[i, 0]) and all_in_home(boards[i, 1]):
            for s in range(2):
                for k in range(25):
                    flipped[s, k] = boards[i, 1 - s, k]
            bearoff_probs(ctx, flipped, p)
            invert_probs(p, out[i])
            cls[i] = 2
        elif use_race and not board_has_contact(boards[i]):
            cls[i] = 1
    contact = 0
    for i in range(n):
        contact += cls[i] == 0
    if contact == n:  # the usual case: every result for the contact net, in place
        evaluate_replies_chained(
            nets.contact_W1,
            nets.contact_b1,
            nets.contact_W2,
            nets.contact_b2,
            nets.contact_W3,
            nets.contact_b3,
            nets.contact_arch,
            nets.contact_enc,
            boards,
            n,
            ctx.reply_scratch,
            chain,
            opp,
        )
        for c in range(n):
            invert_probs(opp[c], out[c])
        return
    for which in range(2):
        count = _gather(boards, n, cls, which, dest, index)
        if count == 0:
            continue
        if which == 0:
            evaluate_replies_chained(
                nets.contact_W1,
                nets.contact_b1,
                nets.contact_W2,
                nets.contact_b2,
                nets.contact_W3,
                nets.contact_b3,
                nets.contact_arch,
                nets.contact_enc,
                dest,
                count,
                ctx.reply_scratch,
                chain,
                opp,
            )
        else:
            evaluate_replies_chained(
                nets.race_W1,
                nets.race_b1,
                nets.race_W2,
                nets.race_b2,
                nets.race_W3,
                nets.race_b3,
                nets.race_arch,
                nets.race_enc,
                dest,
                count,
                ctx.reply_scratch,
                chain,
                opp,
            )
        for c in range(count):
            invert_probs(opp[c], out[index[c]])
