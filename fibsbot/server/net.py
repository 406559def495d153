"""The asyncio TCP layer around ``ServerCore``: bytes in, lines to the core, outputs out.

It strips telnet negotiation (``telnet.TelnetFilter``), splits input on line ends
and carries out the core's outputs; a timer task calls ``core.tick`` so idle
connections time out.  Nothing here knows the protocol.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable

import structlog

from fibsbot.server.core import ServerCore
from fibsbot.server.outputs import Close, Output, Send, SetEcho
from fibsbot.server.telnet import TelnetFilter, echo_command, escape

log = structlog.get_logger(__name__)

MAX_BUFFERED_LINE = 65536  # a longer line without a line end is cut here
TICK_SECONDS = 1.0  # the longest wait between idle checks


class FibsServer:
    """A listening server; ``port`` is the bound port (useful with port 0)."""

    def __init__(self, core: ServerCore, clock: Callable[[], float]) -> None:
        self.core = core
        self.host = ""
        self.port = 0
        self._clock = clock
        self._writers: dict[int, asyncio.StreamWriter] = {}
        self._filters: dict[int, TelnetFilter] = {}
        self._silent: set[int] = set()  # sessions whose input is discarded and which are sent nothing
        self._ids = itertools.count(1)
        self._server: asyncio.Server | None = None
        self._ticker: asyncio.Task[None] | None = None
        self._handlers: set[asyncio.Task[None]] = set()

    async def _listen(self, host: str, port: int) -> None:
        self._server = await asyncio.start_server(self._handle, host, port)
        self.host, self.port = self._server.sockets[0].getsockname()[:2]
        self._ticker = asyncio.create_task(self._tick_forever())
        log.info("server.listening", host=self.host, port=self.port)

    async def close(self) -> None:
        """Stop listening and drop every connection."""
        if self._ticker is not None:
            self._ticker.cancel()
        if self._server is not None:
            self._server.close()
        for writer in list(self._writers.values()):
            writer.close()
        if self._handlers:
            await asyncio.wait(self._handlers, timeout=2.0)
        if self._server is not None:
            await self._server.wait_closed()

    def drop(self, name: str) -> bool:
        """Cut a logged-in player's connection as a network fault would (no goodbye)."""
        session = self.core.online.get(name)
        writer = self._writers.get(session) if session is not None else None
        if writer is None:
            return False
        writer.transport.abort()
        return True

    def silence(self, name: str) -> bool:
        """Go silent for a logged-in player, as a hung server would: the connection stays open,
        what it sends is read and thrown away, and nothing more is sent to it."""
        session = self.core.online.get(name)
        if session is None or session not in self._writers:
            return False
        self._silent.add(session)
        return True

    async def __aenter__(self) -> FibsServer:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # --- one connection ------------------------------------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._handlers.add(task)
        session = next(self._ids)
        peer = writer.get_extra_info("peername")
        self._writers[session] = writer
        self._filters[session] = telnet = TelnetFilter()
        decoder_buffer = b""
        try:
            self._apply(self.core.connect(session, self._clock(), host=str(peer[0]) if peer else "-"))
            while session in self._writers:
                chunk = await reader.read(4096)
                if not chunk:
                    break
                if session in self._silent:
                    continue
                data, replies = telnet.feed(chunk)
                if replies:
                    writer.write(replies)
                decoder_buffer += data
                *lines, decoder_buffer = decoder_buffer.split(b"\n")
                if len(decoder_buffer) > MAX_BUFFERED_LINE:
                    lines.append(decoder_buffer)
                    decoder_buffer = b""
                for line in lines:
                    text = line.decode("utf-8", errors="replace").rstrip("\r")
                    self._apply(self._receive(session, text))
                    if session not in self._writers:
                        break
        except (ConnectionError, asyncio.IncompleteReadError) as exc:
            log.debug("server.connection_error", session=session, error=repr(exc))
        finally:
            if session in self._writers:
                self._forget(session)
                self._apply(self.core.disconnect(session, self._clock()))
            if task is not None:
                self._handlers.discard(task)

    def _receive(self, session: int, text: str) -> list[Output]:
        try:
            return self.core.receive(session, text, self._clock())
        except Exception:  # a server bug must not take the other players down with it
            log.exception("server.internal_error", session=session)
            return [Send(session, "** Internal server error; the command was not completed.\r\n")]

    def _forget(self, session: int) -> None:
        writer = self._writers.pop(session, None)
        self._filters.pop(session, None)
        self._silent.discard(session)
        if writer is not None:
            writer.close()

    def _apply(self, outputs: list[Output]) -> None:
        for output in outputs:
            writer = self._writers.get(output.session)
            if writer is None or output.session in self._silent:  # not even a close: it hangs
                continue
            if isinstance(output, Send):
                writer.write(escape(output.text.encode("utf-8")))
            elif isinstance(output, SetEcho):
                writer.write(echo_command(output.on))
            elif isinstance(output, Close):
                self._forget(output.session)

    async def _tick_forever(self) -> None:
        idle = self.core.config.idle_timeout
        longest = TICK_SECONDS if idle is None else min(TICK_SECONDS, idle / 4)  # new sessions too
        while True:
            due = self.core.next_timeout()
            wait = longest if due is None else min(longest, max(due - self._clock(), 0.0))
            await asyncio.sleep(wait + 0.001)
            try:
                self._apply(self.core.tick(self._clock()))
            except Exception:  # keep timing the others out
                log.exception("server.tick_error")


async def start_server(
    core: ServerCore, host: str = "127.0.0.1", port: int = 0, *, clock: Callable[[], float] = time.time
) -> FibsServer:
    """Listen on ``host:port`` (0: any free port; see ``.port``) and serve ``core``."""
    server = FibsServer(core, clock)
    await server._listen(host, port)
    return server


async def serve_forever(
    core: ServerCore, host: str = "127.0.0.1", port: int = 0, *, on_ready: Callable[[FibsServer], None] | None = None
) -> None:
    """Serve until cancelled; ``on_ready`` gets the listening server (its port)."""
    server = await start_server(core, host, port)
    try:
        if on_ready is not None:
            on_ready(server)
        await asyncio.Event().wait()
    finally:
        await server.close()
