"""Drive ``fibsbot.server.ServerCore`` directly: named players, fake clock, parsed output.

Every text the core sends a player is fed to that player's own ``ClipParser``;
tests read the events (``Player.events``) exactly as a client would see them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from engine.rules.moves import legal_moves
from engine.rules.notation import format_fibs
from fibsbot.protocol.board import FibsBoard
from fibsbot.protocol.parser import (
    Board,
    ClipParser,
    DoubleRejected,
    Event,
    GameEnd,
    JoinNextGamePrompt,
    MatchEnd,
    NewGame,
    ResignAccepted,
    ResignOffered,
    ResignRejected,
    Unknown,
)
from fibsbot.server import ServerConfig, ServerCore
from fibsbot.server.dice import DiceSource
from fibsbot.server.outputs import Close, Send, SetEcho

START = 1_700_000_000.0


@dataclass(eq=False)
class Player:
    name: str
    session: int
    parser: ClipParser = field(default_factory=ClipParser)
    text: str = ""  # everything received
    events: list[Event] = field(default_factory=list)
    closed: bool = False
    echo_off: bool = False
    board: FibsBoard | None = None  # the latest board
    resign_offer: ResignOffered | None = None  # the opponent's, waiting for our answer
    join_prompt: bool = False

    def take(self, text: str) -> list[Event]:
        self.text += text
        return self.note(self.parser.feed(text))

    def note(self, events: list[Event]) -> list[Event]:
        """Record events parsed elsewhere (a TCP client's parser)."""
        for event in events:
            self._track(event)
        self.events += events
        return events

    def _track(self, event: Event) -> None:
        if isinstance(event, Board):
            self.board = event.board
        elif isinstance(event, ResignOffered) and not event.is_us:
            self.resign_offer = event
        elif isinstance(event, (ResignAccepted, ResignRejected, NewGame, GameEnd, DoubleRejected)):
            self.resign_offer = None
        if isinstance(event, JoinNextGamePrompt):
            self.join_prompt = True
        elif isinstance(event, (NewGame, MatchEnd)):
            self.join_prompt = False

    def unknown(self) -> list[Unknown]:
        return [e for e in self.events if isinstance(e, Unknown)]

    def of(self, kind: type) -> list:
        return [e for e in self.events if isinstance(e, kind)]


class Harness:
    def __init__(self, *, dice: DiceSource | None = None, seed: int | None = 0, **config) -> None:
        config.setdefault("new_account_toggles", {"ready": True})
        self.core = ServerCore(ServerConfig(**config), dice=dice, seed=seed)
        self.now = START
        self.players: dict[str, Player] = {}
        self._sessions = 0
        self.by_session: dict[int, Player] = {}

    def _apply(self, outputs) -> dict[str, list[Event]]:
        new: dict[str, list[Event]] = {}
        for output in outputs:
            player = self.by_session[output.session]
            if isinstance(output, Send):
                assert not player.closed, f"text after close for {player.name}"
                new.setdefault(player.name, []).extend(player.take(output.text))
            elif isinstance(output, SetEcho):
                player.echo_off = not output.on
            elif isinstance(output, Close):
                player.closed = True
        return new

    def connect(self, name: str) -> Player:
        self._sessions += 1
        player = Player(name=name, session=self._sessions)
        self.players[name] = player
        self.by_session[player.session] = player
        self._apply(self.core.connect(player.session, self.now))
        return player

    def send(self, name: str, line: str) -> dict[str, list[Event]]:
        player = self.players[name]
        return self._apply(self.core.receive(player.session, line, self.now))

    def login(self, name: str, password: str = "pw") -> Player:
        player = self.connect(name)
        player.parser.expect_login_result()
        self.send(name, f"login test_client 1008 {name} {password}")
        return player

    def drop(self, name: str) -> dict[str, list[Event]]:
        player = self.players[name]
        player.closed = True
        return self._apply(self.core.disconnect(player.session, self.now))

    def advance(self, seconds: float) -> dict[str, list[Event]]:
        self.now += seconds
        return self._apply(self.core.tick(self.now))

    def start_match(self, a: str, b: str, length: int | str) -> None:
        for name in (a, b):
            if name not in self.players or self.players[name].closed:
                self.login(name)
        self.send(a, f"invite {b} {length}")
        self.send(b, f"join {a}")


def first_move(board: FibsBoard) -> str:
    """The first legal move for a board on which we must move."""
    assert board.our_dice is not None
    steps = legal_moves(board.position_from_our_view(), *board.our_dice)[0][0]
    return format_fibs(steps, board.direction)


def random_move(board: FibsBoard, rng: random.Random) -> str:
    assert board.our_dice is not None
    steps = rng.choice(legal_moves(board.position_from_our_view(), *board.our_dice))[0]
    return format_fibs(steps, board.direction)


def pending_action(player: Player) -> str | None:
    """What a client must do now, judged only from what it was sent."""
    if player.resign_offer is not None:
        return "answer_resign"
    if player.join_prompt:
        return "join"
    board = player.board
    if board is None or board.turn == 0:
        return None
    if board.opponent_doubled and board.is_our_turn:
        return "answer_double"
    if board.we_must_move:
        return "move"
    if board.we_must_roll_or_double:
        return "roll_or_double"
    return None
