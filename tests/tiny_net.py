"""A small random net that compiles and evaluates fast: for tests of the search's
bookkeeping, where what matters is that every path sees the same figures, not that
the figures are good."""

from __future__ import annotations

from engine.eval.evaluator import Evaluator
from engine.eval.net import Net


def tiny_evaluator() -> Evaluator:
    contact = Net.create("gnubg5", "contact", 16, seed=5, scale=0.3)
    race = Net.create("gnubg5", "race", 8, seed=6, scale=0.3)
    return Evaluator(contact, race, name="tiny")
