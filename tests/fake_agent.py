"""A tiny stand-in for ``engine.players.agent.Agent``: first legal move, fixed cube answers.

It has the agent's methods and signatures and records every call, so tests can
check what the bot asked (board from our view, match state with us as player 0).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np

from engine.rules.ids import MatchState
from engine.rules.moves import MoveBuffers, generate_moves, steps_to_move


@dataclass(frozen=True)
class FakeMoveChoice:
    steps: tuple[tuple[int, int], ...]
    board: np.ndarray


@dataclass(frozen=True)
class FakeCubeChoice:
    double: bool = False
    take: bool = True


@dataclass
class FakeAgent:
    double: bool = False
    take: bool = True
    accept_resign: bool = True
    delay_s: float = 0.0  # simulated thinking time
    calls: list[tuple[str, np.ndarray, MatchState]] = field(default_factory=list)
    threads: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self._buffers = MoveBuffers()
        self._stop = threading.Event()

    def _record(self, kind: str, board: np.ndarray, state: MatchState) -> None:
        assert board.shape == (2, 25) and board.dtype == np.int8
        self.calls.append((kind, np.array(board), state))
        self.threads.add(threading.current_thread().name)
        if self.delay_s:
            self._stop.wait(self.delay_s)

    def choose_move(self, board, d1: int, d2: int, state: MatchState) -> FakeMoveChoice:
        self._record("move", board, state)
        count = generate_moves(np.ascontiguousarray(board), d1, d2, *self._buffers.args())
        assert count >= 1
        return FakeMoveChoice(steps=steps_to_move(self._buffers.steps[0]), board=self._buffers.boards[0].copy())

    def double_decision(self, board, state: MatchState) -> FakeCubeChoice:
        self._record("double", board, state)
        return FakeCubeChoice(double=self.double)

    def take_decision(self, board, state: MatchState) -> FakeCubeChoice:
        self._record("take", board, state)
        return FakeCubeChoice(take=self.take)

    def resignation_offer(self, board, state: MatchState, we_are_on_roll: bool) -> int:
        self._record("offer", board, state)
        return 0

    def accept_resignation(self, board, state: MatchState, offered_level: int, we_are_on_roll: bool) -> bool:
        self._record("resign", board, state)
        return self.accept_resign

    def kinds(self) -> list[str]:
        return [kind for kind, _, _ in self.calls]
