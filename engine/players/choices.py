"""What an agent's decisions give back (the chosen move with its ranking, the cube
choice), the scratch its self-play kernels take, and the shape of a deeper look a
table level may take at close decisions (``engine.rollout.roller``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

import numpy as np

from engine.rules.ids import MatchState


class SelfPlayScratch(NamedTuple):
    """What a self-play kernel (rollouts, labels, harvest, the speed bench) needs beside the
    search context, in the order those kernels take it: ``kernel(ctx, ..., *agent.self_play_scratch(), ...)``."""

    filters: np.ndarray  # the move filters of 1- and 2-ply
    weights: np.ndarray  # cubeless: one point a win, gammon and backgammon
    root: tuple  # the root's move buffers (``MoveBuffers.args()``), the kernel's own
    buf2: tuple  # the agent's scratch of the 2-ply search
    buf1: tuple  # ... and of its 1-ply replies
    equities: np.ndarray
    probs: np.ndarray
    plies: np.ndarray


class DeeperLook(Protocol):
    """A table level's own look at close decisions in a match (``engine.rollout.roller``)."""

    def rank_moves(self, agent: Any, top: list[RankedMove], state: MatchState) -> list[RankedMove]: ...

    def cube_equities(self, agent: Any, board, state: MatchState, equities: dict[str, float]) -> dict[str, float]: ...


@dataclass(frozen=True)
class RankedMove:
    steps: tuple[tuple[int, int], ...]
    board: np.ndarray  # after the move, mover in row 0
    equity: float
    probs: tuple[float, ...]
    ply: int  # the depth this candidate's figures come from


@dataclass(frozen=True)
class MoveChoice:
    steps: tuple[tuple[int, int], ...]
    board: np.ndarray
    equity: float
    probs: tuple[float, ...]
    ply: int
    ply0_steps: tuple[tuple[int, int], ...]
    ply0_equity: float
    ranked: tuple[RankedMove, ...] = field(default=(), repr=False)

    @property
    def disagrees(self) -> bool:
        """The search overruled the static net: a position worth learning from."""
        return self.steps != self.ply0_steps


@dataclass(frozen=True)
class CubeChoice:
    action: str
    double: bool = False
    take: bool = True
    equities: dict = field(default_factory=dict)
    probs: tuple[float, ...] = ()  # the side on roll's 0-ply probabilities
    ply: int = 0  # the depth of the cubeful equities
