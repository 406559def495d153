"""The match state machine: server events in, commands and decision requests out.

Pure and synchronous (no IO, no asyncio): see ``fibsbot.protocol.match.outputs`` for the
outputs and how a caller resolves them.  Play is driven by the latest board line,
never by prompts or by our own idea of whose turn it is:

* our turn, our dice set, not yet answered -> a move decision (the opening move
  comes without a ``Please move`` prompt); a roll with no legal move asks nothing;
* our turn, no dice, we may double -> a double-or-roll decision;
* our turn, no dice, we may not double (Crawford game, the opponent owns the cube)
  -> the server usually rolls for us: ``roll`` only if it has not after a short
  ``Wait`` (or at once if it prompts ``Please roll or double``);
* the opponent doubled (``was_doubled``, or the ``doubles`` message) -> take decision
  (in the Crawford game too, logged, if the server lets it through: the Crawford game
  comes from our own record of the match, ``protocol.match.crawford``, not the board);
* the opponent offers to resign -> accept/reject decision;
* between games -> ``join`` (when the caller hands over its reads, ``begin_read``, at the
  end of the read, and not if the opponent logged out in it); match end (the match-end line, or a score that
  reaches the match length: the line may never come) -> idle; saved matches are
  resumed (``invite U``) as ``fibsbot.protocol.match.lobby`` and ``saved`` decide;
* no match activity for ``inactivity_timeout`` seconds -> idle, with a log line;
* unsure (no board after a match start or a roll, a malformed board, a prompt
  that contradicts the board, a command the server refused) -> ``board``, unless
  the server refused that command: then the next board line is awaited.

The driver is idle, in a match just resumed (its first board decides whether to
join the next game), or playing: ``memory.Phase``.  Each situation that needs an
answer is a ``situation.Situation`` (kind, position, dice, cube, score).  A
redisplay of the same board keeps the pending request; anything else makes it
stale, and ``decided`` drops stale answers.  A situation is answered once until
the turn passes (so a dance by the opponent, which repeats the position, still
gets a fresh decision).

Everything the driver knows is one ``memory.DriverMemory``; the handlers that
change it live in ``play``, ``ending`` and ``lobby``.
"""

from __future__ import annotations

import structlog

from fibsbot.protocol.board import FibsBoard
from fibsbot.protocol.events import Event
from fibsbot.protocol.match import ending, lobby, play
from fibsbot.protocol.match.crawford import CrawfordBook, MatchRecord
from fibsbot.protocol.match.memory import DriverMemory, DriverSettings, Handler, Phase
from fibsbot.protocol.match.outputs import DecisionRequest, MatchSnapshot, Output, Send, Timer, TimerPurpose
from fibsbot.protocol.match.state import answer_commands

log = structlog.get_logger(__name__)

_HANDLERS: dict[type[Event], Handler] = {**play.HANDLERS, **ending.HANDLERS, **lobby.HANDLERS}


class MatchDriver:
    """One bot's match state across connections; feed it every parsed event."""

    def __init__(
        self,
        *,
        roll_delay: float = 2.0,
        board_delay: float = 5.0,
        max_retries: int = 3,
        max_board_requests: int = 3,
        inactivity_timeout: float | None = 600.0,
        match_record: MatchRecord | None = None,
    ) -> None:
        settings = DriverSettings(
            roll_delay=roll_delay,
            board_delay=board_delay,
            max_retries=max_retries,
            max_board_requests=max_board_requests,
            inactivity_timeout=inactivity_timeout,
        )
        # ``match_record``: the journal, for the Crawford game of a resumed match
        self.memory = DriverMemory(settings=settings, crawford=CrawfordBook(match_record))

    # --- what the caller reads ---------------------------------------------------------

    @property
    def phase(self) -> Phase:
        return self.memory.phase

    @property
    def in_match(self) -> bool:
        return self.memory.in_match

    @property
    def opponent(self) -> str | None:
        return self.memory.opponent

    @property
    def board(self) -> FibsBoard | None:
        return self.memory.board

    @property
    def pending(self) -> DecisionRequest | None:
        return self.memory.pending

    @property
    def matches_finished(self) -> int:
        return self.memory.matches_finished

    @property
    def crawford(self) -> CrawfordBook:
        return self.memory.crawford

    @property
    def saved_opponent(self) -> str | None:
        return self.memory.saved.latest

    def snapshot(self) -> MatchSnapshot:
        m = self.memory
        return MatchSnapshot(
            in_match=m.in_match,
            opponent=m.opponent,
            match_length=m.length,
            board=m.board,
            saved_opponent=m.saved.latest,
            matches_finished=m.matches_finished,
            saved_opponents=m.saved.opponents,
        )

    # --- what the caller tells ---------------------------------------------------------

    def handle(self, event: Event) -> list[Output]:
        """Commands, timers and decision requests that ``event`` calls for."""
        handler = _HANDLERS.get(type(event))
        if handler is None:
            return []
        if type(event) not in lobby.HANDLERS:
            self.memory.activity += 1
        return handler(self.memory, event)

    def begin_read(self) -> None:
        """The events of one read follow: a ``join`` they call for is held until ``end_read``."""
        self.memory.reading = True

    def end_read(self) -> list[Output]:
        """The read's events are handled: the ``join`` held, unless the match was left meanwhile
        (the opponent's logout line came in the same read)."""
        m = self.memory
        held, m.reading, m.join_held = m.join_held, False, None
        if held is None:
            return []
        if m.in_match and m.opponent == held:
            return [Send("join")]
        log.info("join_withheld", opponent=held, reason="the match was left in the same read")
        return []

    def decided(self, request: DecisionRequest, answer: object) -> list[Send]:
        """The commands for the agent's answer, or [] when the request went stale."""
        m = self.memory
        if request is not m.pending:
            log.info("stale decision dropped", kind=request.kind, serial=request.serial)
            return []
        m.answered, m.pending, m.pending_situation = m.pending_situation, None, None
        commands = answer_commands(request, answer, m.checker)
        m.awaiting_ack = bool(commands)
        return commands

    def timer_expired(self, timer: Timer) -> list[Output]:
        m = self.memory
        info = m.timers.pop(timer.serial, None)
        if info is None:
            return []
        if info.purpose is TimerPurpose.INACTIVE:
            return ending.inactivity_check(m, info)
        if info.purpose is TimerPurpose.ROLL:
            if play.current_situation(m) == info.situation and m.answered != info.situation:
                return play.roll(m, info.situation)
            return []
        if m.boards_seen == info.boards_seen and m.in_match:
            return play.ask_board(m, "no board arrived")
        return []

    def connection_lost(self) -> None:
        """The server saves a running match when we drop: remember whom to resume with."""
        m = self.memory
        if m.in_match and m.opponent:
            m.saved.suspect(m.opponent)
        m.timers.clear()
        m.reading, m.join_held = False, None
        m.refused.clear()  # the next connection may be to another server
        m.reset_match()

    def resume_commands(self) -> list[Send]:
        """After a login: ask for the saved matches; the listing leads to ``invite U``."""
        return [self.memory.saved.new_session()]
