"""The full net's evaluation of a position a lookahead missed in its cache, with the
part that depends only on the side on roll worked out once for many positions.

Inside a lookahead the positions the full net evaluates come in runs from one
position: every reply the pruning net passes on, for each of the 21 rolls, and
flipped so that the side that did not move is on roll.  That side's checkers stay
where they were unless a reply hits them, so the first-layer sums of its own units
(its point units and the hand-made features of its own checkers alone: off, pips,
back, home points, prime, blots, anchor, home count, timing) are the same for the
whole run.  ``evaluate_split`` sums those units first, keyed by the side's row, and
reuses them while the row stays the same; the other units are added after them in a
fixed order.  A position's figures therefore depend only on the position (whether
the own sums were reused or not, they are the same bits), so a cache holding them
gives the same answer whichever path reached it first.  They equal the one-pass
evaluation (``engine.eval.forward.evaluate_one``) up to float32 rounding.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.eval.encode import CONTACT, CONTACT2, CONTACT3, contact_half, contact_level, encode_into
from engine.eval.incremental import add_rows
from engine.eval.limits import OWN_EXTRA3_UNITS, OWN_EXTRA_UNITS, OWN_POINT_UNITS, OWN_TAIL_UNITS
from engine.eval.net import DEEP5, deep_probs_alone, net_probs, sigmoid
from engine.eval.sanity import keep_possible


def _split(encoding: int) -> tuple[np.ndarray, np.ndarray]:
    """The inputs of the side on roll's own units, and all the others, in order."""
    level = contact_level(encoding)
    half = contact_half(level)
    own = list(OWN_POINT_UNITS + OWN_TAIL_UNITS)
    if level >= 1:
        own.extend(OWN_EXTRA_UNITS)
    if level >= 2:
        own.extend(OWN_EXTRA3_UNITS)
    owned = set(own)
    rest = [i for i in range(2 * half) if i not in owned]
    return np.array(own, np.int64), np.array(rest, np.int64)


OWN_CONTACT, REST_CONTACT = _split(CONTACT)
OWN_CONTACT2, REST_CONTACT2 = _split(CONTACT2)
OWN_CONTACT3, REST_CONTACT3 = _split(CONTACT3)
KEY = 25  # the own sums' row: its 25 counts, then a flag (1: the sums are those of that row)
KEY_SIZE = KEY + 1


@njit(cache=True, fastmath=True, inline="always")
def _gather(x, indices, rows, deltas):
    m = 0
    for q in range(indices.shape[0]):
        i = indices[q]
        if x[i] != 0.0:
            rows[m] = i
            deltas[m] = x[i]
            m += 1
    return m


@njit(cache=True, fastmath=True, error_model="numpy")
def split_hidden(W1, b1, enc, board, x, h, own, key, rows, deltas):
    """The first hidden layer of ``evaluate_split`` (through its sigmoids) into
    ``h[:W1.shape[1]]``."""
    n_in, n_hidden = W1.shape
    xs, hs, os = x[:n_in], h[:n_hidden], own[:n_hidden]
    encode_into(enc, board, xs)
    if enc == CONTACT3:
        own_idx, rest_idx = OWN_CONTACT3, REST_CONTACT3
    elif enc == CONTACT2:
        own_idx, rest_idx = OWN_CONTACT2, REST_CONTACT2
    else:
        own_idx, rest_idx = OWN_CONTACT, REST_CONTACT
    same = key[KEY] == 1.0
    if same:
        for p in range(25):
            if key[p] != board[0, p]:
                same = False
                break
    if not same:
        m = _gather(xs, own_idx, rows, deltas)
        add_rows(os, b1, W1, rows, deltas, m)
        for p in range(25):
            key[p] = board[0, p]
        key[KEY] = 1.0
    m = _gather(xs, rest_idx, rows, deltas)
    add_rows(hs, os, W1, rows, deltas, m)
    for j in range(n_hidden):
        hs[j] = sigmoid(hs[j])


@njit(cache=True, fastmath=True, error_model="numpy")
def evaluate_split(W1, b1, W2, b2, W3, b3, arch, enc, board, x, h, own, key, rows, deltas, raw, probs):
    """Five probabilities of ``board`` (side on roll in row 0) by a contact net of
    the contact or contact2 encoding; ``own`` (the net's hidden size) and ``key``
    (``KEY_SIZE`` floats, the last 0 before first use) keep the own sums and their row.
    A ``deep5`` net's second layer is the four-at-once kernel's (``deep_probs_alone``),
    as where a lookahead evaluates its misses four at a time; the figures are kept
    within what the board allows (``engine.eval.sanity``), as there."""
    split_hidden(W1, b1, enc, board, x, h, own, key, rows, deltas)
    hs = h[: W1.shape[1]]
    if arch == DEEP5:
        deep_probs_alone(W2, b2, W3, b3, hs, probs)
    else:
        net_probs(arch, W2, b2, W3, b3, hs, raw, probs)
    keep_possible(board, probs)
