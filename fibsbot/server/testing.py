"""Helpers for tests that need a live local server and a simple CLIP client.

    async with run_local_server(seed=1, idle_timeout=5) as (host, port, core):
        alice = await ClipTestClient.connect(host, port)
        await alice.login("alice", "secret")

``ClipTestClient`` speaks through telnetlib3 (as the bot does) and parses with
``fibsbot.protocol.parser.ClipParser``; ``first_legal_move`` is a trivial player for scripts.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TypeVar

import telnetlib3

from engine.rules.moves import legal_moves
from engine.rules.notation import format_fibs
from fibsbot.protocol.board import FibsBoard
from fibsbot.protocol.parser import ClipParser, Event, LoginFailed, LoginPrompt, WhoEnd
from fibsbot.server.config import ServerConfig
from fibsbot.server.core import ServerCore
from fibsbot.server.dice import DiceSource
from fibsbot.server.net import start_server

E = TypeVar("E", bound=Event)


@asynccontextmanager
async def run_local_server(
    seed: int | None = 0,
    idle_timeout: float | None = None,
    *,
    dice: DiceSource | None = None,
    config: ServerConfig | None = None,
    ready: bool = True,
    host: str = "127.0.0.1",
) -> AsyncIterator[tuple[str, int, ServerCore]]:
    """A server on a free loopback port for the duration of the block.

    New accounts start with ``toggle ready`` on unless ``ready=False`` (FIBS's own
    default is off); ``config`` overrides all of these settings.
    """
    if config is None:
        config = ServerConfig(idle_timeout=idle_timeout, new_account_toggles={"ready": ready})
    core = ServerCore(config, dice=dice, seed=seed)
    server = await start_server(core, host, 0)
    try:
        yield server.host, server.port, core
    finally:
        await server.close()


class ClipTestClient:
    """A telnetlib3 connection with a CLIP parser and ``expect`` helpers."""

    def __init__(self, reader, writer, connect_seconds: float) -> None:
        self.reader, self.writer = reader, writer
        self.connect_seconds = connect_seconds  # TCP connect plus telnet negotiation
        self.parser = ClipParser()
        self.events: list[Event] = []  # everything parsed so far, in order
        self._unread: list[Event] = []
        self.closed = False

    @classmethod
    async def connect(cls, host: str, port: int) -> ClipTestClient:
        started = time.perf_counter()
        # telnetlib3's own defaults: a server that left negotiation pending would cost
        # its connect_maxwait (3 s) here, which connect_seconds makes visible
        reader, writer = await telnetlib3.open_connection(host, port)
        return cls(reader, writer, time.perf_counter() - started)

    def send(self, line: str) -> None:
        self.writer.write(line + "\r\n")

    async def next_event(self, timeout: float = 5.0) -> Event:
        deadline = time.monotonic() + timeout
        while not self._unread:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or self.closed:
                raise TimeoutError("no event from the server")
            try:
                data = await asyncio.wait_for(self.reader.read(65536), remaining)
            except TimeoutError:
                raise TimeoutError("no event from the server") from None
            if not data:
                self.closed = True
                new = self.parser.flush()
            else:
                new = self.parser.feed(data)
            self.events += new
            self._unread += new
        return self._unread.pop(0)

    async def expect(self, kind: type[E], timeout: float = 5.0) -> E:
        """The next event of ``kind``, skipping (but recording) the others."""
        while True:
            event = await self.next_event(timeout)
            if isinstance(event, kind):
                return event

    async def until_closed(self, timeout: float = 5.0) -> None:
        try:
            while True:
                await self.next_event(timeout)
        except TimeoutError:
            if not self.closed:
                raise

    async def login(self, name: str, password: str, client: str = "fibsbot_test") -> bool:
        """CLIP login; True once the who burst has ended, False on a refusal."""
        await self.expect_prompt()
        self.parser.expect_login_result()
        self.send(f"login {client} 1008 {name} {password}")
        while True:
            event = await self.next_event()
            if isinstance(event, LoginFailed):
                return False
            if isinstance(event, WhoEnd):
                return True

    async def expect_prompt(self) -> None:
        await self.expect(LoginPrompt)

    def close(self) -> None:
        self.writer.close()


def first_legal_move(board: FibsBoard) -> str | None:
    """``move ...`` for the first legal result of the roll on a board where we must move."""
    if not board.we_must_move or board.our_dice is None:
        return None
    results = legal_moves(board.position_from_our_view(), *board.our_dice)
    steps = results[0][0]
    return format_fibs(steps, board.direction) if steps else None
