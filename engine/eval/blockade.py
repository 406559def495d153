"""The ``contact3`` features: what gnubg's full contact input set measures that
``contact2`` lacks, chiefly how well each side's points block the other's checkers.

Definitions (our own, after the ideas of gnubg's inputs), each from one side's view
with its checkers in its own numbering (column 0 = its ace point, 24 = its bar):

  back_chequer    the rearmost checker's column + 1, / 25 (1 on the bar, 0 with none)
  forward_anchor  the most advanced point made in the other side's home board (its
                  distance from the bar / 6), else in the other side's outfield
                  (7/6..2), else 2: how far forward a holding point stands
  deep_anchors    points made in the other side's home board / 3, at most 1: back games
  back_escapes    rolls of 36 with which the rearmost checker passes every point the
                  other side holds in the 12 in front of it (``escape_rolls``)
  contain36       1 - the fewest ``escape_rolls`` a checker of the other side has from
                  any of its columns 12..24 (its bar), / 36: this side's blockade
  contain36_sq    its square
  moment2         the mean squared distance, beyond the side's mean checker position,
                  of the checkers behind it, / 400: stragglers

A checker escapes with a roll when it can land, die by die through open points
(doubles up to four times), beyond the farthest-ahead point held in its 12-point
window; points beyond the window count as open, so a window with nothing held lets
every roll escape.  The counts come from a 4,096-entry table of windows built at
import, so a lookup costs one index.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.eval.features import highest_bit, popcount, reverse24

EXTRA3_FEATURES = (
    "back_chequer",
    "forward_anchor",
    "deep_anchors",
    "back_escapes",
    "contain36",
    "contain36_sq",
    "moment2",
)
WINDOW = 12


def _escape_rolls_of(pattern: int) -> int:
    """Rolls of 36 escaping a window whose bit j blocks the point 12 - j pips ahead."""

    def held(distance: int) -> bool:
        return distance <= WINDOW and (pattern >> (WINDOW - distance)) & 1 == 1

    farthest = max((d for d in range(1, WINDOW + 1) if held(d)), default=0)
    if farthest == 0:
        return 36
    count = 0
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            orders = [[d1] * 4] if d1 == d2 else [[d1, d2], [d2, d1]]
            escaped = False
            for order in orders:
                distance = 0
                for die in order:
                    distance += die
                    if held(distance):
                        break
                    if distance > farthest:
                        escaped = True
                        break
            count += escaped
    return count


ESCAPE_TABLE = np.array([_escape_rolls_of(p) for p in range(1 << WINDOW)], dtype=np.int64)


@njit(cache=True, inline="always")
def escape_rolls(column, blocked):
    """Rolls of 36 with which a checker on ``column`` escapes the points in ``blocked``
    (bit p: the other side holds this side's column p)."""
    if column >= WINDOW:
        window = (blocked >> (column - WINDOW)) & ((1 << WINDOW) - 1)
    else:
        window = (blocked << (WINDOW - column)) & ((1 << WINDOW) - 1)
    return ESCAPE_TABLE[window]


@njit(cache=True, inline="always")
def blockade(made):
    """``contain36`` of a side whose made points (its numbering) are ``made``: the
    fewest rolls of 36 escaping them from any of the other side's columns 12..24."""
    from_them = reverse24(made)  # our made points in the other side's numbering
    fewest = 36
    for column in range(WINDOW, 25):
        fewest = min(fewest, escape_rolls(column, from_them))
    # no subtraction after the division: a caller compiled with fastmath may divide by
    # multiplying, and 1 - 36 x (1/36) is not 0, where (36 - 36) x (1/36) is
    return (36 - fewest) / 36.0


@njit(cache=True, inline="always")
def extra3_features(me, made, blocked, rear, total, pips, out, k):
    """The ``EXTRA3_FEATURES`` of side ``me`` into ``out[k:k + 7]``, from its made
    points (its numbering), the points the other side holds (ours), its rearmost
    column (-1: none), its checkers on the board and bar and its pips."""
    out[k] = (rear + 1) / 25.0
    home_anchors = (made >> 18) & 63
    if home_anchors:
        low = home_anchors & -home_anchors  # the lowest column: the most advanced anchor
        out[k + 1] = (6 - highest_bit(low)) / 6.0
    else:
        outfield = (made >> 12) & 63
        if outfield:
            low = outfield & -outfield
            out[k + 1] = (12 - highest_bit(low)) / 6.0
        else:
            out[k + 1] = 2.0
    out[k + 2] = min(popcount(home_anchors), 3) / 3.0
    out[k + 3] = escape_rolls(rear, blocked) / 36.0 if rear >= 0 else 1.0
    contain = blockade(made)
    out[k + 4] = contain
    out[k + 5] = contain * contain
    # in integers, one division at the end, for the same reason: the checkers past the
    # mean pips / total, and sum n (position - mean)^2 / total = sum n (position x total - pips)^2 / total^3
    spread = 0
    for i in range(25):
        n = np.int64(me[i])
        beyond = (i + 1) * total - pips
        if n > 0 and beyond > 0:
            spread += n * beyond * beyond
    out[k + 6] = spread / (400.0 * total * total * total) if total > 0 else 0.0
