"""The records a match leaves: the ``.mat`` file, the JSON event log, the training queue.

``MatchRecords`` is a match observer (``fibsbot.match_types.MatchObserver``): it
watches events and decisions and never steers.  Player 0 of every record is us.
Our moves come from our decisions (what we sent), the opponent's from the
server's move lines, translated to their own numbering (their direction is the
opposite of ours).  A record that cannot be followed (a resumed match whose earlier
games we never saw, a message we could not place) is logged and skipped: a record
problem never reaches the bot.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

import numpy as np
import structlog

from engine.ids import match_id, position_id
from engine.notation import format_gnubg, parse_fibs
from fibsbot.clip_events import (Board, CantMove, DoubleAccepted, DoubleOffered, DoubleRejected, Event, GameEnd,
                                 MatchEnd, MatchResumed, MatchStart, NewGame, OnlyPossibleMove, OpeningRoll, OpponentMoves,
                                 OpponentRolls, ResignAccepted, YouDoubled, YouRoll)
from fibsbot.match_types import DecisionRequest, DoubleRequest, MatchSnapshot, MoveRequest, Send, TakeRequest
from fibsbot.records.matfile import MatchRecorder
from fibsbot.records.queue import Disagreement, TrainingQueue

log = structlog.get_logger("fibsbot.records")
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


class MatchRecords:
    """Observer writing ``matches/*.mat``, decision events, and queue rows."""

    def __init__(self, matches_dir: Path, queue: TrainingQueue | None, *, user: str, net_version: str,
                 event_log: Any = None, wire_log: Any = None, site: str | None = None) -> None:
        self.matches_dir = Path(matches_dir)
        self.matches_dir.mkdir(parents=True, exist_ok=True)
        self.queue = queue
        self.user = user
        self.net_version = net_version
        self.events = event_log or log
        self.wire = wire_log
        self.site = site
        self.recorder: MatchRecorder | None = None
        self.finished: list[Path] = []  # match files completed in this run
        self.queued = 0
        self._direction = -1
        self._dice: dict[int, tuple[int, int]] = {}
        self._recorded_turn = False

    # --- the conversation --------------------------------------------------------------

    def on_received(self, line: str) -> None:
        if self.wire is not None:
            self.wire.received(line)

    def on_sent(self, command: str) -> None:
        if self.wire is not None:
            self.wire.sent(command)

    # --- events ---------------------------------------------------------------------------

    def on_event(self, event: Event, snapshot: MatchSnapshot) -> None:
        handler = _HANDLERS.get(type(event))
        if handler is None:
            return
        try:
            handler(self, event, snapshot)
        except Exception as exc:  # noqa: BLE001 - a record problem must never reach the bot
            self.events.warning("record_skipped", event=type(event).__name__, error=repr(exc))

    def _start(self, event: MatchStart | MatchResumed, snapshot: MatchSnapshot) -> None:
        length = event.length
        stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
        name = f"{stamp}-{_UNSAFE.sub('_', self.user)}-vs-{_UNSAFE.sub('_', event.opponent)}.mat"
        self.recorder = MatchRecorder(self.matches_dir / name, (self.user, event.opponent), length or 0,
                                      site=self.site, event="resumed match" if isinstance(event, MatchResumed)
                                      else None)
        self.events.info("match_start", opponent=event.opponent, length=length, record=name)

    def _board(self, event: Board, snapshot: MatchSnapshot) -> None:
        self._direction = event.board.direction
        rec = self.recorder
        if rec is not None and not rec.game_in_progress and event.board.turn != 0 and not rec.is_over:
            rec.start_game((event.board.player_score, event.board.opponent_score))
            self._recorded_turn = False

    def _new_game(self, event: NewGame, snapshot: MatchSnapshot) -> None:
        self._dice.clear()

    def _opening(self, event: OpeningRoll, snapshot: MatchSnapshot) -> None:
        # whoever moves first plays the two opening dice, the higher one first
        self._dice[0] = (event.our_die, event.their_die)
        self._dice[1] = (event.their_die, event.our_die)
        self._recorded_turn = False

    def _our_roll(self, event: YouRoll, snapshot: MatchSnapshot) -> None:
        self._dice[0] = (event.d1, event.d2)
        self._recorded_turn = False

    def _their_roll(self, event: OpponentRolls, snapshot: MatchSnapshot) -> None:
        self._dice[1] = (event.d1, event.d2)

    def _their_move(self, event: OpponentMoves, snapshot: MatchSnapshot) -> None:
        if self._game() and 1 in self._dice:
            self.recorder.roll_and_move(1, self._dice.pop(1), parse_fibs(event.move, -self._direction))

    def _only_move(self, event: OnlyPossibleMove, snapshot: MatchSnapshot) -> None:
        if self._game() and 0 in self._dice:
            self.recorder.roll_and_move(0, self._dice.pop(0), parse_fibs(event.move, self._direction))
            self._recorded_turn = True

    def _cant_move(self, event: CantMove, snapshot: MatchSnapshot) -> None:
        player = 0 if event.is_us else 1
        if self._game() and player in self._dice:
            self.recorder.roll_and_move(player, self._dice.pop(player), ())

    def _we_double(self, event: YouDoubled, snapshot: MatchSnapshot) -> None:
        if self._game():
            self.recorder.double(0)

    def _they_double(self, event: DoubleOffered, snapshot: MatchSnapshot) -> None:
        if self._game():
            self.recorder.double(1)

    def _accepted(self, event: DoubleAccepted, snapshot: MatchSnapshot) -> None:
        if self._game():
            self.recorder.take(0 if event.is_us else 1)

    def _dropped(self, event: DoubleRejected, snapshot: MatchSnapshot) -> None:
        if self._game():
            loser = 0 if event.is_us else 1
            self.recorder.drop(loser)
            self.recorder.win(1 - loser, event.points)
            self._flush()

    def _resigned(self, event: ResignAccepted, snapshot: MatchSnapshot) -> None:
        if self._game():
            winner = 0 if event.is_us else 1
            self.recorder.resign(1 - winner, event.points)
            self._flush()

    def _game_end(self, event: GameEnd, snapshot: MatchSnapshot) -> None:
        if self._game():
            self.recorder.win(0 if event.we_won else 1, event.points)
        self._flush()

    def _match_end(self, event: MatchEnd, snapshot: MatchSnapshot) -> None:
        if self.recorder is not None:
            self._flush()
            self.finished.append(self.recorder.path)
            self.events.info("match_end", winner=event.winner, we_won=event.we_won, scores=list(event.scores),
                             record=self.recorder.path.name)
            self.recorder = None

    def _game(self) -> bool:
        return self.recorder is not None and self.recorder.game_in_progress

    def _flush(self) -> None:
        if self.recorder is not None and self.recorder.games:
            self.recorder.flush()

    # --- decisions ------------------------------------------------------------------------

    def on_decision(self, request: DecisionRequest, answer: Any, commands: list[Send]) -> None:
        try:
            self._decision(request, answer, commands)
        except Exception as exc:  # noqa: BLE001
            self.events.warning("record_skipped", decision=request.kind, error=repr(exc))

    def _decision(self, request: DecisionRequest, answer: Any, commands: list[Send]) -> None:
        # the Position ID of the side on roll: us, except when we answer a double
        on_roll = request.board[::-1] if isinstance(request, TakeRequest) else request.board
        pid = position_id(np.ascontiguousarray(on_roll))
        mid = match_id(request.state)
        fields = {"kind": request.kind, "position_id": pid, "match_id": mid,
                  "sent": [c.text for c in commands]}
        if isinstance(request, MoveRequest) and answer is not None:
            fields.update(dice=list(request.dice), move=format_gnubg(request.board, answer.steps) or "(none)",
                          equity=round(answer.equity, 5), ply=answer.ply, probs=[round(p, 5) for p in answer.probs])
            if commands and self._game() and not self._recorded_turn:
                self.recorder.roll_and_move(0, request.dice, answer.steps)
                self._dice.pop(0, None)
                self._recorded_turn = True
            if answer.disagrees and self.queue is not None:
                self._queue(pid, mid, request.dice, "move", format_gnubg(request.board, answer.ply0_steps),
                            format_gnubg(request.board, answer.steps), answer.ply0_equity, answer.equity, answer.ply)
        elif isinstance(request, (DoubleRequest, TakeRequest)) and answer is not None and hasattr(answer, "action"):
            fields.update(action=answer.action, equities={k: round(v, 5) for k, v in answer.equities.items()})
            ply0 = getattr(answer, "ply0_action", None)
            if ply0 is not None and ply0 != answer.action and self.queue is not None:
                self._queue(pid, mid, None, "cube", ply0, answer.action, 0.0, 0.0, getattr(answer, "ply", 0))
        else:
            fields["answer"] = repr(answer)
        self.events.info("decision", **fields)

    def _queue(self, pid, mid, dice, kind, ply0_choice, search_choice, eq0, eq, ply) -> None:
        rec = self.recorder
        self.queue.add(Disagreement(
            position_id=pid, match_id=mid, dice=dice, kind=kind, choice_ply0=ply0_choice or "(none)",
            choice_search=search_choice or "(none)", equity_ply0=float(eq0), equity_search=float(eq), ply=ply,
            net_version=self.net_version, match_ref=rec.path.name if rec else None,
            game_number=len(rec.games) if rec and rec.games else None))
        self.queued += 1


_HANDLERS = {
    MatchStart: MatchRecords._start, MatchResumed: MatchRecords._start, Board: MatchRecords._board,
    NewGame: MatchRecords._new_game, OpeningRoll: MatchRecords._opening, YouRoll: MatchRecords._our_roll, OpponentRolls: MatchRecords._their_roll,
    OpponentMoves: MatchRecords._their_move, OnlyPossibleMove: MatchRecords._only_move,
    CantMove: MatchRecords._cant_move, YouDoubled: MatchRecords._we_double, DoubleOffered: MatchRecords._they_double,
    DoubleAccepted: MatchRecords._accepted, DoubleRejected: MatchRecords._dropped,
    ResignAccepted: MatchRecords._resigned, GameEnd: MatchRecords._game_end, MatchEnd: MatchRecords._match_end,
}
