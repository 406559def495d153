"""An independent reference for the bearoff tests: pure-Python move lists and an exact
rational dynamic programme, written apart from ``engine.eval.bearoff_gen`` so that the two
can only agree by being right."""

from __future__ import annotations

from fractions import Fraction
from functools import cache

from engine.eval.bearoff_gen import MAX_ROLLS

ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]
WEIGHT = {(a, b): Fraction(1 if a == b else 2, 36) for a, b in ROLLS}


def py_single_die(counts: tuple, die: int):
    """Every way to play one die in a bearoff position (points 1..6 at 0..5)."""
    highest = max((i for i, c in enumerate(counts) if c), default=-1)
    for src in (i for i in range(6) if counts[i] and (i + 1 >= die or i == highest)):
        new = list(counts)
        new[src] -= 1
        if src + 1 > die:  # else it comes off: exactly, or from the highest point
            new[src - die] += 1
        yield tuple(new)


def py_successors(counts: tuple, d1: int, d2: int) -> set:
    """Legal results of a roll, by full enumeration: the most dice possible, the
    larger die when only one of a non-double can be played."""
    results: dict[tuple, tuple] = {}  # position -> (dice played, largest die played)

    def walk(pos, dice, played):
        options = list(py_single_die(pos, dice[0])) if dice and any(pos) else []
        for nxt in options:
            walk(nxt, dice[1:], played + [dice[0]])
        if not options:
            results[pos] = max(results.get(pos, (-1, 0)), (len(played), max(played, default=0)))

    for order in [(d1,) * 4] if d1 == d2 else [(d1, d2), (d2, d1)]:
        walk(tuple(counts), order, [])
    most = max(v[0] for v in results.values())
    larger = max(d1, d2) if d1 != d2 and most == 1 else 0
    return {p for p, v in results.items() if v[0] == most and v[1] >= larger}


@cache
def exact_off(counts: tuple) -> tuple[Fraction, tuple]:
    """(mean, distribution) of rolls to bear off, exact, minimising the mean."""
    if not any(counts):
        return Fraction(0), (Fraction(1),)
    dist = [Fraction(0)] * MAX_ROLLS
    mean = Fraction(1)
    for a, b in ROLLS:
        options = [exact_off(s) for s in py_successors(counts, a, b)]
        best_mean = min(m for m, _ in options)
        (best,) = {d for m, d in options if m == best_mean}  # no ambiguous ties
        mean += WEIGHT[a, b] * best_mean
        for n, p in enumerate(best):
            dist[n + 1] += WEIGHT[a, b] * p
    while dist[-1] == 0:
        dist.pop()
    return mean, tuple(dist)
