"""What the match driver (``fibsbot.protocol.match.driver``) hands back to its caller.

The driver is sans-IO, in the style of h11: it consumes events and returns

* ``Send``: a line to write to the server;
* ``Wait``: start a timer and call ``driver.timer_expired(wait.timer)`` when it fires
  (a stale timer is ignored there, so timers never need cancelling);
* a ``DecisionRequest`` (``MoveRequest``, ``DoubleRequest``, ``TakeRequest``,
  ``ResignRequest``): ask the agent (``consult``, possibly in an executor) and feed
  the answer back with ``driver.decided(request, answer)``; an answer to a request
  that the board has overtaken in the meantime is dropped there.

The caller's agent (``engine.players.agent.Agent``, or a stand-in) fits ``Agent``;
records (match files, JSON logs, the training queue) implement ``MatchObserver``:
they are told about every event and decision and can never steer the match.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol, runtime_checkable

import numpy as np

from engine.rules.ids import MatchState
from fibsbot.protocol.board import FibsBoard
from fibsbot.protocol.events import Event, Logout


@dataclass(frozen=True)
class Send:
    """One command line for the server (without the line end)."""

    text: str


class TimerPurpose(StrEnum):
    """Why the driver wants to hear back: each is checked again when its timer fires."""

    ROLL = "roll"  # roll for us, unless the server has rolled by then
    BOARD = "board"  # ask for the board, unless one has arrived by then
    INACTIVE = "inactive"  # leave the match, unless something has happened in it by then


@dataclass(frozen=True)
class Timer:
    serial: int
    purpose: TimerPurpose


@dataclass(frozen=True)
class Wait:
    """Call ``driver.timer_expired(timer)`` after ``seconds``."""

    seconds: float
    timer: Timer


@dataclass(frozen=True, eq=False, kw_only=True)
class DecisionRequest:
    """Something only the agent can answer, about one board.

    ``board`` is the engine board from our view (row 0 = us) and ``state`` the match
    state with us as player 0, exactly what the agent's methods take; ``fibs``
    is the board line it came from.  ``serial`` identifies the request.
    """

    serial: int
    board: np.ndarray
    state: MatchState
    fibs: FibsBoard
    kind: str = field(init=False, default="")


@dataclass(frozen=True, eq=False, kw_only=True)
class MoveRequest(DecisionRequest):
    dice: tuple[int, int]
    kind: str = field(init=False, default="move")


@dataclass(frozen=True, eq=False, kw_only=True)
class DoubleRequest(DecisionRequest):
    """Our turn, dice not rolled, we may double: answer True to double, False to roll."""

    kind: str = field(init=False, default="double")


@dataclass(frozen=True, eq=False, kw_only=True)
class TakeRequest(DecisionRequest):
    """The opponent doubled: answer True to take, False to drop."""

    kind: str = field(init=False, default="take")


@dataclass(frozen=True, eq=False, kw_only=True)
class ResignRequest(DecisionRequest):
    """The opponent offers to resign ``level`` (1 single, 2 gammon, 3 backgammon)."""

    level: int
    points: int
    we_are_on_roll: bool
    kind: str = field(init=False, default="resign")


Output = Send | Wait | DecisionRequest


class Agent(Protocol):
    """What ``consult`` asks of an agent: one method per kind of decision request.

    ``engine.players.agent.Agent`` fits it, and so do the tests' stand-ins.  Answers are
    read leniently (``fibsbot.protocol.match.state.answer_commands``): a move is a
    ``MoveChoice`` or anything with its ``steps`` or ``board``, or the steps themselves; a
    cube answer is a ``CubeChoice`` (its ``double`` or ``take``) or a bool; a resignation
    answer a bool.
    """

    def choose_move(self, board: np.ndarray, d1: int, d2: int, state: MatchState, /) -> object: ...

    def double_decision(self, board: np.ndarray, state: MatchState, /) -> object: ...

    def take_decision(self, board: np.ndarray, state: MatchState, /) -> object: ...

    def accept_resignation(
        self, board: np.ndarray, state: MatchState, offered_level: int, we_are_on_roll: bool, /
    ) -> object: ...


def consult(agent: Agent, request: DecisionRequest) -> object:
    """The agent's answer to a request (blocking: run it in an executor)."""
    if isinstance(request, MoveRequest):
        return agent.choose_move(request.board, request.dice[0], request.dice[1], request.state)
    if isinstance(request, DoubleRequest):
        return agent.double_decision(request.board, request.state)
    if isinstance(request, TakeRequest):
        return agent.take_decision(request.board, request.state)
    if isinstance(request, ResignRequest):
        return agent.accept_resignation(request.board, request.state, request.level, request.we_are_on_roll)
    raise TypeError(f"not a decision request: {request!r}")


def fallback_answer(request: DecisionRequest) -> object:
    """A safe answer when the agent fails: a legal move (chosen by the driver's
    check), no double, take, keep playing rather than accept a resignation."""
    if isinstance(request, MoveRequest):
        return None
    if isinstance(request, DoubleRequest):
        return False
    if isinstance(request, TakeRequest):
        return True
    return False


@dataclass(frozen=True)
class MatchSnapshot:
    """A read-only view of the driver for observers."""

    in_match: bool
    opponent: str | None
    match_length: int | None  # None: unlimited
    board: FibsBoard | None
    saved_opponent: str | None
    matches_finished: int
    saved_opponents: tuple[str, ...] = ()  # of every saved match the driver knows of, listed or suspected


def saved_by_logout(event: Logout, opponent: str | None, snapshot: MatchSnapshot | None) -> bool:
    """Whether the logout line of ``opponent``, our opponent in play, left the match saved:
    a server may send no "The game was saved." after it, and the driver leaves the match by
    this line (the snapshot after it names the opponent as saved)."""
    return event.name == opponent and (snapshot is None or snapshot.saved_opponent == event.name)


@runtime_checkable
class MatchObserver(Protocol):
    """Records hook: called for every server event and every decision taken.

    ``commands`` are the lines the decision produced (empty when it was stale or
    when there was nothing to send, e.g. a roll without a legal move).  Observers
    may also be ``ConversationObserver``s.  Exceptions raised by an observer are
    logged and otherwise ignored.
    """

    def on_event(self, event: Event, snapshot: MatchSnapshot) -> None: ...

    def on_decision(self, request: DecisionRequest, answer: object, commands: list[Send]) -> None: ...


class ConversationObserver(Protocol):
    """The conversation itself, for an observer that has these methods (each is looked
    for on its own); the login line arrives with its password masked."""

    def on_received(self, line: str) -> None: ...

    def on_sent(self, command: str) -> None: ...


class NullObserver:
    """Observer base that ignores everything; subclass and override what you need."""

    def on_event(self, event: Event, snapshot: MatchSnapshot) -> None:
        return None

    def on_decision(self, request: DecisionRequest, answer: object, commands: list[Send]) -> None:
        return None

    def on_received(self, line: str) -> None:
        return None

    def on_sent(self, command: str) -> None:
        return None
