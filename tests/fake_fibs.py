"""A small FIBS-speaking line server for client tests.

It speaks the texts of REFERENCE.md section 1 (login prompt without line end, CLIP
1-6 after login, invitations, boards with ``set boardstyle 3``), keeps one
account, and referees matches against a scripted opponent ``bob`` who plays the
first legal move.  It never offers doubles, so the server rolls for the bot the way
FIBS does when it may not double.  Tests drive it with ``push``, ``drop``,
``wait_line`` and the ``received`` log; ``silence`` (or ``silent_after_login``) makes it
hang for the current connection: open, reading, answering nothing.
"""

from __future__ import annotations

import asyncio
import random
import re

from engine.rules.moves import legal_moves
from engine.rules.notation import format_fibs, parse_fibs
from engine.rules.position import Position
from fibsbot.protocol.board import FibsBoard, X
from fibsbot.protocol.match.state import apply_steps

OWN_INFO = "2 {user} 1 1 0 0 0 0 1 1 2396 0 1 1 0 1500.25 0 0 0 0 0 UTC"  # moves 1, notify 0, ready 0, silent 0


class FakeGame:
    """One match against bob; the board is kept from the bot's view (row 0 = bot)."""

    def __init__(self, length: int, rng: random.Random, colour: int = X, direction: int = -1) -> None:
        self.length, self.rng, self.colour, self.direction = length, rng, colour, direction
        self.score = [0, 0]  # bot, bob
        self.board = Position.initial().board.copy()
        self.dice: tuple[int, int] | None = None  # the bot's dice while it must move
        self.over = False
        self.bot_moves = 0

    def board_line(self, *, bot_turn: bool | None) -> str:
        return (
            FibsBoard.from_rows(
                self.board[0],
                self.board[1],
                on_roll=None if bot_turn is None else ("us" if bot_turn else "them"),
                opponent="bob",
                match_length=self.length,
                player_score=self.score[0],
                opponent_score=self.score[1],
                player_dice=self.dice or (0, 0),
                player_may_double=False,
                opponent_may_double=False,
                colour=self.colour,
                direction=self.direction,
            ).to_line()
            + "\r\n"
        )

    def new_game(self) -> str:
        self.board = Position.initial().board.copy()
        while True:
            ours, theirs = self.rng.randint(1, 6), self.rng.randint(1, 6)
            if ours != theirs:
                break
        text = f"Starting a new game with bob.\r\nYou rolled {ours}, bob rolled {theirs}\r\n"
        if ours > theirs:  # the opening move comes without "Please move"
            self.dice = (ours, theirs)
            return text + "It's your turn to move.\r\n" + self.board_line(bot_turn=True)
        return text + "bob makes the first move.\r\n" + self._bob_plays(theirs, ours, opening=True)

    def _roll(self) -> tuple[int, int]:
        return self.rng.randint(1, 6), self.rng.randint(1, 6)

    def _bob_plays(self, d1: int, d2: int, opening: bool = False) -> str:
        text = "" if opening else f"bob rolls {d1} and {d2}.\r\n"
        move, after = legal_moves(Position(self.board[::-1].copy()), d1, d2)[0]
        self.board = after.board[::-1].copy()
        if move:
            text += f"bob {format_fibs(move, -self.direction).replace('move', 'moves', 1)} .\r\n"
        else:
            text += "bob can't move.\r\n"
        return text + (self._end(bot_won=False) if self._finished() else self._bot_rolls())

    def _bot_rolls(self) -> str:
        self.dice = self._roll()
        text = f"You roll {self.dice[0]} and {self.dice[1]}.\r\n" + self.board_line(bot_turn=True)
        if any(move for move, _ in legal_moves(Position(self.board.copy()), *self.dice)):
            return text + "Please move 2 pieces.\r\n"
        self.dice = None
        return text + "You can't move.\r\n" + self._bob_plays(*self._roll())

    def bot_move(self, command: str) -> str:
        if self.dice is None:
            return "** It's not your turn to move.\r\n"
        steps = parse_fibs(command, self.direction)
        after = apply_steps(self.board, steps)
        legal = {result.board.tobytes() for _, result in legal_moves(Position(self.board.copy()), *self.dice)}
        if after is None or after.tobytes() not in legal:
            return "** You can't move that way.\r\n"
        self.board, self.dice = after, None
        self.bot_moves += 1
        text = self.board_line(bot_turn=False)
        return text + (self._end(bot_won=True) if self._finished() else self._bob_plays(*self._roll()))

    def _finished(self) -> bool:
        return bool((self.board.sum(axis=1) == 0).any())

    def _end(self, *, bot_won: bool) -> str:
        self.score[0 if bot_won else 1] += 1
        win = (
            "You win the game and get 1 point. Congratulations!\r\n"
            if bot_won
            else "bob wins the game and gets 1 point. Sorry.\r\n"
        )
        if max(self.score) >= self.length:
            self.over = True
            a, b = sorted(self.score, reverse=True)
            who = "You win" if bot_won else "bob wins"
            return win + f"{who} the {self.length} point match {a}-{b} .\r\n"
        return win + (
            f"score in {self.length} point match: bot-{self.score[0]} bob-{self.score[1]}\r\n"
            "Type 'join' if you want to play the next game, type 'leave' if you don't.\r\n"
        )


class FakeFibs:
    def __init__(
        self,
        user: str = "bot",
        password: str = "secret",
        *,
        seed: int = 7,
        drop_at_move: int | None = None,
        colour: int = X,
        direction: int = -1,
        silent_after_login: bool = False,
    ) -> None:
        self.user, self.password = user, password
        self.silent_after_login = silent_after_login  # the next successful login's connection hangs
        self.rng = random.Random(seed)
        self.drop_at_move = drop_at_move  # drop the connection when this bot move arrives
        self.colour, self.direction = colour, direction
        self.received: list[str] = []  # every line from the client, login lines included
        self.logins = 0  # successful ones
        self.connect_times: list[float] = []
        self.game: FakeGame | None = None
        self.saved = False
        self.invited_by: dict[str, int] = {}
        self._writer: asyncio.StreamWriter | None = None
        self._silent_writer: asyncio.StreamWriter | None = None
        self._changed = asyncio.Event()
        self._server: asyncio.Server | None = None
        self._handlers: set[asyncio.Task] = set()

    async def __aenter__(self) -> FakeFibs:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc) -> None:
        self.drop()
        assert self._server is not None
        self._server.close()
        if self._handlers:  # let them see the end of their connections
            await asyncio.wait(self._handlers, timeout=2)

    # --- test controls -------------------------------------------------------------

    def push(self, text: str) -> None:
        if self._writer is not None and not self._writer.is_closing() and self._writer is not self._silent_writer:
            self._writer.write(text.encode())

    def silence(self) -> None:
        """Hang for the current connection: keep it open, read and ignore its lines, send nothing."""
        self._silent_writer = self._writer

    def drop(self) -> None:
        if self._writer is not None:
            self._writer.transport.abort()
            self._writer = None

    def invite(self, player: str, length: int) -> None:
        self.invited_by[player] = length
        self.push(f"{player} wants to play a {length} point match with you.\r\nType 'join {player}' to accept.\r\n")

    async def wait_line(self, pattern: str, *, after: int = 0, timeout: float = 5.0) -> str:
        """The first received line (from index ``after``) matching ``pattern``."""
        regex = re.compile(pattern)

        async def scan() -> str:
            while True:
                for line in self.received[after:]:
                    if regex.fullmatch(line):
                        return line
                self._changed.clear()
                await self._changed.wait()

        return await asyncio.wait_for(scan(), timeout)

    # --- the protocol -----------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.drop()
        self._writer = writer
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        task.add_done_callback(self._handlers.discard)
        self.connect_times.append(asyncio.get_running_loop().time())
        self.push("\r\nFIBS-like test server\r\n\r\nlogin: ")
        try:
            while not reader.at_eof():
                raw = await reader.readline()
                if not raw:
                    break
                line = raw.decode(errors="replace").strip()
                self.received.append(line)
                self._changed.set()
                if self._writer is not writer:
                    break
                if writer is not self._silent_writer:
                    self._command(line)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.transport.abort()

    def _command(self, line: str) -> None:
        words = line.split()
        if not words:
            return
        verb = words[0]
        if verb == "login":
            if len(words) == 5 and words[2] == "1008" and words[3:] == [self.user, self.password]:
                self.logins += 1
                self.push(
                    f"1 {self.user} 1306865048 127.0.0.1\r\n" + OWN_INFO.format(user=self.user) + "\r\n"
                    "3\r\n+---- test ----+\r\n4\r\n5 bob - - 1 0 1612.40 3000 12 1306865000 10.0.0.2 - -\r\n6\r\n"
                )
                if self.silent_after_login:
                    self.silent_after_login = False
                    self.silence()
            else:
                self.push("\r\nlogin: ")
        elif verb == "join" and len(words) == 2 and words[1] in self.invited_by:
            self.game = FakeGame(self.invited_by.pop(words[1]), self.rng, self.colour, self.direction)
            self.push(f"** You are now playing a {self.game.length} point match with bob\r\n" + self.game.new_game())
        elif verb == "join" and self.game is not None and not self.game.over:
            self.push(self.game.new_game())
        elif verb == "invite" and words[1:] == ["bob"] and self.saved and self.game is not None:
            self.saved = False
            g = self.game
            self.push(
                "You are now playing with bob. Your running match was loaded.\r\nturn: bot\r\n"
                f"match length: {g.length}\r\npoints for user bot: {g.score[0]}\r\n"
                f"points for user bob: {g.score[1]}\r\n" + g.board_line(bot_turn=g.dice is not None)
            )
        elif verb == "move" and self.game is not None:
            if self.drop_at_move is not None and self.game.bot_moves + 1 == self.drop_at_move:
                self.drop_at_move = None
                self.saved = True
                self.drop()
                return
            self.push(self.game.bot_move(line))
        elif verb == "board" and self.game is not None:
            self.push(self.game.board_line(bot_turn=self.game.dice is not None))
        elif words == ["show", "saved"]:
            if self.saved and self.game is not None:
                g = self.game
                self.push(
                    "  opponent          matchlength   score (your points first)\r\n"
                    f"**bob                     {g.length}                {g.score[0]} -  {g.score[1]}\r\n"
                )
            else:
                self.push("no saved games.\r\n")
        elif verb == "time":
            self.push("It's Sat Nov 21 10:00:00 2026 UTC.\r\n")
        elif verb == "bye":
            self.push("Goodbye.\r\n")
            self.drop()
