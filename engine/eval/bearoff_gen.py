"""Exact generation of the one-sided bearoff database (15 checkers, six points).

A one-sided position is the number of checkers on each of the owner's points 1..6
(``counts6``, index 0 = ace point); checkers not counted are off.  There are
C(21, 6) = 54,264 of them, ranked by ``bearoff_index`` in the same order gnubg's
one-sided database uses: fewer checkers first, then, for equal totals, the sorted
list of the checkers' points (lowest first) in lexicographic order.  Any move
(a checker moving down or coming off) lowers that rank, so one pass in index order
sees every successor already solved.

Two distributions of the number of rolls are built, each with its own optimal play
(as gnubg does):

* ``off``: rolls to bear off every checker, each roll played to minimise the expected
  number of rolls still needed;
* ``first``: rolls to bear off the first checker (zero once one is off), each roll
  played to minimise the expected number of rolls to that first checker; only
  positions with all 15 checkers on the board are non-trivial.

For cross-checks against GNU Backgammon, ``read_gnubg_one_sided`` reads its
``gnubg_os0.bd`` and ``gnubg_fixed_point_tables`` replays its 16-bit arithmetic.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from engine.rules.dice import DISTINCT_ROLLS, ROLL_WEIGHTS

NUM_POINTS = 6
MAX_CHECKERS = 15
MAX_ROLLS = 32  # 15 checkers on the six point need at most 30 rolls (3 pips a roll)


def _binomial_table(size: int) -> np.ndarray:
    table = np.zeros((size, size), dtype=np.int64)
    for n in range(size):
        table[n, 0] = 1
        for k in range(1, n + 1):
            table[n, k] = table[n - 1, k - 1] + table[n - 1, k]
    return table


BINOM = _binomial_table(32)
NUM_POSITIONS = int(BINOM[MAX_CHECKERS + NUM_POINTS, NUM_POINTS])  # 54,264

_ROLLS, _ROLL_WEIGHTS = DISTINCT_ROLLS, ROLL_WEIGHTS


@njit(cache=True)
def rank_counts(counts, binom):
    """The rank of a one-sided position (``bearoff_index``), given ``BINOM``."""
    total = 0
    for p in range(NUM_POINTS):
        total += counts[p]
    index = binom[total + NUM_POINTS - 1, NUM_POINTS]  # positions with fewer checkers
    remaining = total
    for p in range(NUM_POINTS - 1):
        # same lower points, more checkers on point p: those sort first
        free_points = NUM_POINTS - 1 - p
        extra = remaining - counts[p]
        if extra > 0:
            index += binom[extra - 1 + free_points, free_points]
        remaining -= counts[p]
    return index


@njit(cache=True)
def _unrank(index, binom, out):
    total = 0
    while binom[total + 1 + NUM_POINTS - 1, NUM_POINTS] <= index:
        total += 1
    index -= binom[total + NUM_POINTS - 1, NUM_POINTS]
    remaining = total
    for p in range(NUM_POINTS - 1):
        free_points = NUM_POINTS - 1 - p
        # walk from "everything on p" downwards until the block holds the index
        c = remaining
        while c > 0:
            # positions that put exactly c on point p (rest on higher points)
            block = binom[remaining - c + free_points - 1, free_points - 1]
            if index < block:
                break
            index -= block
            c -= 1
        out[p] = c
        remaining -= c
    out[NUM_POINTS - 1] = remaining


def bearoff_index(counts6) -> int:
    """Rank of a one-sided position (checkers on points 1..6); 0 is all off."""
    counts = np.asarray(counts6, dtype=np.int64)
    if counts.shape != (NUM_POINTS,) or (counts < 0).any() or counts.sum() > MAX_CHECKERS:
        raise ValueError(f"need six non-negative counts totalling at most 15, got {counts6!r}")
    return int(rank_counts(counts, BINOM))


def bearoff_position(index: int) -> tuple[int, ...]:
    """Inverse of ``bearoff_index``: checkers on points 1..6."""
    if not 0 <= index < NUM_POSITIONS:
        raise ValueError(f"bearoff index {index} outside [0, {NUM_POSITIONS})")
    out = np.zeros(NUM_POINTS, dtype=np.int64)
    _unrank(int(index), BINOM, out)
    return tuple(int(c) for c in out)


@njit(cache=True)
def _rank_many(counts, binom, out):
    for k in range(counts.shape[0]):
        out[k] = rank_counts(counts[k], binom)


@njit(cache=True)
def _unrank_all(n_positions, binom, out):
    for i in range(n_positions):
        _unrank(i, binom, out[i])


def bearoff_indices(counts) -> np.ndarray:
    """``bearoff_index`` of every row of a (k, 6) array."""
    counts = np.ascontiguousarray(counts, dtype=np.int64)
    if counts.ndim != 2 or counts.shape[1] != NUM_POINTS:
        raise ValueError(f"need a (k, 6) array, got shape {counts.shape}")
    if (counts < 0).any() or (counts.sum(axis=1) > MAX_CHECKERS).any():
        raise ValueError("counts must be non-negative and total at most 15 per row")
    out = np.zeros(counts.shape[0], dtype=np.int64)
    _rank_many(counts, BINOM, out)
    return out


def all_bearoff_positions() -> np.ndarray:
    """(54264, 6) int64 array: row i is ``bearoff_position(i)``."""
    out = np.zeros((NUM_POSITIONS, NUM_POINTS), dtype=np.int64)
    _unrank_all(NUM_POSITIONS, BINOM, out)
    return out


STACK_SIZE = 4 * NUM_POINTS + 2  # depth-first: at most 6 children pushed per die
MAX_SUCCESSORS = 256  # paths of one roll: 2 orders * 6 * 6, or C(9, 4) = 126 for doubles


class _SuccessorScratch(NamedTuple):
    ranks: np.ndarray  # the ranks ``_successors`` finds
    stack: np.ndarray  # its depth-first walk's positions
    depth: np.ndarray  # the dice each of them has played
    max_src: np.ndarray  # the highest point a double may still move from
    current: np.ndarray  # the position being expanded


def _scratch() -> _SuccessorScratch:
    """Buffers for ``_successors``, allocated once per caller, not once per roll."""
    return _SuccessorScratch(
        np.zeros(MAX_SUCCESSORS, dtype=np.int64),
        np.zeros((STACK_SIZE, NUM_POINTS), dtype=np.int64),
        np.zeros(STACK_SIZE, dtype=np.int64),
        np.zeros(STACK_SIZE, dtype=np.int64),
        np.zeros(NUM_POINTS, dtype=np.int64),
    )


@njit(cache=True)
def _successors(counts, d1, d2, binom, out, stack, depth, max_src, cur):
    """Write the rank of every position reachable with roll (d1, d2) into ``out``;
    return how many (duplicates possible, which is harmless for a minimum).

    In a bearoff position every die can be played while a checker is left, so
    "use both dice" and "play the larger die" never bind.  Doubles are generated with
    non-increasing source points, which still reaches every result.
    """
    doubles = d1 == d2
    n_dice = 4 if doubles else 2
    n_out = 0
    for order in range(1 if doubles else 2):
        top = 0
        stack[0, :] = counts
        depth[0] = 0
        max_src[0] = NUM_POINTS - 1
        while top >= 0:
            cur[:] = stack[top]
            dep = depth[top]
            hi = max_src[top]
            top -= 1
            highest = -1
            for p in range(NUM_POINTS):
                if cur[p] > 0:
                    highest = p
            if dep == n_dice or highest < 0:
                out[n_out] = rank_counts(cur, binom)
                n_out += 1
                continue
            die = d1 if (dep + order) % 2 == 0 else d2
            for src in range(min(hi, highest), -1, -1):
                if cur[src] == 0:
                    continue
                if src + 1 < die and src != highest:
                    continue  # bearing off with a larger die only from the highest point
                top += 1
                stack[top, :] = cur
                stack[top, src] -= 1
                if src + 1 > die:
                    stack[top, src - die] += 1
                depth[top] = dep + 1
                max_src[top] = src if doubles else NUM_POINTS - 1
    return n_out


@njit(cache=True)
def _generate(binom, rolls, weights, n_positions, n_rolls, max_checkers, scratch):
    off = np.zeros((n_positions, n_rolls))
    first = np.zeros((n_positions, n_rolls))
    mean_off = np.zeros(n_positions)
    mean_first = np.zeros(n_positions)
    off[0, 0] = 1.0
    full_from = binom[max_checkers + NUM_POINTS - 1, NUM_POINTS]  # first 15-checker index
    for i in range(full_from):
        first[i, 0] = 1.0  # a checker is already off
    counts = np.zeros(NUM_POINTS, dtype=np.int64)
    succ, stack, depth, max_src, cur = scratch
    for i in range(1, n_positions):
        _unrank(i, binom, counts)
        full = i >= full_from
        for r in range(rolls.shape[0]):
            n = _successors(counts, rolls[r, 0], rolls[r, 1], binom, succ, stack, depth, max_src, cur)
            w = weights[r]
            best = succ[0]
            best_first = succ[0]
            for k in range(1, n):
                s = succ[k]
                # equal means are broken by rank so the result never depends on the
                # order moves are generated in
                if mean_off[s] < mean_off[best] or (mean_off[s] == mean_off[best] and s < best):
                    best = s
                if full and (
                    mean_first[s] < mean_first[best_first]
                    or (mean_first[s] == mean_first[best_first] and s < best_first)
                ):
                    best_first = s
            mean_off[i] += w * (1.0 + mean_off[best])
            for t in range(1, n_rolls):
                off[i, t] += w * off[best, t - 1]
            if full:
                mean_first[i] += w * (1.0 + mean_first[best_first])
                for t in range(1, n_rolls):
                    first[i, t] += w * first[best_first, t - 1]
    return off, first


def generate_bearoff_tables() -> tuple[np.ndarray, np.ndarray]:
    """(off, first): float64 arrays (54264, 32) of P(n rolls) for every position."""
    return _generate(BINOM, _ROLLS, _ROLL_WEIGHTS, NUM_POSITIONS, MAX_ROLLS, MAX_CHECKERS, _scratch())


@njit(cache=True)
def _generate_fixed_point(binom, rolls, n_positions, n_rolls, scratch):
    q = np.zeros((n_positions, n_rolls), dtype=np.int64)
    score = np.zeros(n_positions, dtype=np.int64)  # 65535 * mean, as rounded
    q[0, 0] = 65535
    counts = np.zeros(NUM_POINTS, dtype=np.int64)
    succ, stack, depth, max_src, cur = scratch
    acc = np.zeros(n_rolls, dtype=np.int64)
    for i in range(1, n_positions):
        _unrank(i, binom, counts)
        acc[:] = 0
        for r in range(rolls.shape[0]):
            n = _successors(counts, rolls[r, 0], rolls[r, 1], binom, succ, stack, depth, max_src, cur)
            best = succ[0]
            for k in range(1, n):
                s = succ[k]
                if score[s] < score[best] or (score[s] == score[best] and s > best):
                    best = s
            w = 1 if rolls[r, 0] == rolls[r, 1] else 2
            for t in range(1, n_rolls):
                acc[t] += w * q[best, t - 1]
        total, mode = 0, 0
        for t in range(n_rolls):
            q[i, t] = (acc[t] + 18) // 36
            total += q[i, t]
            if q[i, t] > q[i, mode]:
                mode = t
        q[i, mode] -= total - 65535
        for t in range(1, n_rolls):
            score[i] += t * q[i, t]
    return q


def gnubg_fixed_point_tables() -> np.ndarray:
    """The bearoff distributions as gnubg's generator computes them: integers in units
    of 1/65535, each roll's sum rounded as (sum + 18) // 36 with the rounding excess
    taken from the most likely entry, and moves chosen by the mean of those rounded
    numbers.  It reproduces gnubg_os0.bd, showing that where it differs from the
    exact ``generate_bearoff_tables`` the cause is that arithmetic (a near-tie
    between two moves resolved on rounded numbers), not the rules or moves."""
    return _generate_fixed_point(BINOM, _ROLLS, NUM_POSITIONS, MAX_ROLLS, _scratch())


def bearoff_successors(counts6, die1: int, die2: int) -> set[tuple[int, ...]]:
    """Every one-sided position reachable from ``counts6`` with the roll (for tests)."""
    counts = np.asarray(counts6, dtype=np.int64)
    scratch = _scratch()
    n = _successors(counts, int(die1), int(die2), BINOM, *scratch)
    ranks = scratch.ranks
    return {bearoff_position(int(s)) for s in set(ranks[:n].tolist())}


def read_gnubg_one_sided(path) -> tuple[np.ndarray, np.ndarray]:
    """Both distributions of a compressed gnubg one-sided file (``gnubg_os0.bd``) as
    int64 arrays (54264, 32) in units of 1/65535, rows in ``bearoff_index`` order
    (gnubg numbers positions the same way).  Used to cross-check our tables.

    Layout: a 40-byte text header; per position an 8-byte index entry (uint32 offset
    in 16-bit words, then length and first roll of the non-zero run of the bearoff
    distribution, then the same for the gammon one); then the uint16 data.
    """
    with open(path, "rb") as fh:
        raw = fh.read()
    if not raw.startswith(b"gnubg-OS-06-15-1-1"):
        raise ValueError("expected a compressed 6-point 15-checker file with gammons")
    index = np.frombuffer(raw, dtype=np.uint8, count=8 * NUM_POSITIONS, offset=40)
    index = index.reshape(NUM_POSITIONS, 8)
    offsets = index[:, :4].copy().view("<u4").ravel()
    data = np.frombuffer(raw, dtype="<u2", offset=40 + 8 * NUM_POSITIONS)
    off = np.zeros((NUM_POSITIONS, MAX_ROLLS), dtype=np.int64)
    first = np.zeros((NUM_POSITIONS, MAX_ROLLS), dtype=np.int64)
    for i in range(NUM_POSITIONS):
        length, start, length_g, start_g = (int(x) for x in index[i, 4:])
        at = int(offsets[i])
        off[i, start : start + length] = data[at : at + length]
        first[i, start_g : start_g + length_g] = data[at + length : at + length + length_g]
    return off, first
