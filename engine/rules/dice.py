"""Dice as a pure function of (seed, game, turn), so duplicate games replay exactly.

A counter-based generator (splitmix64) needs no state: the same game seed gives the
same rolls whichever players consume them, and workers can split games freely.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)

# the 21 distinct rolls (larger die first) and their probabilities: doubles 1/36, others 2/36
DISTINCT_ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(1, a + 1)], dtype=np.int64)
ROLL_WEIGHTS = np.array([1.0 if a == b else 2.0 for a, b in DISTINCT_ROLLS]) / 36.0


@njit(cache=True)
def splitmix64(x):
    z = np.uint64(x) + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def game_seed(seed, index):
    return splitmix64(splitmix64(np.uint64(seed)) ^ np.uint64(index))


@njit(cache=True)
def roll(game_seed_value, turn):
    """Two dice for turn ``turn`` (0-based) of a game; unbiased by rejection."""
    z = splitmix64(game_seed_value ^ splitmix64(np.uint64(turn)))
    while True:
        r = np.int64(z & np.uint64(63))
        if r < 36:
            return r // 6 + 1, r % 6 + 1
        z = splitmix64(z)


@njit(cache=True)
def opening_roll(game_seed_value):
    """The first non-double roll: (die of seat 0, die of seat 1) and turns used."""
    k = 0
    while True:
        d0, d1 = roll(game_seed_value, np.uint64(1 << 40) + np.uint64(k))
        if d0 != d1:
            return d0, d1
        k += 1
