"""Marks and per-player statistics, counted as GNU Backgammon's ``show statistics match`` counts them.

Thresholds are gnubg 1.07's defaults (``show analysis``): a decision that gives up
more than 0.03 (normalised equity) is doubtful, 0.06 bad, 0.12 very bad; a roll
worth more than 0.3 is lucky, 0.6 very lucky (the same below zero for unlucky).
Error rates are per decision in thousandths (mEMG) and in MWC: the chequer play's
over unforced moves, the cube's over close or actual cube decisions, the overall
rate over both, as gnubg divides them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

DOUBTFUL, BAD, VERY_BAD = 0.03, 0.06, 0.12
LUCKY, VERY_LUCKY = 0.3, 0.6
MARKS = ("doubtful", "bad", "very bad")
LUCK_MARKS = ("very lucky", "lucky", "unlucky", "very unlucky")


def skill_mark(loss: float) -> str:
    if loss > VERY_BAD:
        return "very bad"
    if loss > BAD:
        return "bad"
    if loss > DOUBTFUL:
        return "doubtful"
    return ""


def luck_mark(luck: float) -> str:
    if luck > VERY_LUCKY:
        return "very lucky"
    if luck > LUCKY:
        return "lucky"
    if luck < -VERY_LUCKY:
        return "very unlucky"
    if luck < -LUCKY:
        return "unlucky"
    return ""


def _rate(total: float, count: int) -> float:
    return 1000.0 * total / count if count else 0.0


@dataclass
class PlayerStats:
    name: str
    moves: int = 0
    unforced: int = 0
    move_marks: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MARKS, 0))
    chequer_error: float = 0.0  # EMG
    chequer_cost: float = 0.0  # MWC (points in money play)
    rolls: int = 0
    luck: float = 0.0
    luck_cost: float = 0.0
    luck_marks: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LUCK_MARKS, 0))
    cube_decisions: int = 0
    close_cube: int = 0
    cube_marks: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MARKS, 0))
    cube_error: float = 0.0
    cube_cost: float = 0.0

    @classmethod
    def of(cls, name: str, decisions: Iterable[Any]) -> PlayerStats:
        stats = cls(name)
        for d in decisions:
            stats.add(d)
        return stats

    def add(self, d: Any) -> None:
        if d.kind == "move":
            self.moves += 1
            self.rolls += d.luck is not None
            self.luck += d.luck or 0.0
            self.luck_cost += d.luck_cost or 0.0
            if d.luck_mark:
                self.luck_marks[d.luck_mark] += 1
            if d.unforced:
                self.unforced += 1
                self.chequer_error += d.loss
                self.chequer_cost += d.cost
                if d.mark:
                    self.move_marks[d.mark] += 1
            return
        self.cube_decisions += 1
        self.close_cube += bool(d.close)
        self.cube_error += d.loss
        self.cube_cost += d.cost
        if d.mark:
            self.cube_marks[d.mark] += 1

    @property
    def chequer_rate(self) -> float:
        return _rate(self.chequer_error, self.unforced)

    @property
    def cube_rate(self) -> float:
        return _rate(self.cube_error, self.close_cube)

    @property
    def overall_rate(self) -> float:
        """gnubg's overall "Error rate mEMG": all errors over unforced moves and close cube decisions."""
        return _rate(self.chequer_error + self.cube_error, self.unforced + self.close_cube)

    @property
    def overall_rate_mwc(self) -> float:
        """The same in MWC, as a percentage per decision."""
        return _rate(self.chequer_cost + self.cube_cost, self.unforced + self.close_cube) / 10.0

    @property
    def luck_rate(self) -> float:
        return _rate(self.luck, self.rolls)

    def as_dict(self) -> dict:
        out = asdict(self)
        out.update(
            chequer_rate=self.chequer_rate,
            cube_rate=self.cube_rate,
            overall_rate=self.overall_rate,
            overall_rate_mwc=self.overall_rate_mwc,
            luck_rate=self.luck_rate,
        )
        return out

    @classmethod
    def from_dict(cls, data: dict) -> PlayerStats:
        names = cls.__dataclass_fields__
        return cls(**{k: v for k, v in data.items() if k in names})
