"""Incremental evaluation of nearby positions (the NNUE idea, for backgammon).

Every result of one roll differs from the others by the few checkers that moved
and the blots they hit.  The first layer's sums ``b1 + x @ W1`` of such a position
can therefore start from those of a reference (the first result evaluated) and add
``(x - x_ref)[i] * W1[i]`` only for the inputs that differ: a handful of point
units, and the hand-made features that changed.  The point units come from the
counts of the points that differ; only the units after them (bar, off, features)
are computed afresh (``engine.eval.encode.encode_tail_into``).

``evaluate_replies`` evaluates a whole set in one pass, every result from the first
(the pruning net of a lookahead); ``evaluate_replies_chained`` starts each result
from the one before it, and every ``CHAIN``-th from the first again, so rounding
does not build up (a decision's root).  Either way a set decides its own references,
so a result does not depend on what was evaluated before.  ``evaluate_near`` does
one board at a time against a reference kept per slot in a state (``make_state``),
forgotten with ``forget``; its reference is always a full evaluation.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from engine.eval.encode import (
    CONTACT,
    TESAURO,
    contact_half,
    contact_level,
    encode_into,
    encode_tail_into,
    point_index,
    point_units,
    tail_ranges,
)
from engine.eval.limits import MAX_HIDDEN, MAX_INPUTS, RAW_LANES
from engine.eval.net import DEEP5, add_row, add_rows4, deep_probs_quad, deep_probs_some, first_layer, net_probs, sigmoid
from engine.eval.sanity import keep_possible, keep_possible_flipped

SLOTS = 3
CONTACT_SLOT, RACE_SLOT, PRUNE_SLOT = 0, 1, 2
CHAIN = 16  # results a chain of references runs before it starts from the first again


class NearState(NamedTuple):
    """``evaluate_near``'s references, one per slot, and its scratch."""

    refs: np.ndarray  # (SLOTS, 2, 25) each slot's reference board
    ref_inputs: np.ndarray  # (SLOTS, MAX_INPUTS) its inputs
    ref_sums: np.ndarray  # (SLOTS, MAX_HIDDEN) its first-layer sums
    valid: np.ndarray  # (SLOTS,) 1 where the slot holds a reference
    inputs: np.ndarray  # MAX_INPUTS: the board's tail units
    hidden: np.ndarray  # MAX_HIDDEN
    raw: np.ndarray  # RAW_LANES
    units: np.ndarray  # (2, 4): a point's old and new units


class ReplyScratch(NamedTuple):
    """The scratch of one pass over a set (``evaluate_replies``, ``evaluate_replies_chained``)."""

    ref_inputs: np.ndarray  # MAX_INPUTS: the set's first result's inputs
    inputs: np.ndarray  # MAX_INPUTS: a later result's (the odd results' in a chain)
    ref_sums: np.ndarray  # MAX_HIDDEN: the first result's first-layer sums
    hidden: np.ndarray  # MAX_HIDDEN
    raw: np.ndarray  # RAW_LANES
    flipped: np.ndarray  # (2, 25) int8: a result as the net sees it
    rows: np.ndarray  # MAX_INPUTS int64: the inputs that changed from the reference
    deltas: np.ndarray  # MAX_INPUTS: by how much


class ChainScratch(NamedTuple):
    """What ``evaluate_replies_chained`` needs beyond ``ReplyScratch``: the even
    results' inputs, and the odd and even results' first-layer sums (each result
    starts from the one before it, so two of each are alive at once)."""

    even_inputs: np.ndarray  # MAX_INPUTS
    odd_sums: np.ndarray  # MAX_HIDDEN
    even_sums: np.ndarray  # MAX_HIDDEN


def make_state() -> NearState:
    return NearState(
        np.zeros((SLOTS, 2, 25), np.int8),
        np.zeros((SLOTS, MAX_INPUTS), np.float32),
        np.zeros((SLOTS, MAX_HIDDEN), np.float32),
        np.zeros(SLOTS, np.int64),
        np.zeros(MAX_INPUTS, np.float32),
        np.empty(MAX_HIDDEN, np.float32),
        np.empty(RAW_LANES, np.float32),
        np.empty((2, 4), np.float32),
    )


@njit(cache=True)
def forget(state):
    state.valid[:] = 0


@njit(cache=True, fastmath=True)
def _reference(W1, b1, enc, board, xr, ar):
    encode_into(enc, board, xr)
    first_layer(W1, b1, xr, ar)


@njit(cache=True, fastmath=True, inline="always")
def _add_row(hs, W1, i, d):
    if d != 0.0:
        add_row(hs, W1[i], d)


@njit(cache=True, fastmath=True, error_model="numpy")
def evaluate_near(W1, b1, W2, b2, W3, b3, arch, enc, board, state, slot, probs):
    """Five probabilities of ``board`` (side on roll in row 0), from the slot's
    reference when it has one; else ``board`` becomes the reference."""
    refs, xrefs, accs, valid = state.refs, state.ref_inputs, state.ref_sums, state.valid
    xc, h, raw, units = state.inputs, state.hidden, state.raw, state.units
    n_in, n_hidden = W1.shape
    xr = xrefs[slot, :n_in]
    ar = accs[slot, :n_hidden]
    hs = h[:n_hidden]
    if valid[slot] == 0:
        _reference(W1, b1, enc, board, xr, ar)
        for s in range(2):
            for p in range(25):
                refs[slot, s, p] = board[s, p]
        valid[slot] = 1
        for j in range(n_hidden):
            hs[j] = ar[j]
    else:
        ref = refs[slot]
        for j in range(n_hidden):
            hs[j] = ar[j]
        old, new = units[0], units[1]
        for s in range(2):
            for p in range(25):
                if board[s, p] == ref[s, p]:
                    continue
                k = point_index(enc, s, p)
                if k < 0:
                    continue  # a tail unit
                point_units(enc, ref[s, p], old)
                point_units(enc, board[s, p], new)
                for u in range(4):
                    _add_row(hs, W1, k + u, new[u] - old[u])
        encode_tail_into(enc, board, xc)
        a0, a1, b0, b1 = tail_ranges(enc)
        for i in range(a0, a1):
            _add_row(hs, W1, i, xc[i] - xr[i])
        for i in range(b0, b1):
            _add_row(hs, W1, i, xc[i] - xr[i])
    for j in range(n_hidden):
        hs[j] = sigmoid(hs[j])
    net_probs(arch, W2, b2, W3, b3, hs, raw, probs)
    keep_possible(board, probs)


def probabilities_near(net, boards: np.ndarray) -> np.ndarray:
    """(n, 5) probabilities of boards, each after the first evaluated from the first
    (the first is the reference): for tests and comparisons with ``Net.probabilities``."""
    boards = np.ascontiguousarray(boards, dtype=np.int8)
    state = make_state()
    out = np.zeros((len(boards), 5), np.float32)
    for i in range(len(boards)):
        evaluate_near(*net.arrays(), boards[i], state, 0, out[i])  # type: ignore[call-arg]  # a numba dispatcher
    return out


@njit(cache=True, fastmath=True, error_model="numpy")
def evaluate_replies(W1, b1, W2, b2, W3, b3, arch, enc, boards, n, scratch, probs_out):
    """Probabilities of the side to roll next after each of ``n`` results of one roll
    (``boards[i]``: mover in row 0; ``probs_out[i]``: the other side's five, as the
    net sees the flipped board), in one pass: the first result is evaluated in
    full and is the reference of the others.  One call per set keeps the per-board
    cost to the changed rows, the hidden units and the outputs (the pruning net of a
    lookahead runs this on every reply; a decision's root, with its wider net, runs
    ``evaluate_replies_chained``).  Each result's figures are kept within what it
    allows (``engine.eval.sanity``)."""
    xr, x, ar, h = scratch.ref_inputs, scratch.inputs, scratch.ref_sums, scratch.hidden
    raw, flipped, rows, deltas = scratch.raw, scratch.flipped, scratch.rows, scratch.deltas
    n_in, n_hidden = W1.shape
    hs = h[:n_hidden]
    layout = _layout(enc)
    for i in range(n):
        for p in range(25):
            flipped[0, p] = boards[i, 1, p]
            flipped[1, p] = boards[i, 0, p]
        if i == 0:
            _reference(W1, b1, enc, flipped, xr[:n_in], ar[:n_hidden])
            for j in range(n_hidden):
                hs[j] = ar[j]
        else:
            m = _point_changes(layout, boards, 0, i, rows, deltas)
            encode_tail_into(enc, flipped, x)
            m = _tail_changes(layout, x, xr, rows, deltas, m)
            add_rows(hs, ar, W1, rows, deltas, m)
        for j in range(n_hidden):
            hs[j] = sigmoid(hs[j])
        net_probs(arch, W2, b2, W3, b3, hs, raw, probs_out[i])
        keep_possible(flipped, probs_out[i])


@njit(cache=True, fastmath=True, error_model="numpy")
def evaluate_replies_chained(W1, b1, W2, b2, W3, b3, arch, enc, boards, n, scratch, chain_scratch, probs_out):
    """``evaluate_replies`` with each result after the first starting from the sums of
    the result before it (``chain_scratch``: ``make_chain_scratch``): results come
    out of move generation in tree order, so neighbours share a checker's move, about
    15 changed rows a contact result against 20 from the first.  Every ``CHAIN``-th
    result starts from the first again, so rounding cannot build up along a long
    set; a set's figures still depend only on the set.  Worth it for a wide hidden
    layer (a decision's root); for the pruning net following the chain costs more
    than the rows it saves.

    A ``deep5`` net's second layer runs for four results at once (``deep_probs_quad``;
    the last one to three of a set padded to four): its weights stream from memory
    once for all four."""
    xr, x, ar, h = scratch.ref_inputs, scratch.inputs, scratch.ref_sums, scratch.hidden
    raw, flipped, rows, deltas = scratch.raw, scratch.flipped, scratch.rows, scratch.deltas
    x2, sums, sums2 = chain_scratch.even_inputs, chain_scratch.odd_sums, chain_scratch.even_sums
    n_in, n_hidden = W1.shape
    hs = h[:n_hidden]
    layout = _layout(enc)
    deep = arch == DEEP5
    held = np.empty((4 if deep else 0, n_hidden), np.float32)  # first layers waiting for their quad
    second = np.empty((4 if deep else 0, W2.shape[1]), np.float32)
    raws = np.empty((4 if deep else 0, RAW_LANES), np.float32)
    for i in range(n):
        for p in range(25):
            flipped[0, p] = boards[i, 1, p]
            flipped[1, p] = boards[i, 0, p]
        if i == 0:
            _reference(W1, b1, enc, flipped, xr[:n_in], ar[:n_hidden])
            for j in range(n_hidden):
                hs[j] = sigmoid(ar[j])
        else:
            # the reference: the result before (its sums and inputs in the buffers of
            # parity i - 1), or the first one at the start of each chain
            r = 0 if i % CHAIN == 1 else i - 1
            if r == 0:
                xs, start = xr, ar
            elif r % 2 == 1:
                xs, start = x, sums
            else:
                xs, start = x2, sums2
            xo, dst = (x, sums) if i % 2 == 1 else (x2, sums2)
            m = _point_changes(layout, boards, r, i, rows, deltas)
            encode_tail_into(enc, flipped, xo)
            m = _tail_changes(layout, xo, xs, rows, deltas, m)
            sd = dst[:n_hidden]
            add_rows(sd, start, W1, rows, deltas, m)
            for j in range(n_hidden):
                hs[j] = sigmoid(sd[j])
        if not deep:
            net_probs(arch, W2, b2, W3, b3, hs, raw, probs_out[i])
            continue
        for j in range(n_hidden):
            held[i % 4, j] = hs[j]
        if i % 4 == 3:
            deep_probs_quad(W2, b2, W3, b3, held, second, raws, probs_out, i - 3)
    left = n % 4 if deep else 0
    if left:
        last = np.empty((4, 5), np.float32)
        deep_probs_some(W2, b2, W3, b3, held, left, second, raws, last)
        for b in range(left):
            for k in range(5):
                probs_out[n - left + b, k] = last[b, k]
    for i in range(n):  # the quads' results land together, so every result is kept possible here
        keep_possible_flipped(boards[i], probs_out[i])


@njit(cache=True, inline="always")
def _layout(enc):
    """What ``_point_changes`` and ``_tail_changes`` need to know of an encoding, worked out once a set."""
    a0, a1, b0, b1 = tail_ranges(enc)
    level = contact_level(enc)
    contact = level >= 0
    half = contact_half(level)
    points = 25 if contact else 24  # tesauro's bar is a tail unit
    return a0, a1, b0, b1, contact, half, points


@njit(cache=True, inline="always")
def _point_changes(layout, boards, r, i, rows, deltas):
    """The point units in which result ``i`` differs from result ``r`` (both flipped,
    as the net sees them): their rows and changes.  Returns how many."""
    a0, a1, b0, b1, contact, half, points = layout
    kind = 1 if contact else 0
    m = 0
    for s in range(2):
        base = s * half if contact else s * 96
        old = boards[r, 1 - s]  # the flipped board's row s is the result's row 1 - s
        new = boards[i, 1 - s]
        for p in range(points):
            a = old[p]
            b = new[p]
            if a != b:
                k = base + 4 * p
                for q in range(_CHANGED[kind, a, b]):
                    rows[m] = k + _CHANGED_UNIT[kind, a, b, q]
                    deltas[m] = _CHANGED_BY[kind, a, b, q]
                    m += 1
    return m


@njit(cache=True, inline="always")
def _tail_changes(layout, x, xs, rows, deltas, m):
    """``_point_changes`` continued with the tail units (``x`` and ``xs``: the two
    results' inputs).  Returns how many changes in all."""
    a0, a1, b0, b1, contact, half, points = layout
    for t in range(a0, a1):
        if x[t] != xs[t]:
            rows[m] = t
            deltas[m] = x[t] - xs[t]
            m += 1
    for t in range(b0, b1):
        if x[t] != xs[t]:
            rows[m] = t
            deltas[m] = x[t] - xs[t]
            m += 1
    return m


@njit(cache=True, fastmath=True, inline="always")
def add_rows(hs, start, W1, rows, deltas, m):
    """hs = start + sum of deltas[q] * W1[rows[q]]: four rows a pass, so the hidden
    sums are loaded and stored a quarter as often as row by row."""
    for j in range(hs.shape[0]):
        hs[j] = start[j]
    q = 0
    while q + 4 <= m:
        add_rows4(
            hs,
            W1[rows[q]],
            W1[rows[q + 1]],
            W1[rows[q + 2]],
            W1[rows[q + 3]],
            deltas[q],
            deltas[q + 1],
            deltas[q + 2],
            deltas[q + 3],
        )
        q += 4
    while q < m:
        add_row(hs, W1[rows[q]], deltas[q])
        q += 1


def _change_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For a point going from ``a`` to ``b`` checkers (tesauro's units: kind 0; the
    contact encodings': kind 1): how many of its four units change, which, and by
    how much; looked up, not worked out unit by unit, for every changed point."""
    count = np.zeros((2, 16, 16), np.int64)
    unit = np.zeros((2, 16, 16, 4), np.int64)
    by = np.zeros((2, 16, 16, 4), np.float32)
    units = np.zeros(4, np.float32)
    for kind, enc in ((0, TESAURO), (1, CONTACT)):
        for a in range(16):
            point_units.py_func(enc, a, units)  # plain Python: nothing compiles at import
            before = units.copy()
            for b in range(16):
                point_units.py_func(enc, b, units)
                for u in range(4):
                    if units[u] != before[u]:
                        q = count[kind, a, b]
                        unit[kind, a, b, q] = u
                        by[kind, a, b, q] = units[u] - before[u]
                        count[kind, a, b] += 1
    return count, unit, by


_CHANGED, _CHANGED_UNIT, _CHANGED_BY = _change_tables()


def make_reply_scratch() -> ReplyScratch:
    return ReplyScratch(
        np.zeros(MAX_INPUTS, np.float32),
        np.zeros(MAX_INPUTS, np.float32),
        np.zeros(MAX_HIDDEN, np.float32),
        np.zeros(MAX_HIDDEN, np.float32),
        np.zeros(RAW_LANES, np.float32),
        np.zeros((2, 25), np.int8),
        np.zeros(MAX_INPUTS, np.int64),
        np.zeros(MAX_INPUTS, np.float32),
    )


def make_chain_scratch() -> ChainScratch:
    return ChainScratch(
        np.zeros(MAX_INPUTS, np.float32), np.zeros(MAX_HIDDEN, np.float32), np.zeros(MAX_HIDDEN, np.float32)
    )
