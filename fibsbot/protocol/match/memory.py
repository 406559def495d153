"""Everything the match driver knows: its settings, its phase, the match and the game
in progress, the timers it armed.  ``DriverMemory`` declares all of it; the driver
(``fibsbot.protocol.match.driver``) owns one, and the handlers of ``play``, ``ending``
and ``lobby`` read and change it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import structlog

from fibsbot.protocol.board import FibsBoard
from fibsbot.protocol.match.crawford import CrawfordBook, Score
from fibsbot.protocol.match.outputs import DecisionRequest, Output, Timer, TimerPurpose
from fibsbot.protocol.match.saved import SavedMatches
from fibsbot.protocol.match.situation import Situation
from fibsbot.protocol.match.state import MoveChecker

log = structlog.get_logger("fibsbot.protocol.match.driver")


class Phase(Enum):
    IDLE = "idle"  # in the lobby: saved matches are resumed from here
    RESUMED = "resumed"  # a saved match resumed, no board of it seen yet (a board between games: join)
    PLAYING = "playing"


@dataclass(frozen=True)
class DriverSettings:
    roll_delay: float = 2.0  # how long the server may take to roll for us
    board_delay: float = 5.0  # how long a board may take after a start or a roll
    max_retries: int = 3  # looks at the board after the server refused an answer, per situation
    max_board_requests: int = 3  # ``board`` commands in a row without a board in between
    inactivity_timeout: float | None = 600.0  # seconds without match events before leaving a match


@dataclass(frozen=True)
class TimerInfo:
    purpose: TimerPurpose
    situation: Situation | None = None  # roll timers: the situation they were armed for
    boards_seen: int = 0  # board timers: fire only if no board arrived since
    activity: int = 0  # inactivity timers: fire only if nothing happened since


@dataclass(eq=False)
class DriverMemory:
    """The driver's whole state.  The match fields are reset with each match and the
    game fields with each game (``reset_match``, ``reset_game``); the rest lasts."""

    settings: DriverSettings
    crawford: CrawfordBook  # which game is the Crawford game, by opponent
    # --- across matches and connections
    saved: SavedMatches = field(default_factory=SavedMatches)
    refused: set[str] = field(default_factory=set)  # commands the server does not know
    matches_finished: int = 0
    activity: int = 0  # match events handled
    serial: int = 0  # the last serial given to a timer or a request
    boards_seen: int = 0
    timers: dict[int, TimerInfo] = field(default_factory=dict)  # armed, by serial
    # the caller hands over the events of one read (``begin_read``): a ``join`` waits for its
    # end, held for this opponent, so that their logout in the same read cancels it
    reading: bool = False
    join_held: str | None = None
    checker: MoveChecker = field(default_factory=MoveChecker)  # its own move buffers, not the agent's
    # --- the match
    phase: Phase = Phase.IDLE
    opponent: str | None = None
    length: int | None = None  # None: unlimited, or not known yet
    score: Score | None = None  # during a game, from its boards
    board: FibsBoard | None = None  # the latest board of ours
    board_requests: int = 0  # ``board`` commands since the last board
    # a game of this match has ended: a match-end line before that is a late one of an earlier match
    game_ended: bool = False
    # --- the game
    crawford_game: bool = False  # the game in progress, as our record and the board tell it
    double_offered: bool = False  # the opponent's ``doubles`` message, before its board
    resign_points: int | None = None  # the opponent offers to resign for these points
    pending: DecisionRequest | None = None  # asked of the agent, not answered yet
    pending_situation: Situation | None = None  # what ``pending`` is about
    answered: Situation | None = None  # answered (or rolled) until the turn passes
    roll_armed: Situation | None = None  # a roll timer runs for it
    roll_prompted: bool = False  # "Please roll or double" came before its board
    awaiting_ack: bool = False  # a command of ours went out and no board came since
    retries: dict[Situation, int] = field(default_factory=dict)  # looks again after a refusal

    @property
    def in_match(self) -> bool:
        return self.phase is not Phase.IDLE

    def reset_match(self, phase: Phase = Phase.IDLE, opponent: str | None = None, length: int | None = None) -> None:
        self.phase, self.opponent, self.length = phase, opponent, length
        self.score = None
        self.board = None
        self.board_requests = 0
        self.game_ended = False
        self.reset_game()

    def reset_game(self) -> None:
        self.crawford_game = False
        self.double_offered = False
        self.resign_points = None
        self.pending = self.pending_situation = None
        self.answered = self.roll_armed = None
        self.roll_prompted = False
        self.awaiting_ack = False
        self.retries = {}

    def turn_passed(self) -> None:
        self.answered = None
        self.roll_armed = None
        self.roll_prompted = False

    def finish_match(self) -> None:
        self.matches_finished += 1
        self.crawford.forget(self.opponent)
        self.reset_match()

    def leave_match(self, reason: str) -> None:
        log.info("match_left", opponent=self.opponent, reason=reason)
        self.reset_match()

    def next_serial(self) -> int:
        self.serial += 1
        return self.serial

    def timer(self, info: TimerInfo) -> Timer:
        """A timer to hand out; ``info`` says when it still matters when it fires."""
        timer = Timer(serial=self.next_serial(), purpose=info.purpose)
        self.timers[timer.serial] = info
        return timer


Handler = Callable[[DriverMemory, Any], list[Output]]  # each takes its own kind of event
