"""Input encodings of a position (side on roll in row 0) for the neural nets.

``tesauro``  196 inputs (198 with the turn units), as in TD-Gammon: for each side,
             for each of its 24 points, four units n>=1, n>=2, n>=3, (n-3)/2 if n>3;
             then bar n/2 and off n/15 for each side; optionally two turn units
             (side on roll, other side), always (1, 0) here because we evaluate from
             the side on roll.
``race``     200 inputs for races: tesauro's 196 units, then the pips of the side on
             roll / 100, the other side's pips / 100, their difference / 50, and the
             side on roll's wastage / 15 (2 per checker on its ace point, 1 per
             checker on its deuce point: pips a bear-off cannot use fully).
``contact``  gnubg-flavoured: gnubg's raw board units (n==1, n==2, n>=3, (n-3)/2)
             for 24 points and the bar for each side, off/15, and these hand-made
             features for each side (row 0 = the side on roll, each from its own view):

  pips          pip count / 167
  back          checkers on the bar or in the opponent's home board / 15
  home_points   points 1-6 made (2+ checkers) / 6
  prime         longest run of made points / 6
  blots         blots anywhere on the 24 points / 5 (capped at 1)
  anchor        highest made point in the opponent's home (19-24) mapped to 0..1
  shots         rolls (of 36) with which this side, if on roll, can hit a blot of
                the other side, honouring blocked intermediate points / 36
  escapes       die values 1..6 whose landing point in front of this side's rearmost
                checker is not made by the other side / 6
  contain       made points of the other side in the 12 points in front of this
                side's rearmost checker / 12
  homecount     checkers in the home board / 15

``contact2`` ``contact`` with ``engine.eval.features.EXTRA_FEATURES`` after each side's
             block: the pips a hit costs, double shots, the chance of staying on
             the bar, pips to break contact, free pips, mobility and timing.
``contact3`` ``contact2`` with ``engine.eval.blockade.EXTRA3_FEATURES`` after each
             side's block: the rearmost checker, anchors, escapes and blockades
             counted in rolls, and the stragglers' second moment.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.eval.blockade import EXTRA3_FEATURES, extra3_features
from engine.eval.features import (  # noqa: F401
    EXTRA_FEATURES,
    bit_range,
    count_shots,
    extra_features,
    highest_bit,
    hit_stats,
    hit_stats_masks,
    popcount,
    reverse24,
)

TESAURO, TESAURO_TURN, RACE, CONTACT, CONTACT2, CONTACT3 = 0, 1, 2, 3, 4, 5
ENCODINGS = {
    "tesauro": TESAURO,
    "tesauro-turn": TESAURO_TURN,
    "race": RACE,
    "contact": CONTACT,
    "contact2": CONTACT2,
    "contact3": CONTACT3,
}
CONTACT_FEATURES = (
    "pips",
    "back",
    "home_points",
    "prime",
    "blots",
    "anchor",
    "shots",
    "escapes",
    "contain",
    "homecount",
)
CONTACT_POINT_UNITS = 25 * 4  # a side's 24 points and its bar, four units each, first in its block
CONTACT_TAIL = ("off",) + CONTACT_FEATURES  # the units after a side's points, in order
CONTACT_HALF = CONTACT_POINT_UNITS + len(CONTACT_TAIL)
CONTACT2_HALF = CONTACT_HALF + len(EXTRA_FEATURES)
CONTACT3_HALF = CONTACT2_HALF + len(EXTRA3_FEATURES)
SIZES = {
    TESAURO: 196,
    TESAURO_TURN: 198,
    RACE: 200,
    CONTACT: 2 * CONTACT_HALF,
    CONTACT2: 2 * CONTACT2_HALF,
    CONTACT3: 2 * CONTACT3_HALF,
}


def encoding_id(name: str) -> int:
    try:
        return ENCODINGS[name]
    except KeyError:
        raise ValueError(f"unknown encoding {name!r}; known: {', '.join(ENCODINGS)}") from None


def input_size(name: str) -> int:
    return SIZES[encoding_id(name)]


@njit(cache=True, inline="always")
def _tesauro_point(n, out, k):
    out[k] = 1.0 if n >= 1 else 0.0
    out[k + 1] = 1.0 if n >= 2 else 0.0
    out[k + 2] = 1.0 if n >= 3 else 0.0
    out[k + 3] = (n - 3) / 2.0 if n > 3 else 0.0


@njit(cache=True, inline="always")
def _tesauro_side(row, out, base):
    for p in range(24):
        _tesauro_point(row[p], out, base + 4 * p)


@njit(cache=True)
def _tesauro_tail(board, out, turn_units):
    """The units after the 24 points of each side: bar, off, and the turn."""
    off0 = 15 - board[0].sum()
    off1 = 15 - board[1].sum()
    out[192] = board[0, 24] / 2.0
    out[193] = board[1, 24] / 2.0
    out[194] = off0 / 15.0
    out[195] = off1 / 15.0
    if turn_units:
        out[196] = 1.0
        out[197] = 0.0


@njit(cache=True)
def _tesauro(board, out, turn_units):
    _tesauro_side(board[0], out, 0)
    _tesauro_side(board[1], out, 96)
    _tesauro_tail(board, out, turn_units)


@njit(cache=True)
def _pips(row):
    total = 0
    for i in range(25):
        total += row[i] * (i + 1)
    return total


@njit(cache=True)
def _race_tail(board, out):
    _tesauro_tail(board, out, False)
    out[196] = _pips(board[0]) / 100.0
    out[197] = _pips(board[1]) / 100.0
    out[198] = (_pips(board[0]) - _pips(board[1])) / 50.0
    wasted = 0.0
    for i in range(6):
        # checkers stacked deep in the home board waste pips in the bear-off
        wasted += board[0, i] * max(0, 2 - i)
    out[199] = wasted / 15.0


@njit(cache=True)
def _race(board, out):
    _tesauro_side(board[0], out, 0)
    _tesauro_side(board[1], out, 96)
    _race_tail(board, out)


@njit(cache=True, inline="always")
def _contact_point(n, out, k):
    out[k] = 1.0 if n == 1 else 0.0
    out[k + 1] = 1.0 if n == 2 else 0.0
    out[k + 2] = 1.0 if n >= 3 else 0.0
    out[k + 3] = (n - 3) / 2.0 if n > 3 else 0.0


@njit(cache=True, inline="always")
def _side_summary(row):
    """A side's points as bit masks (bit p: its point p) and counts: occupied, made
    (2+), blots; checkers on the board and bar, pips, checkers and pips in its home
    board, checkers on the bar and in the other side's home board, rearmost column."""
    occupied = 0
    made = 0
    blots = 0
    bar = np.int64(row[24])
    total = bar
    pips = 25 * bar
    for p in range(24):
        n = np.int64(row[p])
        total += n
        pips += n * (p + 1)
        occupied |= np.int64(n > 0) << p
        made |= np.int64(n >= 2) << p
        blots |= np.int64(n == 1) << p
    home = 0
    home_pips = 0
    for p in range(6):
        home += row[p]
        home_pips += row[p] * (p + 1)
    back = bar
    for p in range(18, 24):
        back += row[p]
    rear = 24 if bar > 0 else (highest_bit(occupied) if occupied else -1)
    return occupied, made, blots, total, pips, home, home_pips, back, rear


@njit(cache=True, inline="always")
def _side_tail(me, mine, theirs, out, base, level):
    """The units after one side's 25 points: off and the hand-made features of
    ``contact_level`` ``level``, from both sides' ``_side_summary``."""
    occupied, made, blots, total, pips, home, home_pips, back, rear = mine
    them_made, them_blots, them_rear = theirs[1], theirs[2], theirs[8]
    blocked = reverse24(them_made)  # the other side's made points, in our numbering
    k = base + CONTACT_POINT_UNITS
    out[k] = (15 - total) / 15.0
    out[k + 1] = pips / 167.0
    out[k + 2] = back / 15.0
    out[k + 3] = popcount(made & 63) / 6.0
    run = 0  # the longest run of made points: strip a point off every run until none is left
    m = made
    while m:
        m &= m >> 1
        run += 1
    out[k + 4] = run / 6.0
    out[k + 5] = min(popcount(blots), 5) / 5.0
    anchors = made >> 18
    out[k + 6] = (highest_bit(anchors) + 1) / 6.0 if anchors else 0.0  # the deepest anchor
    shots, pip_loss, double_shots = hit_stats_masks(me[24] > 0, occupied, blocked, them_blots)
    if level >= 1:
        extra_features(
            me,
            them_made,
            blocked,
            them_rear,
            pips,
            home,
            home_pips,
            total,
            pip_loss,
            double_shots,
            out,
            base + CONTACT_HALF,
        )
    out[k + 7] = shots / 36.0
    escapes = 0
    contain = 0
    if rear >= 0:  # dice 1-6 whose landing point in front of the rearmost checker is open; made points ahead
        escapes = 6 - popcount(blocked & bit_range(max(rear - 6, 0), rear - 1))
        contain = popcount(blocked & bit_range(max(rear - 12, 0), rear - 1))
    out[k + 8] = escapes / 6.0
    out[k + 9] = contain / 12.0
    out[k + 10] = home / 15.0
    if level >= 2:
        extra3_features(me, made, blocked, rear, total, pips, out, base + CONTACT2_HALF)


@njit(cache=True)
def _contact_tails(board, out, level):
    """Both sides' tail units (row 0 the side on roll), each from its own view."""
    half = contact_half(level)
    first = _side_summary(board[0])
    second = _side_summary(board[1])
    _side_tail(board[0], first, second, out, 0, level)
    _side_tail(board[1], second, first, out, half, level)


@njit(cache=True)
def _contact(board, out, level):
    half = contact_half(level)
    for side in range(2):
        for p in range(25):
            _contact_point(board[side, p], out, side * half + 4 * p)
    _contact_tails(board, out, level)


@njit(cache=True, inline="always")
def contact_level(encoding):
    """0, 1 and 2 for ``contact``, ``contact2`` and ``contact3`` (each adds features
    to the one before); -1 for the encodings without the contact features."""
    if encoding == CONTACT:
        return 0
    if encoding == CONTACT2:
        return 1
    if encoding == CONTACT3:
        return 2
    return -1


@njit(cache=True, inline="always")
def contact_half(level):
    """The units of one side's block at a ``contact_level``."""
    if level == 2:
        return CONTACT3_HALF
    return CONTACT2_HALF if level == 1 else CONTACT_HALF


@njit(cache=True)
def encode_into(encoding, board, out):
    """Write the inputs of ``board`` for encoding id ``encoding`` into ``out``."""
    if encoding == TESAURO:
        _tesauro(board, out, False)
    elif encoding == TESAURO_TURN:
        _tesauro(board, out, True)
    elif encoding == RACE:
        _race(board, out)
    else:
        _contact(board, out, contact_level(encoding))


@njit(cache=True)
def point_units(encoding, n, units):
    """The four units of a point holding ``n`` checkers (this side's own), as every
    side's points are encoded in ``encoding``."""
    if contact_level(encoding) >= 0:
        units[0] = 1.0 if n == 1 else 0.0
        units[1] = 1.0 if n == 2 else 0.0
    else:
        units[0] = 1.0 if n >= 1 else 0.0
        units[1] = 1.0 if n >= 2 else 0.0
    units[2] = 1.0 if n >= 3 else 0.0
    units[3] = (n - 3) / 2.0 if n > 3 else 0.0


@njit(cache=True)
def point_index(encoding, side, p):
    """Index of the first of the four units of ``side``'s point ``p`` (column 0..24),
    or -1 where the point is not encoded by such units (tesauro's bar: a tail unit)."""
    level = contact_level(encoding)
    if level >= 0:
        return side * contact_half(level) + 4 * p
    return side * 96 + 4 * p if p < 24 else -1


@njit(cache=True)
def tail_ranges(encoding):
    """The two index ranges (start, end, start, end) of the units that are not point
    units: bar (tesauro), off and the hand-made features."""
    level = contact_level(encoding)
    if level >= 0:
        half = contact_half(level)
        return CONTACT_POINT_UNITS, half, half + CONTACT_POINT_UNITS, 2 * half
    if encoding == RACE:
        return 192, 200, 200, 200
    return 192, 198 if encoding == TESAURO_TURN else 196, 0, 0


@njit(cache=True)
def encode_tail_into(encoding, board, out):
    """Write only the units of ``tail_ranges`` of ``board`` into ``out``."""
    level = contact_level(encoding)
    if level >= 0:
        _contact_tails(board, out, level)
    elif encoding == RACE:
        _race_tail(board, out)
    else:
        _tesauro_tail(board, out, encoding == TESAURO_TURN)


def encode(name: str, board: np.ndarray) -> np.ndarray:
    """The float32 input vector of ``board`` (side on roll in row 0) for an encoding."""
    enc = encoding_id(name)
    out = np.zeros(SIZES[enc], dtype=np.float32)
    encode_into(enc, np.ascontiguousarray(board, dtype=np.int8), out)
    return out
