"""How the match driver leaves a match: by the score, by inactivity, or by being told.

A mixin of ``fibsbot.protocol.match.driver.MatchDriver``.  The match-end line is not the only end:
a server may never send it (the winner logged out a moment after the last game),
so a game end whose points bring a player to the match length ends the match by
itself, and a match in which nothing happens for ``inactivity_timeout`` seconds is
dropped to idle with a log line, the opponent being remembered as a suspected
saved match (the server is asked before it is resumed).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import structlog

from fibsbot.protocol.events import DoubleRejected, GameEnd, GameSaved, MatchEnd, ResignAccepted
from fibsbot.protocol.match.crawford import CrawfordBook
from fibsbot.protocol.match.outputs import Output, Timer, Wait
from fibsbot.protocol.match.saved import SavedMatches

log = structlog.get_logger("fibsbot.protocol.match.driver")


@dataclass(frozen=True)
class TimerInfo:
    purpose: str
    key: tuple[Any, ...] | None = None  # roll timers: the situation they were armed for
    boards_seen: int = 0  # board timers: fire only if no board arrived since
    activity: int = 0  # inactivity timers: fire only if nothing happened since


class MatchEnding:
    matches_finished: int
    inactivity_timeout: float | None
    saved: SavedMatches
    crawford: CrawfordBook
    _activity: int
    _in_match: bool
    _opponent: str | None
    _length: int | None
    _score: tuple[int, int] | None
    _invite_if_idle: Callable[[], list[Output]]  # from LobbyHandlers

    def _reset_match(self, *, in_match: bool, opponent: str | None, length: int | None) -> None:
        raise NotImplementedError  # provided by MatchDriver

    def _timer(self, info: TimerInfo) -> Timer:
        raise NotImplementedError  # provided by MatchDriver

    def _end_if_score_reached(self, event: GameEnd | DoubleRejected | ResignAccepted) -> None:
        if isinstance(event, GameEnd):
            we_won = event.we_won
        else:  # "You give up" / "You accept and win": is_us says who gave up / who won
            we_won = event.is_us == isinstance(event, ResignAccepted)
        score, length = self._score, self._length
        if self._in_match and score is not None and length:
            if score[0 if we_won else 1] + event.points >= length:
                log.info("match_over_by_score", opponent=self._opponent, we_won=we_won, length=length)
                self._finish_match()

    def _finish_match(self) -> None:
        self.matches_finished += 1
        self.crawford.forget(self._opponent)
        self._reset_match(in_match=False, opponent=None, length=None)

    def _leave_match(self, reason: str) -> None:
        log.info("match_left", opponent=self._opponent, reason=reason)
        self._reset_match(in_match=False, opponent=None, length=None)

    def _arm_inactivity(self) -> list[Output]:
        if self.inactivity_timeout is None:
            return []
        info = TimerInfo(purpose="inactive", activity=self._activity)
        return [Wait(self.inactivity_timeout, self._timer(info))]

    def _inactivity_check(self, info: TimerInfo) -> list[Output]:
        if not self._in_match:
            return []
        if self._activity != info.activity:
            return self._arm_inactivity()
        log.warning("match_inactive", opponent=self._opponent, seconds=self.inactivity_timeout)
        if self._opponent:
            self.saved.suspect(self._opponent)  # the server may keep it: ask before resuming
        self._leave_match("no activity")
        return []

    def _on_match_end(self, event: MatchEnd) -> list[Output]:
        loser = self._score[1 if event.we_won else 0] if self._score is not None else None
        if self._in_match and loser is not None and loser != min(event.scores):
            # a late line about an earlier match: the loser's score does not fit this one
            log.warning("match_end_ignored", scores=list(event.scores), score=list(self._score or ()))
            return []
        if self._in_match:  # not already ended by the score
            self._finish_match()
        return self._invite_if_idle()

    def _on_game_saved(self, event: GameSaved) -> list[Output]:
        if self._in_match and self._opponent:
            self.saved.suspect(self._opponent)
        self._reset_match(in_match=False, opponent=None, length=None)
        return []
