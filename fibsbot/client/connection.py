"""The bot's only network code: a telnet connection to a FIBS-style server.

``BotClient.run()`` connects, logs in with the CLIP handshake, sets the board style
and the toggles, and then turns every parsed event into the commands of the match
driver (``fibsbot.protocol.match.driver``) and the policy (``fibsbot.client.policy``).  The read loop never
blocks: the agent thinks in an executor thread while lines keep being read, and
its answer is fed back to the driver, which drops it if the board moved on.

Every failure that time can mend (a name that does not resolve yet, a refused or
unanswered connection, a server that sends no welcome or closes the connection, a
dropped session, a server gone silent: ``client.silence``) is followed by another
attempt, for ever, after a capped exponential backoff with jitter; ``client.reach``
names what failed for the console.  A match that was running is resumed after the
next login.  Logins refused ``max_login_refusals`` times in a row end ``run()`` with
``LoginGivenUp``: a wrong password does not mend itself.  The password is asked for at
each login and never logged.  Observers (records) see every event and decision and
cannot steer.

This module reads and writes the wire and keeps the connection alive; what the bot
does with each event, and with the driver's outputs, is ``client.dispatch``'s part.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any, cast

import structlog
import telnetlib3

from fibsbot.client.dispatch import (
    ConnectionClosed,
    EventDispatch,
    LoginConfigError,
    LoginGivenUp,
    LoginRefused,
    notify_observer,
)
from fibsbot.client.options import ClientOptions, PasswordSource, check_user
from fibsbot.client.policy import Policy
from fibsbot.client.reach import NoWelcome, classify
from fibsbot.client.silence import ServerSilent, SilenceWatch
from fibsbot.protocol.match.driver import MatchDriver
from fibsbot.protocol.match.outputs import Agent, MatchObserver
from fibsbot.protocol.parser import ClipParser

__all__ = ["BotClient", "ConnectionClosed", "LoginConfigError", "LoginGivenUp", "LoginRefused", "run_bot"]

log = structlog.get_logger(__name__)

_READ_SIZE = 4096
_GOODBYE_S = 1.0  # how long to wait for the server to close after "bye"
_LOGIN_POLL_S = 0.25  # how often the silence watch looks whether the login is done

_CONTROL = (LoginRefused, ConnectionClosed, LoginConfigError)


class BotClient(EventDispatch):
    def __init__(
        self,
        host: str,
        port: int,
        user: str,
        password: PasswordSource,
        agent: Agent,
        policy: Policy,
        observers: Iterable[MatchObserver] = (),
        *,
        options: ClientOptions | None = None,
        driver: MatchDriver | None = None,
        executor: Executor | None = None,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
    ) -> None:
        self.host, self.port, self.user = host, port, check_user(user)
        self._password = password
        self.agent = agent
        self.policy = policy
        self.observers = list(observers)
        self.options = options or ClientOptions()
        self.driver = driver or MatchDriver(
            roll_delay=self.options.roll_delay_s,
            board_delay=self.options.board_delay_s,
            inactivity_timeout=self.options.inactivity_timeout_s,
        )
        self._executor = executor
        self._own_executor = executor is None
        self._clock = clock
        self._rng = rng or random.Random()
        self._stop = asyncio.Event()
        self.connections = 0  # connection attempts that reached the server
        self.logged_in = False
        self._writer: Any = None
        self._reset_session()

    def __repr__(self) -> str:  # no password here, ever
        return f"BotClient({self.user!r}@{self.host}:{self.port})"

    # --- lifecycle -----------------------------------------------------------------

    def stop(self) -> None:
        """Log out and end ``run()``."""
        self._stop.set()

    async def run(self) -> None:
        """Stay connected until ``stop()`` (or ``max_matches``), reconnecting with backoff."""
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="fibsbot-agent")
        attempt = 0
        refusals = 0  # logins refused in a row
        try:
            while not self._stop.is_set():
                try:
                    await self._connect_and_serve()
                except LoginRefused:
                    refusals += 1
                    self._login_refused(refusals)
                except (TimeoutError, OSError, EOFError) as exc:
                    self._attempt_failed(exc)
                if self._stop.is_set():
                    break
                if self._session_logged_in:
                    attempt = refusals = 0
                else:
                    attempt += 1
                delay = self.options.backoff.delay(max(attempt - 1, 0), self._rng)
                log.info("reconnecting", in_s=round(delay, 3), attempt=attempt)
                self._report("reconnecting", in_s=delay, attempt=attempt)
                try:
                    await asyncio.wait_for(self._stop.wait(), delay)
                except TimeoutError:
                    pass
        finally:
            if self._own_executor and self._executor is not None:
                self._executor.shutdown(wait=False, cancel_futures=True)
                self._executor = None

    def _attempt_failed(self, exc: BaseException) -> None:
        kind, reason = classify(exc, self.host, connected=self._tcp_open, logged_in=self._session_logged_in)
        log.warning("connection ended", host=self.host, port=self.port, kind=kind, error=repr(exc))
        self._report(
            "connection_lost",
            error=reason,
            kind=kind,
            host=self.host,
            port=self.port,
            retry_max_s=self.options.backoff.max_s,
        )

    def _login_refused(self, refusals: int) -> None:
        """Log and report a refusal; raise LoginGivenUp once they reach the limit."""
        limit = self.options.max_login_refusals
        log.warning("login refused", user=self.user, host=self.host, refusals=refusals, limit=limit)
        self._report("login_refused", user=self.user, host=self.host, port=self.port, refusals=refusals, limit=limit)
        if limit is not None and refusals >= limit:
            raise LoginGivenUp(
                f"the server {self.host}:{self.port} refused the login of {self.user} {refusals} "
                f"time{'s' if refusals != 1 else ''} in a row: check the user name and the password"
            )

    def status_text(self) -> str:
        d = self.driver
        # every reply ends a sentence: a server that glues the next line to the echo of
        # our tell is then split where the sentence ends (fibsbot.protocol.glue)
        finished = f"{d.matches_finished} matches finished."
        if not d.in_match:
            return f"idle, {finished}"
        snapshot = d.snapshot()
        length = "unlimited" if snapshot.match_length is None else f"{snapshot.match_length} point"
        board = snapshot.board
        score = f", score {board.player_score}-{board.opponent_score}" if board is not None else ""
        return f"playing a {length} match with {d.opponent}{score}; {finished}"

    # --- one connection --------------------------------------------------------------

    def _reset_session(self) -> None:
        self._session_logged_in = False
        self._tcp_open = False
        self._login_sent = False
        self._toggled = False
        self._join_sent_at: float | None = None
        self._timers: dict[int, asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Task] = set()
        self._silence = SilenceWatch(
            keepalive_s=self.options.keepalive_s, silence_s=self.options.silence_timeout_s, clock=self._clock
        )
        self._wire_buffer = ""

    async def _connect_and_serve(self) -> None:
        self._reset_session()
        self._report("connecting", host=self.host, port=self.port)
        stopping = asyncio.create_task(self._stop.wait())
        # a stop must not wait for a resolver or a connect that may take their full timeouts
        connect = asyncio.ensure_future(
            telnetlib3.open_connection(
                self.host,
                self.port,
                connect_minwait=0.0,
                connect_maxwait=1.0,
                connect_timeout=self.options.connect_timeout_s,
                encoding="utf-8",
                encoding_errors="replace",
                force_binary=True,
            )
        )
        try:
            await asyncio.wait({connect, stopping}, return_when=asyncio.FIRST_COMPLETED)
            if not connect.done():
                log.info("stopped while connecting", host=self.host, port=self.port)
                connect.cancel()
                stopping.cancel()
                return
            reader, writer = connect.result()
        except BaseException:
            # every attempt of an outage ends here: nothing of it may stay waiting
            connect.cancel()
            stopping.cancel()
            raise
        self.connections += 1
        self._tcp_open = True
        self._writer = writer
        parser = ClipParser()
        log.info("connected", host=self.host, port=self.port)
        self._report("connected", host=self.host, port=self.port)
        watch = asyncio.create_task(self._watch_server())
        deadline = self._clock() + self.options.login_timeout_s
        try:
            while True:
                read = asyncio.ensure_future(reader.read(_READ_SIZE))
                timeout = None if self._session_logged_in else max(0.0, deadline - self._clock())
                done, _ = await asyncio.wait(
                    {read, stopping, watch}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
                )
                if read not in done:
                    read.cancel()
                    if stopping in done:
                        await self._goodbye(reader, writer)
                        return
                    if watch in done:
                        raise watch.result()
                    raise NoWelcome(f"waited {self.options.login_timeout_s:g} s")
                data = cast(str, read.result())  # telnetlib3 opened with an encoding reads text
                if not data:
                    raise ConnectionClosed("the server closed the connection")
                self._silence.received()
                if watch.done():  # it found silence as these bytes came: the server is not silent
                    watch = asyncio.create_task(self._watch_server())
                self._wire_in(data)
                self.driver.begin_read()  # a join waits for the whole read: the opponent may leave in it
                for event in parser.feed(data):
                    try:
                        self._dispatch(event, parser)
                    except _CONTROL:
                        raise
                    except Exception:  # a bug must cost one event, not the connection
                        log.exception("event handling failed", event=type(event).__name__)
                self._run(self.driver.end_read())
        finally:
            for task in (watch, stopping, *self._tasks):
                task.cancel()
            for handle in self._timers.values():
                handle.cancel()
            self._timers.clear()  # a cancelled handle never fires to take itself out
            self.driver.connection_lost()
            self.logged_in = False
            writer.close()
            self._writer = None

    async def _goodbye(self, reader: Any, writer: Any) -> None:
        """Say ``bye`` and give the server a moment to close its end."""
        if not self._session_logged_in:  # never logged in: nothing to log out of
            log.info("disconnected before the login", host=self.host, port=self.port)
            return
        self._send("bye")
        try:
            await asyncio.wait_for(writer.drain(), _GOODBYE_S)
            deadline = self._clock() + _GOODBYE_S
            while self._clock() < deadline and await asyncio.wait_for(
                reader.read(_READ_SIZE), max(deadline - self._clock(), 0.0)
            ):
                pass
        except (TimeoutError, OSError):
            pass
        log.info("logged out", user=self.user)
        self._report("logged_out", user=self.user)

    def _send(self, text: str, *, secret: bool = False) -> None:
        writer = self._writer
        if writer is None or writer.is_closing():
            return
        writer.write(text + "\r\n")
        self._silence.sent()
        shown = text.rsplit(" ", 1)[0] + " ********" if secret else text
        if not secret:
            log.debug("sent", text=text)
        for observer in self.observers:
            if hasattr(observer, "on_sent"):
                notify_observer(observer, "on_sent", shown)

    def _wire_in(self, data: str) -> None:
        """Received lines for observers that log the conversation (prompts wait for a line end)."""
        if not any(hasattr(observer, "on_received") for observer in self.observers):
            return
        self._wire_buffer += data
        *lines, self._wire_buffer = self._wire_buffer.split("\n")
        for line in lines:
            for observer in self.observers:
                if hasattr(observer, "on_received"):
                    notify_observer(observer, "on_received", line.rstrip("\r"))

    async def _watch_server(self) -> ServerSilent:
        """Send the keepalive command when due (``client.silence``); end once the server is silent."""
        silence = self._silence
        while True:
            if self._session_logged_in:  # before, the login timeout bounds the wait
                if silence.silent():
                    log.warning(
                        "server_silent",
                        seconds=round(silence.quiet_s(), 1),
                        unanswered_s=round(silence.unanswered_s(), 1),
                        limit_s=silence.silence_s,
                    )
                    return silence.silence()
                if silence.keepalive_due():
                    self._send(self.options.keepalive_command)
                    silence.keepalive_sent()
            wait = silence.next_check_s() if self._session_logged_in else _LOGIN_POLL_S
            await asyncio.sleep(max(wait, 0.05))


async def run_bot(
    host: str,
    port: int,
    user: str,
    password: PasswordSource,
    agent: Agent,
    policy: Policy,
    observers: Iterable[MatchObserver] = (),
    *,
    stop_event: asyncio.Event | None = None,
    **kwargs: Any,
) -> BotClient:
    """Run a bot until ``stop_event`` is set (or its ``max_matches`` are played).

    ``kwargs`` go to ``BotClient`` (``options``, ``driver``, ``executor``, ...).
    Returns the client, for its counters.
    """
    client = BotClient(host, port, user, password, agent, policy, observers, **kwargs)
    watcher = None
    if stop_event is not None:

        async def watch() -> None:
            await stop_event.wait()
            client.stop()

        watcher = asyncio.create_task(watch())
    try:
        await client.run()
    finally:
        if watcher is not None:
            watcher.cancel()
    return client
