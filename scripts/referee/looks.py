"""The deeper looks a table level might take at close checker decisions, as players the
referee can compare (``scripts/referee/compare_looks.py``).

Every look starts from the same cubeful 2-ply ranking and changes only the order of
its close leaders (within ``CLOSE_MOVE`` of the best, at most ``DEEPER_MOVES``):

- ``2ply``: no deeper look;
- ``table``: the shipped table level (3-ply of the close leaders within its budget);
- ``mean23``: the mean of each close leader's cubeful 2-ply and 3-ply equities (odd
  and even depths lean opposite ways, as the table level's cube already uses);
- ``ply3wMxC`` / ``mean23wMxC``: the same with up to ``M`` leaders within ``C``
  thousandths of the best, and no clock;
- ``rollerGxT``: ``G`` truncated cubeful rollouts of ``T`` turns of each close leader
  (``engine.rollout.roller.Roller``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import numpy as np

from engine.cube.cubeful import move_equities
from engine.players.agent import Agent
from engine.players.table import CLOSE_MOVE, DEEPER_MOVES, close_leaders
from engine.rollout.roller import Roller
from engine.rules.ids import MatchState
from nets.player import TABLE_THINK


@dataclass(frozen=True)
class PlyLook:
    """Close leaders (at most ``moves`` within ``close`` EMG of the best) ranked by their
    cubeful 3-ply equities, or by the mean of their 2-ply and 3-ply ones; no clock."""

    moves: int = DEEPER_MOVES
    close: float = CLOSE_MOVE
    mean: bool = False

    def rank_moves(self, agent: Agent, top: list, state: MatchState) -> list:
        close = close_leaders(top, self.moves, self.close)
        if len(close) < 2:
            return top
        boards = np.stack([move.board for move in close])
        probs = np.array([move.probs for move in close])
        deeper = move_equities(agent.tree, boards, probs, state, 3)
        weight = 0.5 if self.mean else 0.0
        ranked = [replace(m, equity=weight * m.equity + (1 - weight) * float(e), ply=3) for m, e in zip(close, deeper)]
        ranked.sort(key=lambda move: -move.equity)
        return ranked + [move for move in top if all(move is not c for c in close)]

    def cube_equities(self, agent, board, state, equities):
        return equities


_ROLLER = re.compile(r"roller(\d+)x(\d+)$")
_WIDE = re.compile(r"(ply3|mean23)w(\d+)x(\d+)$")  # e.g. ply3w5x80: up to 5 moves within 0.080


def look_agent(look: str, evaluator) -> Agent:
    """Our agent with the named look (see the module notes)."""
    name = f"net:default@{look}"
    if look == "2ply":
        return Agent(evaluator, ply=2, name=name)
    if look == "table":
        return Agent(evaluator, ply=2, name=name, think=TABLE_THINK)
    if look == "mean23":
        return Agent(evaluator, ply=2, name=name, think=TABLE_THINK, look=PlyLook(mean=True))
    if found := _WIDE.match(look):
        kind, moves, close = found.group(1), int(found.group(2)), int(found.group(3)) / 1000
        return Agent(evaluator, ply=2, name=name, think=TABLE_THINK, look=PlyLook(moves, close, mean=kind == "mean23"))
    if found := _ROLLER.match(look):
        games, turns = int(found.group(1)), int(found.group(2))
        return Agent(evaluator, ply=2, name=name, think=TABLE_THINK, look=Roller(games=games, turns=turns))
    raise ValueError(f"unknown look {look!r}: 2ply, table, mean23, ply3wMxC, mean23wMxC or rollerGxT")
