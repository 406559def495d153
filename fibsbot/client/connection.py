"""The bot's only network code: a telnet connection to a FIBS-style server.

``BotClient.run()`` connects, logs in with the CLIP handshake, sets the board style
and the toggles, and then turns every parsed event into the commands of the match
driver (``fibsbot.protocol.match.driver``) and the policy (``fibsbot.client.policy``).  The read loop never
blocks: the agent thinks in an executor thread while lines keep being read, and
its answer is fed back to the driver, which drops it if the board moved on.

A dropped connection, a refused login or a silent server is followed by a
reconnect with exponential backoff and jitter; a match that was running is
resumed after the next login.  The password is asked for at each login and never
logged.  Observers (records) see every event and decision and cannot steer.
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

from fibsbot.client.options import (
    ClientOptions,
    PasswordSource,
    check_user,
    login_line,
    resolve_password,
    toggles_to_send,
)
from fibsbot.client.policy import Policy
from fibsbot.protocol.events import (
    ConnectionTimedOut,
    Event,
    Invitation,
    LoginFailed,
    LoginPrompt,
    MatchResumed,
    MatchStart,
    OwnInfo,
    Says,
    Welcome,
    WhoInfo,
)
from fibsbot.protocol.match.driver import MatchDriver
from fibsbot.protocol.match.outputs import (
    Agent,
    DecisionRequest,
    MatchObserver,
    Output,
    Send,
    Timer,
    Wait,
    consult,
    fallback_answer,
)
from fibsbot.protocol.parser import ClipParser

log = structlog.get_logger(__name__)

_READ_SIZE = 4096
_GOODBYE_S = 1.0  # how long to wait for the server to close after "bye"


class LoginRefused(Exception):
    """The server answered our credentials with another login prompt."""


class ConnectionClosed(ConnectionError):
    pass


class LoginConfigError(RuntimeError):
    """The user name or password source is unusable: retrying cannot help."""


_CONTROL = (LoginRefused, ConnectionClosed, LoginConfigError)


class BotClient:
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
        try:
            while not self._stop.is_set():
                try:
                    await self._connect_and_serve()
                except LoginRefused:
                    log.warning("login refused", user=self.user, host=self.host)
                except (TimeoutError, OSError, EOFError) as exc:
                    log.warning("connection ended", host=self.host, error=repr(exc))
                if self._stop.is_set():
                    break
                attempt = 0 if self._session_logged_in else attempt + 1
                delay = self.options.backoff.delay(max(attempt - 1, 0), self._rng)
                log.info("reconnecting", in_s=round(delay, 3), attempt=attempt)
                try:
                    await asyncio.wait_for(self._stop.wait(), delay)
                except TimeoutError:
                    pass
        finally:
            if self._own_executor and self._executor is not None:
                self._executor.shutdown(wait=False, cancel_futures=True)
                self._executor = None

    def status_text(self) -> str:
        d = self.driver
        finished = f"{d.matches_finished} matches finished"
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
        self._login_sent = False
        self._toggled = False
        self._join_sent_at: float | None = None
        self._timers: dict[int, asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Task] = set()
        self._last_sent = self._clock()
        self._wire_buffer = ""

    async def _connect_and_serve(self) -> None:
        self._reset_session()
        reader, writer = await telnetlib3.open_connection(
            self.host,
            self.port,
            connect_minwait=0.0,
            connect_maxwait=1.0,
            connect_timeout=self.options.connect_timeout_s,
            encoding="utf-8",
            encoding_errors="replace",
            force_binary=True,
        )
        self.connections += 1
        self._writer = writer
        parser = ClipParser()
        log.info("connected", host=self.host, port=self.port)
        keepalive = asyncio.create_task(self._keepalive())
        stopping = asyncio.create_task(self._stop.wait())
        deadline = self._clock() + self.options.login_timeout_s
        try:
            while True:
                read = asyncio.ensure_future(reader.read(_READ_SIZE))
                timeout = None if self._session_logged_in else max(0.0, deadline - self._clock())
                done, _ = await asyncio.wait({read, stopping}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
                if read not in done:
                    read.cancel()
                    if stopping in done:
                        await self._goodbye(reader, writer)
                        return
                    raise TimeoutError("no welcome from the server")
                data = cast(str, read.result())  # telnetlib3 opened with an encoding reads text
                if not data:
                    raise ConnectionClosed("the server closed the connection")
                self._wire_in(data)
                for event in parser.feed(data):
                    try:
                        self._dispatch(event, parser)
                    except _CONTROL:
                        raise
                    except Exception:  # a bug must cost one event, not the connection
                        log.exception("event handling failed", event=type(event).__name__)
        finally:
            for task in (keepalive, stopping, *self._tasks):
                task.cancel()
            for handle in self._timers.values():
                handle.cancel()
            self.driver.connection_lost()
            self.logged_in = False
            writer.close()
            self._writer = None

    async def _goodbye(self, reader: Any, writer: Any) -> None:
        """Say ``bye`` and give the server a moment to close its end."""
        if self._session_logged_in:
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

    def _send(self, text: str, *, secret: bool = False) -> None:
        writer = self._writer
        if writer is None or writer.is_closing():
            return
        writer.write(text + "\r\n")
        self._last_sent = self._clock()
        shown = text.rsplit(" ", 1)[0] + " ********" if secret else text
        if not secret:
            log.debug("sent", text=text)
        for observer in self.observers:
            if hasattr(observer, "on_sent"):
                _notify(observer, "on_sent", shown)

    def _wire_in(self, data: str) -> None:
        """Received lines for observers that log the conversation (prompts wait for a line end)."""
        if not any(hasattr(observer, "on_received") for observer in self.observers):
            return
        self._wire_buffer += data
        *lines, self._wire_buffer = self._wire_buffer.split("\n")
        for line in lines:
            for observer in self.observers:
                if hasattr(observer, "on_received"):
                    _notify(observer, "on_received", line.rstrip("\r"))

    async def _keepalive(self) -> None:
        # FIBS drops connections idle for about an hour
        period = self.options.keepalive_s
        while True:
            idle = self._clock() - self._last_sent
            if idle >= period and self._session_logged_in:
                self._send(self.options.keepalive_command)
                idle = 0.0
            await asyncio.sleep(max(period - idle, 0.05))

    # --- events ----------------------------------------------------------------------

    def _dispatch(self, event: Event, parser: ClipParser) -> None:
        if isinstance(event, (LoginPrompt, LoginFailed)):
            self._on_login_prompt(event, parser)
            return
        if isinstance(event, Welcome):
            self._on_welcome()
        elif isinstance(event, OwnInfo) and not self._toggled:
            self._toggled = True
            for command in toggles_to_send(event.toggles(), self.options.toggles):
                self._send(command)
        elif isinstance(event, ConnectionTimedOut):
            raise ConnectionClosed("the server timed us out")
        elif isinstance(event, (MatchStart, MatchResumed)):
            self._join_sent_at = None
        outputs = self.driver.handle(event)
        snapshot = self.driver.snapshot()
        for observer in self.observers:
            _notify(observer, "on_event", event, snapshot)
        if isinstance(event, Invitation):
            outputs = [*outputs, *self._on_invitation(event)]
        elif isinstance(event, Says):
            outputs = [*outputs, *self.policy.on_tell(event, now=self._clock(), status=self.status_text)]
        elif isinstance(event, WhoInfo):
            outputs = [*outputs, *self.policy.on_who(event, busy=self._busy(), now=self._clock())]
        self._run(outputs)
        limit = self.options.max_matches
        finished = self.driver.matches_finished
        if limit is not None and finished >= limit and not self.driver.in_match and not self._stop.is_set():
            log.info("match limit reached", matches=finished)
            self.stop()

    def _on_login_prompt(self, event: LoginPrompt | LoginFailed, parser: ClipParser) -> None:
        if isinstance(event, LoginFailed) or self._login_sent:
            raise LoginRefused()
        log.info("logging in", user=self.user, client=self.options.client_name)
        try:
            password = resolve_password(self._password)
        except ValueError as exc:  # its message never holds the password
            raise LoginConfigError(str(exc)) from None
        self._send(login_line(self.options.client_name, self.user, password), secret=True)
        self._login_sent = True
        parser.expect_login_result()

    def _on_welcome(self) -> None:
        self._session_logged_in = self.logged_in = True
        log.info("logged in", user=self.user)
        self._send("set boardstyle 3")
        self._run(self.driver.resume_commands())

    def _busy(self) -> bool:
        """Playing, or a join of ours may be about to start a match."""
        joined = self._join_sent_at
        return self.driver.in_match or (joined is not None and self._clock() - joined < self.options.join_pending_s)

    def _on_invitation(self, invitation: Invitation) -> list[Output]:
        now = self._clock()
        verdict = self.policy.on_invitation(invitation, busy=self._busy(), now=now)
        log.info(
            "invitation",
            player=invitation.player,
            length=invitation.length,
            resume=invitation.resume,
            accept=verdict.accept,
            reason=verdict.reason,
        )
        if verdict.accept:
            self._join_sent_at = now
        return list(verdict.commands)

    # --- outputs -----------------------------------------------------------------------

    def _run(self, outputs: Iterable[Output]) -> None:
        loop = asyncio.get_running_loop()
        for output in outputs:
            if isinstance(output, Send):
                self._send(output.text)
            elif isinstance(output, Wait):
                handle = loop.call_later(output.seconds, self._timer_fired, output.timer)
                self._timers[output.timer.serial] = handle
            elif isinstance(output, DecisionRequest):
                task = asyncio.create_task(self._decide(output))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

    def _timer_fired(self, timer: Timer) -> None:
        self._timers.pop(timer.serial, None)
        self._run(self.driver.timer_expired(timer))

    async def _decide(self, request: DecisionRequest) -> None:
        loop = asyncio.get_running_loop()
        started = self._clock()
        try:
            answer = await loop.run_in_executor(self._executor, consult, self.agent, request)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the agent failed; using the safe default", kind=request.kind)
            answer = fallback_answer(request)
        commands = self.driver.decided(request, answer)
        log.info(
            "decision",
            kind=request.kind,
            serial=request.serial,
            seconds=round(self._clock() - started, 3),
            sent=[c.text for c in commands],
        )
        # records first: our action is on disk before the server can act on it
        for observer in self.observers:
            _notify(observer, "on_decision", request, answer, commands)
        self._run(commands)


def _notify(observer: MatchObserver, method: str, *args: object) -> None:
    """Records observe: their failures are logged and never reach the bot.  ``on_sent`` and
    ``on_received`` are called only on observers that have them (``ConversationObserver``)."""
    try:
        getattr(observer, method)(*args)
    except Exception:
        log.exception("observer failed", observer=type(observer).__name__, method=method)


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
