"""Matches on the server core whose bot is killed at chosen moments, with no timing involved.

The bot is what the daemon runs (``MatchDriver`` and ``MatchRecords``), fed the
events the server sends it one by one.  A cut after event K is a kill: the bot
handles nothing more (the rest of what the server sent is lost), the opponent may
go on for a few actions before the server notices, then the connection drops and
a new bot (new driver, new records read from disk) logs in and resumes the match.
Every cut point of a match can be tried in turn, so a defect that a timed test
meets by chance is met here every time.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine.rules.moves import MoveBuffers, generate_moves, steps_to_move
from fibsbot.arena.audit import Audit, audit_match, guessed_moves, unrecoverable_games
from fibsbot.protocol.match.driver import MatchDriver
from fibsbot.protocol.match.outputs import DecisionRequest, Send, Wait, consult
from fibsbot.protocol.parser import Invitation, Welcome
from fibsbot.records.events import event_logger
from fibsbot.records.journal import MatchJournal
from fibsbot.records.observer import MatchRecords
from fibsbot.records.queue import TrainingQueue
from tests.server_harness import Harness, pending_action, random_move

BOT, SPARRING = "fibsbot", "sparring"


@dataclass(frozen=True)
class _Move:
    steps: tuple
    board: np.ndarray
    disagrees: bool  # makes a queue row, as a 0-ply choice unlike the search's would
    equity: float = 0.0
    ply: int = 1
    probs: tuple = ()
    ply0_equity: float = 0.0

    @property
    def ply0_steps(self) -> tuple:
        return self.steps


@dataclass(frozen=True)
class _Cube:
    double: bool
    take: bool


@dataclass
class RandomAgent:
    """Random legal moves, doubles and takes (a seeded rng): every kind of action gets played."""

    rng: random.Random
    double_rate: float = 0.15
    buffers: MoveBuffers = field(default_factory=MoveBuffers)

    def choose_move(self, board, d1, d2, state):
        count = generate_moves(np.ascontiguousarray(board), d1, d2, *self.buffers.args())
        k = self.rng.randrange(count)
        return _Move(steps_to_move(self.buffers.steps[k]), self.buffers.boards[k].copy(), self.rng.random() < 0.2)

    def double_decision(self, board, state):
        return _Cube(double=self.rng.random() < self.double_rate, take=True)

    def take_decision(self, board, state):
        return _Cube(double=False, take=self.rng.random() < 0.8)

    def accept_resignation(self, board, state, level, on_roll):
        return False


class InterruptedMatch:
    """One match between the bot and a scripted opponent; ``cuts``: kill after these event counts."""

    def __init__(
        self,
        data_dir: Path,
        *,
        seed: int,
        length: int = 3,
        cuts: tuple[int, ...] = (),
        lag: int = 0,
        cut_before_send: bool = False,
        queue: bool = False,
        double_rate: float = 0.1,
        server: dict | None = None,
        kill_when: Callable[[InterruptedMatch], bool] | None = None,
    ) -> None:
        self.data_dir = Path(data_dir)
        self.length = length
        self.rng = random.Random(seed)
        self.harness = Harness(seed=seed, **(server or {}))  # ServerConfig fields
        self.kill_when = kill_when  # a kill at the first event after which it holds (once)
        self.double_rate = double_rate  # both sides' (a high cube ends a match in one game)
        self.agent = RandomAgent(random.Random(seed + 1), double_rate)
        self.cuts = sorted(cuts)
        self.lag = lag  # opponent actions the server still takes before it notices the kill
        self.cut_before_send = cut_before_send  # a cut at a decision falls between journal and send
        self.queue = TrainingQueue(self.data_dir / "queue.sqlite") if queue else None
        self.inbox: deque = deque()
        self.seen: list = []  # every event the bot handled, in order (cut points are indices into it)
        self.handled = 0
        self.kills = 0
        self.match = None
        self.harness.login(SPARRING)
        self._start_bot(first=True)

    # --- the bot --------------------------------------------------------------------------

    def _start_bot(self, first: bool = False) -> None:
        self.records = MatchRecords(
            self.data_dir / "matches",
            self.queue,
            user=BOT,
            net_version="n",
            event_log=event_logger(self.data_dir / "events.jsonl"),
        )
        self.driver = MatchDriver(roll_delay=0.0, match_record=self.records)  # as the daemon wires them
        self.dead = False
        self.decisions: deque = deque()
        h = self.harness
        player = h.connect(BOT)
        player.parser.expect_login_result()
        self._to_bot(h.send(BOT, f"login test_client 1008 {BOT} pw"))
        if first:
            self._to_bot(h.send(SPARRING, f"invite {BOT} {self.length}"))
            self._send(f"join {SPARRING}")

    def _to_bot(self, new: dict) -> None:
        if not self.dead:
            self.inbox.extend(new.get(BOT, []))
        for event in new.get(SPARRING, []):
            if isinstance(event, Invitation) and event.player == BOT:
                self._sparring(f"join {BOT}")

    def _send(self, text: str) -> None:
        self._to_bot(self.harness.send(BOT, text))

    def _outputs(self, outputs) -> None:
        for output in outputs:
            if self.dead:
                return
            if isinstance(output, Send):
                self._send(output.text)
            elif isinstance(output, Wait) and output.timer.purpose == "roll":
                self._outputs(self.driver.timer_expired(output.timer))
            elif isinstance(output, DecisionRequest):
                self.decisions.append(output)  # decided once the lines already received are handled

    def _decide(self) -> None:
        request = self.decisions.popleft()
        answer = consult(self.agent, request)
        commands = self.driver.decided(request, answer)
        self.records.on_decision(request, answer, commands)
        if self.cut_before_send and self._cut_due():
            self._kill()
            return
        self._outputs(commands)

    def _cut_due(self) -> bool:
        if self.kill_when is not None and self.kill_when(self):
            self.kill_when = None
            self.cuts.insert(0, self.handled)
        return bool(self.cuts) and self.handled >= self.cuts[0]

    def _handle(self, event) -> None:
        self.handled += 1
        self.seen.append(event)
        if isinstance(event, Welcome):
            self._send("set boardstyle 3")
            self._outputs(self.driver.resume_commands())
        outputs = self.driver.handle(event)
        self.records.on_event(event, self.driver.snapshot())
        if BOT in self.harness.core.matches and self.match is None:
            self.match = self.harness.core.matches[BOT]
        if self._cut_due() and not self.cut_before_send:
            self._kill()
            return
        self._outputs(outputs)

    def _kill(self) -> None:
        self.cuts.pop(0)
        self.kills += 1
        self.dead = True
        self.inbox.clear()
        self.decisions.clear()
        for _ in range(self.lag):  # the opponent's command may reach the server before the drop
            if not self._sparring_acts():
                break
        self.harness.drop(BOT)

    # --- the opponent -------------------------------------------------------------------

    def _sparring(self, text: str) -> None:
        self._to_bot(self.harness.send(SPARRING, text))

    def _sparring_acts(self) -> bool:
        player = self.harness.players[SPARRING]
        action = pending_action(player)
        if action == "move":
            self._sparring(random_move(player.board, self.rng))
        elif action == "roll_or_double":
            self._sparring("double" if self.rng.random() < self.double_rate else "roll")
        elif action == "answer_double":
            self._sparring("accept" if self.rng.random() < 0.8 else "reject")
        elif action == "join":
            player.join_prompt = False
            self._sparring("join")
        elif action == "answer_resign":
            player.resign_offer = None
            self._sparring("reject")
        else:
            return False
        return True

    # --- the match ----------------------------------------------------------------------

    def play_to_cut(self, max_steps: int = 20_000) -> None:
        """The match up to its first cut: the bot killed there and not brought back, so the
        server keeps the match saved (a data directory left as a kill leaves it)."""
        for _ in range(max_steps):
            if self.dead:
                return
            if self.inbox:
                self._handle(self.inbox.popleft())
            elif self.decisions:
                self._decide()
            elif not self._sparring_acts():
                raise AssertionError("the match stopped before its cut")
        raise AssertionError("the match did not reach its cut")

    def play(self, max_steps: int = 20_000) -> None:
        for _ in range(max_steps):
            if self.match is not None and self.match in self.harness.core.finished and not self.inbox:
                if not self.dead:
                    return  # and the bot has handled every line of it
                self._start_bot()  # the bot comes back and learns the match is no longer saved
                continue
            if self.inbox:
                self._handle(self.inbox.popleft())
            elif self.decisions:
                self._decide()
            elif self.dead:
                self._start_bot()
            elif not self._sparring_acts():
                if self.match is not None and self.match.is_over:
                    return
                raise AssertionError("the match is stuck")
        raise AssertionError("the match did not end")

    def audit(self) -> Audit:
        """The server's record of the match beside the bot's journal (read as gnubg would read the .mat)."""
        journals = sorted((self.data_dir / "matches").glob("*.journal.json"))
        assert len(journals) == 1, journals
        audit = Audit()
        actions = MatchJournal.load(journals[0]).actions
        audit_match(
            self.match,
            self.match.seat_of(BOT),
            as_gnubg_match(actions),
            audit,
            journals[0].name,
            unrecoverable_games(actions),
            guessed_moves(actions),
        )
        return audit


def as_gnubg_match(actions: list) -> dict:
    """A journal's recorded games in the shape of ``gnubg.match()`` (moves only), left-out games dropped."""
    games: list[dict] = []
    for action in actions:
        if action[0] == "game":
            games.append({"info": {"score-X": action[1], "score-O": action[2]}, "game": []})
        elif action[0] == "move":
            games[-1]["game"].append(
                {
                    "action": "move",
                    "player": "XO"[action[1]],
                    "dice": action[2:4],
                    "move": [tuple(step) for step in action[4]],
                }
            )
        elif action[0] == "leave_out":
            games.pop()
    return {"games": games}
