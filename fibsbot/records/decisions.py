"""Our decisions in the records: the ``decision`` event, the journal entry, the queue row.

The journal entry of our own action (move, double, take, drop, and a request to roll)
is written here,
before the client sends the command, so that no action of ours reaches the server
without being on disk first.  The move journaled is the one actually sent (the
driver may have replaced an illegal answer), read back from the command.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from engine.rules.ids import match_id, position_id
from engine.rules.notation import format_gnubg, parse_fibs
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
        self.journal(request, commands)
        self.log(request, answer, commands)

    def journal(self, request: DecisionRequest, commands: list[Send]) -> None:
        self._journal(request, [c.text for c in commands])

    def log(self, request: DecisionRequest, answer: Any, commands: list[Send]) -> None:
        """The decision event and its queue row (the journal has the action already)."""
        sent = [c.text for c in commands]
        # the Position ID of the side on roll: us, except when we answer a double
        on_roll = request.board[::-1] if isinstance(request, TakeRequest) else request.board
        pid = position_id(np.ascontiguousarray(on_roll))
        mid = match_id(request.state)
        fields: dict[str, Any] = {"kind": request.kind, "position_id": pid, "match_id": mid, "sent": sent}
        if isinstance(request, MoveRequest) and answer is not None:
            fields.update(
                dice=list(request.dice),
                move=format_gnubg(request.board, answer.steps) or "(none)",
                equity=round(answer.equity, 5),
                ply=answer.ply,
                probs=[round(p, 5) for p in answer.probs],
            )
            if answer.disagrees:
                self._queue(
                    pid,
                    mid,
                    request.dice,
                    "move",
                    format_gnubg(request.board, answer.ply0_steps),
                    format_gnubg(request.board, answer.steps),
                    answer.ply0_equity,
                    answer.equity,
                    answer.ply,
                )
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
        elif isinstance(request, DoubleRequest) and command == "roll":
            self.records.record("rolling", 0)  # the server may roll and pass a dance on before we see it
        elif isinstance(request, TakeRequest):
            self.records.record("take" if command == "accept" else "drop", 0)

    def _queue(self, pid, mid, dice, kind, ply0_choice, search_choice, eq0, eq, ply) -> None:
        if self.queue is None:
            return
        journal = self.records.journal
        game_number, move_number = self._place(journal)
        self.queue.add(
            Disagreement(
                position_id=pid,
                match_id=mid,
                dice=dice,
                kind=kind,
                choice_ply0=ply0_choice or "(none)",
                choice_search=search_choice or "(none)",
                equity_ply0=float(eq0),
                equity_search=float(eq),
                ply=ply,
                net_version=self.net_version,
                match_ref=journal.mat_path.name if journal is not None else None,
                game_number=game_number,
                move_number=move_number,
            )
        )
        self.queued += 1

    def unplace_left_out(self, journal) -> None:
        """The queue rows of games the record left out lose their game and line: another game may
        come to stand there in the file (their positions stay, for training)."""
        if self.queue is None or journal is None:
            return
        kept = [game.number for game in journal.recorder.games]
        unplaced = self.queue.unplace(journal.mat_path.name, kept)
        if unplaced:
            self.records.events.info("queue_rows_unplaced", record=journal.mat_path.name, rows=unplaced)

    @staticmethod
    def _place(journal) -> tuple[int | None, int | None]:
        """The game and numbered line of the decision just journaled.

        A drop ends the game it answers, so the game is placed by the journal's
        last action (ours) rather than by the game in progress; a decision to roll
        rather than double stands on the line of the roll it asks for; a decision
        in a game the record does not follow has no place in the file.
        """
        if journal is None or not journal.recorder.games:
            return None, None
        last = journal.actions[-1] if journal.actions else None
        ended_by_us = last is not None and last[0] == "drop" and last[1] == 0
        if not (journal.game_in_progress or ended_by_us):
            return None, None
        game = journal.recorder.games[-1]
        if last is not None and last[0] == "rolling":
            return game.number, (len(game.slots) + 1) // 2 + 1  # our roll begins the next line
        return game.number, max(1, (len(game.slots) + 1) // 2)
