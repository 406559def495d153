"""A match fed to the bot's records line by line, as the server sends it, with our decisions
journaled and queued as the daemon does; ``kill`` stands a new process in (records read
from disk alone), and lines a killed bot never got are simply not fed.

We are X moving 24 -> 1 (direction -1), against ``oppo``; positions are kept here, apart
from the records, so that every board line is the server's own view of the match.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine.rules.notation import format_fibs
from engine.rules.position import Position
from fibsbot.protocol.board import FibsBoard, parse_board_line
from fibsbot.protocol.match.driver import MatchDriver
from fibsbot.protocol.match.outputs import Send
from fibsbot.protocol.match.state import apply_steps, make_request
from fibsbot.records.events import event_logger
from fibsbot.records.observer import MatchRecords
from fibsbot.records.queue import TrainingQueue
from tests.test_records_interrupted import feed, log_lines

USER, OPPONENT, DIRECTION = "fibsbot", "oppo", -1


@dataclass(frozen=True)
class _Move:
    steps: tuple
    disagrees: bool = True  # a 0-ply choice unlike the search's: a queue row
    equity: float = 0.0
    ply: int = 1
    probs: tuple = ()
    ply0_equity: float = 0.0

    @property
    def ply0_steps(self) -> tuple:
        return self.steps


@dataclass(frozen=True)
class _NoDouble:
    action: str = "no double"
    double: bool = False
    ply0_action: str = "double, take"  # the quick look would have doubled: a queue row
    ply: int = 1
    equities: dict = field(default_factory=dict)


class ScriptedMatch:
    def __init__(self, data_dir: Path, length: int) -> None:
        self.data_dir = Path(data_dir)
        self.length = length
        self.queue = TrainingQueue(self.data_dir / "queue.sqlite")
        self.score = [0, 0]
        self.rows = [Position.initial().board[0].copy(), Position.initial().board[0].copy()]
        self.serial = 0
        self.start_process()

    # --- the process ----------------------------------------------------------------------

    def start_process(self) -> None:
        self.records = MatchRecords(
            self.data_dir / "matches",
            self.queue,
            user=USER,
            net_version="n",
            event_log=event_logger(self.data_dir / "events.jsonl"),
        )
        self.driver = MatchDriver()

    def kill(self) -> None:
        """The daemon dies: what it journaled stays, the next lines reach a new process."""
        self.start_process()

    def lines(self, *lines: str) -> None:
        feed(self.records, self.driver, "".join(f"{line}\r\n" for line in lines))

    def events(self, name: str) -> list[dict]:
        return [line for line in log_lines(self.data_dir / "events.jsonl") if line["event"] == name]

    # --- what the server sends ------------------------------------------------------------

    def board(self, on_roll: str | None, dice=(0, 0), their_dice=(0, 0)) -> str:
        return FibsBoard.from_rows(
            self.rows[0],
            self.rows[1],
            on_roll=on_roll,
            opponent=OPPONENT,
            match_length=self.length,
            player_score=self.score[0],
            opponent_score=self.score[1],
            player_dice=dice,
            opponent_dice=their_dice,
            direction=DIRECTION,
        ).to_line()

    def joined(self) -> None:
        self.lines(f"** Player {OPPONENT} has joined you for a {self.length} point match.")

    def new_game(self, ours: int, theirs: int) -> None:
        """The opening roll (no doubles) and the first board, the winner to move."""
        self.rows = [Position.initial().board[0].copy(), Position.initial().board[0].copy()]
        dice = (max(ours, theirs), min(ours, theirs))
        first = "us" if ours > theirs else "them"
        self.lines(
            f"Starting a new game with {OPPONENT}.",
            f"You rolled {ours}, {OPPONENT} rolled {theirs}",
            self.board(first, dice if first == "us" else (0, 0), dice if first == "them" else (0, 0)),
        )

    def they_move(self, d1: int, d2: int, steps: tuple, rolled: bool = True) -> None:
        """The opponent's roll (``rolled``: its line; False after the opening roll) and move, their numbering."""
        self._play(1, steps)
        text = format_fibs(steps, -DIRECTION).removeprefix("move ")
        self.lines(*([f"{OPPONENT} rolls {d1} and {d2}."] if rolled else []), f"{OPPONENT} moves {text} .")

    def moved_unseen(self, player: int, steps: tuple) -> None:
        """A move the bot never heard of (it was away): only the server's position changes."""
        self._play(player, steps)

    def _play(self, player: int, steps: tuple) -> None:
        after = apply_steps(np.stack([self.rows[player], self.rows[1 - player]]), steps)
        assert after is not None, (player, steps)
        self.rows[player], self.rows[1 - player] = after[0].astype(np.int8), after[1].astype(np.int8)

    # --- our decisions, journaled before the command would go out -------------------------

    def _decide(self, kind: str, board: str, answer, command: str) -> None:
        self.serial += 1
        request = make_request(kind, parse_board_line(board), self.serial)
        self.records.on_decision(request, answer, [Send(command)])

    def we_roll_rather_than_double(self) -> None:
        self._decide("double", self.board("us"), _NoDouble(), "roll")

    def we_roll(self, d1: int, d2: int) -> None:
        self.lines(f"You roll {d1} and {d2}.", self.board("us", (d1, d2)))

    def we_move(self, d1: int, d2: int, steps: tuple) -> None:
        board = self.board("us", (d1, d2))
        self._decide("move", board, _Move(steps), format_fibs(steps, DIRECTION))
        self._play(0, steps)

    def resumed(self, turn: str, on_roll: str, dice=(0, 0), their_dice=(0, 0)) -> None:
        """A new process logs in and the server loads the saved match."""
        self.lines(
            f"You are now playing with {OPPONENT}. Your running match was loaded.",
            f"turn: {turn}",
            f"match length: {self.length}",
            f"points for user {USER}: {self.score[0]}",
            f"points for user {OPPONENT}: {self.score[1]}",
            self.board(on_roll, dice, their_dice),
        )

    def queue_rows(self) -> list[tuple]:
        with sqlite3.connect(self.data_dir / "queue.sqlite") as db:
            return db.execute(
                "SELECT match_ref, game_number, move_number, position_id FROM disagreements ORDER BY id"
            ).fetchall()
