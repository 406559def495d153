"""How the match driver leaves a game or a match: by the score, by inactivity, or by being told.

Handlers of ``fibsbot.protocol.match.driver.MatchDriver``.  The match-end line is not
the only end: a server may never send it (the winner logged out a moment after the
last game), so a game end whose points bring a player to the match length ends the
match by itself, and a match in which nothing happens for ``inactivity_timeout``
seconds is dropped to idle with a log line, the opponent being remembered as a
suspected saved match (the server is asked before it is resumed).
"""

from __future__ import annotations

import structlog

from fibsbot.protocol.events import DoubleRejected, Event, GameEnd, GameSaved, MatchEnd, ResignAccepted
from fibsbot.protocol.match.lobby import invite_if_idle
from fibsbot.protocol.match.memory import DriverMemory, Handler, TimerInfo
from fibsbot.protocol.match.outputs import Output, TimerPurpose, Wait

log = structlog.get_logger("fibsbot.protocol.match.driver")


def on_game_end(m: DriverMemory, event: GameEnd | DoubleRejected | ResignAccepted) -> list[Output]:
    m.reset_game()
    m.game_ended = True
    m.board = None  # nothing on the last board of a game waits for us
    _end_if_score_reached(m, event)
    return invite_if_idle(m)


def _end_if_score_reached(m: DriverMemory, event: GameEnd | DoubleRejected | ResignAccepted) -> None:
    if isinstance(event, GameEnd):
        we_won = event.we_won
    else:  # "You give up" / "You accept and win": is_us says who gave up / who won
        we_won = event.is_us == isinstance(event, ResignAccepted)
    score, length = m.score, m.length
    if m.in_match and score is not None and length:
        if score[0 if we_won else 1] + event.points >= length:
            log.info("match_over_by_score", opponent=m.opponent, we_won=we_won, length=length)
            m.finish_match()


def arm_inactivity(m: DriverMemory) -> list[Output]:
    timeout = m.settings.inactivity_timeout
    if timeout is None:
        return []
    return [Wait(timeout, m.timer(TimerInfo(TimerPurpose.INACTIVE, activity=m.activity)))]


def inactivity_check(m: DriverMemory, info: TimerInfo) -> list[Output]:
    if not m.in_match:
        return []
    if m.activity != info.activity:
        return arm_inactivity(m)
    log.warning("match_inactive", opponent=m.opponent, seconds=m.settings.inactivity_timeout)
    if m.opponent:
        m.saved.suspect(m.opponent)  # the server may keep it: ask before resuming
    m.leave_match("no activity")
    return []


def on_match_end(m: DriverMemory, event: MatchEnd) -> list[Output]:
    if m.in_match and not m.game_ended:
        # the next match began before the server's line about the last one arrived
        log.warning("match_end_ignored", scores=list(event.scores), reason="no game of this match has ended")
        return []
    loser = m.score[1 if event.we_won else 0] if m.score is not None else None
    if m.in_match and loser is not None and loser != min(event.scores):
        # a late line about an earlier match: the loser's score does not fit this one
        log.warning("match_end_ignored", scores=list(event.scores), score=list(m.score or ()))
        return []
    if m.in_match:  # not already ended by the score
        m.finish_match()
    return invite_if_idle(m)


def on_game_saved(m: DriverMemory, event: GameSaved) -> list[Output]:
    if m.in_match and m.opponent:
        m.saved.suspect(m.opponent)
    m.reset_match()
    return []


HANDLERS: dict[type[Event], Handler] = {
    GameEnd: on_game_end,
    DoubleRejected: on_game_end,
    MatchEnd: on_match_end,
    GameSaved: on_game_saved,
}
