"""Our decisions in the records: the ``decision`` event, the journal entry, the queue row.

The journal entry of our own action (move, double, take, drop) is written here,
before the client sends the command, so that no action of ours reaches the server
without being on disk first.  The move journaled is the one actually sent (the
driver may have replaced an illegal answer), read back from the command.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from engine.ids import match_id, position_id
from engine.notation import format_gnubg, parse_fibs
from fibsbot.protocol.match.outputs import DecisionRequest, DoubleRequest, MoveRequest, Send, TakeRequest
from fibsbot.records.queue import Disagreement, TrainingQueue


class Records(Protocol):
    """What the log needs of the ``MatchRecords`` that owns it (``fibsbot.records.observer``,
    which imports this module: naming that class here would close a circle)."""

    events: Any
    journal: Any

    def record(self, kind: str, *args: Any) -> None: ...


class DecisionLog:
    def __init__(self, records: Records, queue: TrainingQueue | None, net_version: str) -> None:
        self.records = records
        self.queue = queue
        self.net_version = net_version
        self.queued = 0

    def record(self, request: DecisionRequest, answer: Any, commands: list[Send]) -> None:
        sent = [c.text for c in commands]
        self._journal(request, sent)
        # the Position ID of the side on roll: us, except when we answer a double
        on_roll = request.board[::-1] if isinstance(request, TakeRequest) else request.board
        pid = position_id(np.ascontiguousarray(on_roll))
        mid = match_id(request.state)
        fields: dict[str, Any] = {"kind": request.kind, "position_id": pid, "match_id": mid, "sent": sent}
        if isinstance(request, MoveRequest) and answer is not None:
            fields.update(dice=list(request.dice), move=format_gnubg(request.board, answer.steps) or "(none)",
                          equity=round(answer.equity, 5), ply=answer.ply, probs=[round(p, 5) for p in answer.probs])
            if answer.disagrees:
                self._queue(pid, mid, request.dice, "move", format_gnubg(request.board, answer.ply0_steps),
                            format_gnubg(request.board, answer.steps), answer.ply0_equity, answer.equity, answer.ply)
        elif isinstance(request, (DoubleRequest, TakeRequest)) and hasattr(answer, "action"):
            if isinstance(request, TakeRequest):
                # the verdict is the doubler's ("no double", "double, take", ...); ours is take or drop
                fields.update(action="take" if answer.take else "drop", verdict=answer.action)
            else:
                fields.update(action=answer.action)
            fields["equities"] = {k: round(v, 5) for k, v in answer.equities.items()}
            ply0 = getattr(answer, "ply0_action", None)
            if ply0 is not None and ply0 != answer.action:
                self._queue(pid, mid, None, "cube", ply0, answer.action, 0.0, 0.0, getattr(answer, "ply", 0))
        else:
            fields["answer"] = repr(answer)
        self.records.events.info("decision", **fields)

    def _journal(self, request: DecisionRequest, sent: list[str]) -> None:
        if not sent:
            return
        command = sent[0]
        if isinstance(request, MoveRequest) and command.startswith("move "):
            steps = parse_fibs(command, request.fibs.direction)
            self.records.record("move", 0, *request.dice, [list(step) for step in steps])
        elif isinstance(request, DoubleRequest) and command == "double":
            self.records.record("double", 0)
        elif isinstance(request, TakeRequest):
            self.records.record("take" if command == "accept" else "drop", 0)

    def _queue(self, pid, mid, dice, kind, ply0_choice, search_choice, eq0, eq, ply) -> None:
        if self.queue is None:
            return
        journal = self.records.journal
        game = journal.recorder.current_game if journal is not None else None
        self.queue.add(Disagreement(
            position_id=pid, match_id=mid, dice=dice, kind=kind, choice_ply0=ply0_choice or "(none)",
            choice_search=search_choice or "(none)", equity_ply0=float(eq0), equity_search=float(eq), ply=ply,
            net_version=self.net_version, match_ref=journal.mat_path.name if journal is not None else None,
            game_number=game.number if game is not None else None,
            move_number=journal.recorder.last_move_number if game is not None else None))
        self.queued += 1
