"""What the bot does with each event a connection reads, and with the match driver's outputs.

``EventDispatch`` is the part of ``connection.BotClient`` that reacts: it logs in
with the CLIP handshake, sets the board style and the toggles, answers invitations,
tells and who lines through the policy (``fibsbot.client.policy``), feeds every
event to the match driver (``fibsbot.protocol.match.driver``) and carries out what
the driver asks for: commands, timers, and decisions the agent thinks over in an
executor thread while the connection keeps reading.  Reading and writing the wire
stays in ``connection``.  Observers (records) see every event and decision first
and cannot steer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from concurrent.futures import Executor
from typing import TYPE_CHECKING

import structlog

from fibsbot.client.options import ClientOptions, PasswordSource, login_line, resolve_password, toggles_to_send
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

# the same logger as ``connection``'s: the network layer logs under one name
log = structlog.get_logger("fibsbot.client.connection")


class LoginRefused(Exception):
    """The server answered our credentials with another login prompt."""


class ConnectionClosed(ConnectionError):
    pass


class LoginConfigError(RuntimeError):
    """The user name or password source is unusable: retrying cannot help."""


class LoginGivenUp(RuntimeError):
    """The server refused our login ``max_login_refusals`` times in a row: most likely a
    wrong user name or password, which no retry mends; the message says so."""


class EventDispatch:
    """Mixin of ``BotClient``: turns events into commands, timers and the agent's decisions."""

    # set by ``BotClient.__init__`` and ``BotClient._reset_session``
    user: str
    agent: Agent
    policy: Policy
    observers: list[MatchObserver]
    options: ClientOptions
    driver: MatchDriver
    logged_in: bool
    _password: PasswordSource
    _executor: Executor | None
    _clock: Callable[[], float]
    _stop: asyncio.Event
    _session_logged_in: bool
    _login_sent: bool
    _toggled: bool
    _join_sent_at: float | None
    _timers: dict[int, asyncio.TimerHandle]
    _tasks: set[asyncio.Task]

    if TYPE_CHECKING:  # the connection's side, in ``BotClient``

        def stop(self) -> None: ...

        def status_text(self) -> str: ...

        def _send(self, text: str, *, secret: bool = False) -> None: ...

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
            notify_observer(observer, "on_event", event, snapshot)
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
        self._report("logged_in", user=self.user)
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
        settings = self.policy.settings
        self._report(
            "invitation",
            player=invitation.player,
            length=invitation.length,
            resume=invitation.resume,
            accept=verdict.accept,
            reason=verdict.reason,
            lengths=(settings.min_length, settings.max_length),
        )
        return list(verdict.commands)

    def _report(self, what: str, **details: object) -> None:
        """Tell the observers that follow the session (``on_session``: the console) what
        happened beyond the server's events: connecting, logins, verdicts, reconnects."""
        for observer in self.observers:
            if hasattr(observer, "on_session"):
                notify_observer(observer, "on_session", what, details)

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
            notify_observer(observer, "on_decision", request, answer, commands)
        self._run(commands)


def notify_observer(observer: MatchObserver, method: str, *args: object) -> None:
    """Records observe: their failures are logged and never reach the bot.  ``on_sent`` and
    ``on_received`` are called only on observers that have them (``ConversationObserver``),
    and so is ``on_session`` (``fibsbot.console.Console``)."""
    try:
        getattr(observer, method)(*args)
    except Exception:
        log.exception("observer failed", observer=type(observer).__name__, method=method)
