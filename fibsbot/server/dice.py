"""Dice sources for the server: seeded (reproducible) or scripted (tests).

The server core asks its source for every roll, the opening roll included (it
rolls again on a tie), so a seed fixes a whole session given the same commands.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Protocol

Roll = tuple[int, int]


class DiceSource(Protocol):
    def roll(self) -> Roll: ...


class DiceExhausted(RuntimeError):
    """A scripted source ran out of rolls and has no fallback."""


def _check_roll(roll: Iterable[int]) -> Roll:
    d1, d2 = (int(d) for d in roll)
    if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise ValueError(f"dice must be 1..6, got {d1} and {d2}")
    return d1, d2


class SeededDice:
    """Uniform dice from ``random.Random(seed)``."""

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def roll(self) -> Roll:
        return self._rng.randint(1, 6), self._rng.randint(1, 6)


class ScriptedDice:
    """The given rolls in order, then ``fallback`` (or DiceExhausted without one)."""

    def __init__(self, rolls: Iterable[Iterable[int]], fallback: DiceSource | None = None) -> None:
        self._rolls = [_check_roll(roll) for roll in rolls]
        self._next = 0
        self._fallback = fallback

    @property
    def remaining(self) -> int:
        return len(self._rolls) - self._next

    def extend(self, rolls: Iterable[Iterable[int]]) -> None:
        self._rolls.extend(_check_roll(roll) for roll in rolls)

    def roll(self) -> Roll:
        if self._next < len(self._rolls):
            self._next += 1
            return self._rolls[self._next - 1]
        if self._fallback is None:
            raise DiceExhausted("the scripted dice are used up")
        return self._fallback.roll()
