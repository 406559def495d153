"""Hand-made contact features that need more than one point of the board: who can
hit whom with how many rolls, what a hit costs, and the gnubg-style extras of the
``contact2`` encoding.  Rows are one side's checkers in its own numbering
(index 0 = its ace point, 24 = its bar); the other side's column ``c`` is this
side's column ``23 - c``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

EXTRA_FEATURES = ("pip_loss", "double_shots", "dance", "break_contact", "free_pips", "mobility", "timing")


def _roll_tables():
    """Bit index of each unordered roll, its weight of 36, and the rolls holding a die."""
    index = np.zeros((7, 7), dtype=np.int64)
    weight = np.zeros(21, dtype=np.int64)
    k = 0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            index[d1, d2] = index[d2, d1] = k
            weight[k] = 1 if d1 == d2 else 2
            k += 1
    holding = np.zeros(7, dtype=np.int64)
    for d in range(1, 7):
        for other in range(1, 7):
            holding[d] |= 1 << index[d, other]
    return index, weight, holding


ROLL_INDEX, ROLL_WEIGHT, ROLLS_HOLDING = _roll_tables()
ALL_ROLLS = (1 << 21) - 1
DOUBLE_ROLLS = sum(1 << int(ROLL_INDEX[d, d]) for d in range(1, 7))


@njit(cache=True, inline="always")
def _open(pos, blocked):
    """Whether the attacker may land on its column ``pos`` (``blocked``: see ``_point_masks``)."""
    return pos >= 0 and (blocked >> pos) & 1 == 0


@njit(cache=True, inline="always")
def _point_masks(attacker, defender):
    """Bit p: the attacker has a checker on its column p; the defender holds it (2+)."""
    occupied = 0
    blocked = 0
    for p in range(24):
        if attacker[p] > 0:
            occupied |= 1 << p
        if defender[23 - p] >= 2:
            blocked |= 1 << p
    return occupied, blocked


def _path_tables():
    """By distance 1..24: the rolls that cover it with one die, and the combinations
    (two different dice, or a double moved 2-4 times) with the points they pass."""
    single = np.zeros(25, dtype=np.int64)
    combos = np.zeros((25, 3, 3), dtype=np.int64)  # (roll bit, first die, second die)
    n_combos = np.zeros(25, dtype=np.int64)
    doubles = np.zeros((25, 3, 3), dtype=np.int64)  # (roll bit, die, moves)
    n_doubles = np.zeros(25, dtype=np.int64)
    for dist in range(1, 25):
        if dist <= 6:
            single[dist] = ROLLS_HOLDING[dist]
        for d1 in range(1, 7):
            d2 = dist - d1
            if d1 < d2 <= 6:
                combos[dist, n_combos[dist]] = (1 << ROLL_INDEX[d1, d2], d1, d2)
                n_combos[dist] += 1
        for d in range(1, 7):
            if dist % d == 0 and 2 <= dist // d <= 4:
                doubles[dist, n_doubles[dist]] = (1 << ROLL_INDEX[d, d], d, dist // d)
                n_doubles[dist] += 1
    return single, combos, n_combos, doubles, n_doubles


SINGLE_DIE, COMBOS, N_COMBOS, DOUBLES, N_DOUBLES = _path_tables()


@njit(cache=True)
def hitting_rolls(a, b, blocked):
    """Bit mask of the rolls that carry a checker from attacker column a to column b."""
    dist = a - b
    mask = SINGLE_DIE[dist]
    for j in range(N_COMBOS[dist]):
        if _open(a - COMBOS[dist, j, 1], blocked) or _open(a - COMBOS[dist, j, 2], blocked):
            mask |= COMBOS[dist, j, 0]
    for j in range(N_DOUBLES[dist]):
        d = DOUBLES[dist, j, 1]
        ok = True
        for k in range(1, DOUBLES[dist, j, 2]):
            if not _open(a - k * d, blocked):
                ok = False
                break
        if ok:
            mask |= DOUBLES[dist, j, 0]
    return mask


NEAR = 12  # distances a table answers: every path of 2 dice (and of doubles up to 4-4 x3) fits


def _near_table():
    """The hitting rolls of ``hitting_rolls`` for every distance 1..NEAR and every
    pattern of blocked points strictly between attacker and blot (bit i: the point
    i + 1 beyond the blot), one row per distance at ``base[dist]``: 4,095 entries,
    so a shot costs one lookup, not a walk over the dice combinations."""
    base = np.zeros(NEAR + 1, dtype=np.int64)
    table = np.zeros((1 << NEAR) - 1, dtype=np.int64)
    for dist in range(1, NEAR + 1):
        base[dist] = (1 << (dist - 1)) - 1
        for pattern in range(1 << (dist - 1)):
            table[base[dist] + pattern] = _near_rolls(dist, pattern)
    return base, table


def _near_rolls(dist, pattern):
    """``hitting_rolls`` in plain Python for a blot on column 0 and an attacker on
    column ``dist``, the points between blocked as ``pattern`` says (at import, so
    nothing compiles for the table)."""

    def open_(pos):
        return pos == 0 or (pattern >> (pos - 1)) & 1 == 0

    mask = int(SINGLE_DIE[dist])
    for j in range(N_COMBOS[dist]):
        if open_(dist - COMBOS[dist, j, 1]) or open_(dist - COMBOS[dist, j, 2]):
            mask |= int(COMBOS[dist, j, 0])
    for j in range(N_DOUBLES[dist]):
        d = DOUBLES[dist, j, 1]
        if all(open_(dist - k * d) for k in range(1, DOUBLES[dist, j, 2])):
            mask |= int(DOUBLES[dist, j, 0])
    return mask


NEAR_BASE, NEAR_TABLE = _near_table()
FAR_DISTANCES = np.array([d for d in range(NEAR + 1, 25) if N_DOUBLES[d] > 0], dtype=np.int64)  # doubles only


@njit(cache=True, inline="always")
def _shot(a, b, blocked):
    """``hitting_rolls(a, b, blocked)``, from the table when the distance is near."""
    dist = a - b
    if dist <= NEAR:
        return NEAR_TABLE[NEAR_BASE[dist] + ((blocked >> (b + 1)) & ((1 << (dist - 1)) - 1))]
    return hitting_rolls(a, b, blocked)


@njit(cache=True)
def _blot_mask(on_bar, occupied, blocked, c):
    """Bit mask of the rolls with which the attacker (on roll) reaches the defender's
    blot on its column ``c``; a checker on the bar (``on_bar``) only hits from the bar."""
    b = 23 - c  # the blot's column in the attacker's numbering
    if on_bar:
        return _shot(24, b, blocked)
    mask = 0
    behind = occupied >> (b + 1)  # the attacker's points behind the blot
    near = behind & ((1 << NEAR) - 1)
    a = b + 1
    while near:
        if near & 1:
            mask |= _shot(a, b, blocked)
        near >>= 1
        a += 1
    if behind >> NEAR:
        for dist in FAR_DISTANCES:
            if (behind >> (dist - 1)) & 1:
                mask |= hitting_rolls(b + dist, b, blocked)
    return mask


@njit(cache=True)
def count_shots(attacker, defender):
    """Rolls of 36 with which ``attacker`` (on roll) hits at least one blot of ``defender``.

    Exact for single dice, combinations through open points and doubles; a checker on
    the bar only hits from the bar.  The first figure of ``hit_stats``.
    """
    return hit_stats(attacker, defender)[0]


@njit(cache=True)
def hit_stats(attacker, defender):
    """(rolls hitting at least one blot, expected pips the defender loses to the
    farthest-advanced blot a roll can hit, rolls able to hit two blots), rolls of 36."""
    occupied, blocked = _point_masks(attacker, defender)
    blots = 0
    for c in range(24):
        if defender[c] == 1:
            blots |= 1 << c
    return hit_stats_masks(attacker[24] > 0, occupied, blocked, blots)


@njit(cache=True, inline="always")
def hit_stats_masks(on_bar, occupied, blocked, blots):
    """``hit_stats`` from bit masks: the attacker's occupied points and the points the
    defender holds (``_point_masks``), the defender's blots (bit c: its column c)."""
    # bit masks over the 21 rolls and the 24 points, no arrays: this runs for every candidate
    hit_once = 0
    hit_twice = 0
    pips = 0
    c = 23
    while blots:  # farthest-advanced blot first: it is the worst hit
        while (blots >> c) & 1 == 0:
            c -= 1
        blots ^= 1 << c
        mask = _blot_mask(on_bar, occupied, blocked, c)
        pips += _weight(mask & ~hit_once) * (c + 1)
        hit_twice |= hit_once & mask
        hit_once |= mask
    return _weight(hit_once), pips / 36.0, _weight(hit_twice)


@njit(cache=True, inline="always")
def _weight(mask):
    """Rolls of 36 in a mask of the 21 unordered rolls: two for each roll, less one
    for each double."""
    return 2 * popcount(mask & ALL_ROLLS) - popcount(mask & DOUBLE_ROLLS)


@njit(cache=True, inline="always")
def popcount(v):
    """Set bits of a non-negative int64 (at most 127 of them)."""
    v = v - ((v >> 1) & 0x5555555555555555)
    v = (v & 0x3333333333333333) + ((v >> 2) & 0x3333333333333333)
    v = (v + (v >> 4)) & 0x0F0F0F0F0F0F0F0F
    v = v + (v >> 8)  # byte sums by shifts, not a multiply: no overflow when interpreted
    v = v + (v >> 16)
    v = v + (v >> 32)
    return v & 0x7F


@njit(cache=True, inline="always")
def highest_bit(m):
    """Index of the highest set bit of 0 < m < 2**32."""
    h = 0
    if m >> 16:
        m >>= 16
        h += 16
    if m >> 8:
        m >>= 8
        h += 8
    if m >> 4:
        m >>= 4
        h += 4
    if m >> 2:
        m >>= 2
        h += 2
    if m >> 1:
        h += 1
    return h


_REVERSED_BYTE = np.array([int(f"{b:08b}"[::-1], 2) for b in range(256)], dtype=np.int64)


@njit(cache=True, inline="always")
def reverse24(m):
    """The 24 low bits of m in reverse order: a side's points in the other side's numbering."""
    return (_REVERSED_BYTE[m & 255] << 16) | (_REVERSED_BYTE[(m >> 8) & 255] << 8) | _REVERSED_BYTE[(m >> 16) & 255]


@njit(cache=True, inline="always")
def bit_range(lo, hi):
    """Bits lo..hi (none when hi < lo; lo >= 0)."""
    return ((1 << (hi + 1)) - 1) & ~((1 << lo) - 1) if hi >= lo else 0


@njit(cache=True, inline="always")
def extra_features(me, them_made, blocked, them_rear, pips, home, home_pips, total, shots_pips, shots_double, out, k):
    """The ``EXTRA_FEATURES`` of side ``me`` into ``out[k:k + 7]``, from the other
    side's made points (its numbering), the points it blocks (ours), its rearmost
    column (-1: none), our pips, checkers and pips in our home board, checkers on
    the board and bar; the hit figures are ``me`` attacking the other side."""
    out[k] = shots_pips / 24.0
    out[k + 1] = shots_double / 36.0
    closed = popcount(them_made & 63)
    out[k + 2] = (closed / 6.0) ** 2  # the chance a checker of ours on the bar stays there
    front = 23 - them_rear  # their rearmost checker in our numbering (-1: their bar)
    behind = 0
    free = 0
    mobile = 0
    open_points = ~blocked & 0xFFFFFF
    for i in range(25):
        n = np.int64(me[i])
        if n == 0:
            continue
        if i > front:
            behind += n * (i - front)
        else:
            free += n * (i + 1)
        mobile += n * popcount(open_points & bit_range(max(i - 6, 0), i - 1))  # dice 1-6 that land
    out[k + 3] = min(behind, 167) / 167.0
    out[k + 4] = free / 167.0
    out[k + 5] = mobile / 90.0
    timing = (pips - home_pips) - 6 * (total - home)  # pips beyond the 6-point, as moves off the home board
    out[k + 6] = min(timing, 100) / 100.0
