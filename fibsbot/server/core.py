"""The sans-IO FIBS server: inputs in, outputs out, no sockets and no clock of its own.

``ServerCore`` is fed connections, input lines, disconnections and clock ticks,
each with the current time (seconds since the epoch), and answers every one with
the list of ``outputs`` (Send / SetEcho / Close) to carry out in order.  Given the
same dice source and the same inputs it answers the same, which is what makes
whole server sessions scriptable in tests.  ``fibsbot.server.net`` feeds it from
asyncio sockets.
"""

from __future__ import annotations

import structlog

from fibsbot.server import messages as msg
from fibsbot.server.lobby import LobbyCommands
from fibsbot.server.login import LoginFlow
from fibsbot.server.outputs import Output
from fibsbot.server.play import PlayCommands
from fibsbot.server.state import Session

log = structlog.get_logger(__name__)

# FIBS's short forms of the commands a client or a person may type
ALIASES = {"m": "move", "who": "rawwho", "ro": "roll", "t": "tell", "k": "kibitz", "quit": "bye"}
MAX_LINE = 4096


class ServerCore(LoginFlow, LobbyCommands, PlayCommands):
    """See the module docstring; construct with ``ServerCore(config, dice=..., seed=...)``."""

    # --- the four inputs ------------------------------------------------------------------

    def connect(self, session: int, now: float, host: str = "127.0.0.1") -> list[Output]:
        if session in self.sessions:
            raise ValueError(f"session {session} is already connected")
        self.now, self._out = now, []
        state = Session(id=session, host=host, connected_at=now, last_input=now)
        self.sessions[session] = state
        log.debug("server.connect", session=session, host=host)
        self._greet(state)
        return self._take_output()

    def receive(self, session: int, line: str, now: float) -> list[Output]:
        """One input line (without its line end) from a connected session."""
        self.now, self._out = now, []
        state = self.sessions.get(session)
        if state is None:
            return []
        state.last_input = now
        line = line.replace("\r", "").replace("\0", "")[:MAX_LINE]
        if state.online:
            self._command(state, line)
        else:
            self._before_login(state, line)
        return self._take_output()

    def disconnect(self, session: int, now: float) -> list[Output]:
        """The connection went away (the network layer closes nothing more)."""
        self.now, self._out = now, []
        state = self.sessions.get(session)
        if state is not None:
            log.debug("server.disconnect", session=session, name=state.name if state.online else None)
            self._leave_server(state, "dropped")
        return self._take_output()

    def tick(self, now: float) -> list[Output]:
        """Time passes: idle sessions time out, held match-end lines fall due."""
        self.now, self._out = now, []
        self._announce_due()
        timeout = self.config.idle_timeout
        if timeout is not None:
            for state in list(self.sessions.values()):
                if now - state.last_input >= timeout and state.id in self.sessions:
                    log.info("server.idle_timeout", session=state.id)
                    self._leave_server(state, "timed_out")
        return self._take_output()

    def next_timeout(self) -> float | None:
        """When the next idle timeout or held match end falls due (None: none can), for the caller's timer."""
        due = [when for when, _match in self.held_match_ends]
        if self.config.idle_timeout is not None and self.sessions:
            due.append(min(s.last_input for s in self.sessions.values()) + self.config.idle_timeout)
        return min(due) if due else None

    # --- commands of logged-in players ----------------------------------------------------

    def _command(self, session: Session, line: str) -> None:
        words = line.split()
        if not words:
            return
        name = ALIASES.get(words[0].lower(), words[0].lower())
        if name == "bye":
            return self._goodbye(session)
        handler = getattr(self, f"_cmd_{name}", None) if name.isidentifier() else None
        if handler is None or name in self.config.unknown_commands:
            return self._send(session.id, msg.error(f"Unknown command: '{words[0][:40]}'"))
        log.debug("server.command", session=session.id, name=session.name, command=name)
        handler(session, words[1:], line)

    # --- looking in (tests and the arena) ------------------------------------------------------

    def match_of(self, name: str):
        """The running match of a player, or None."""
        return self.matches.get(name)

    def saved_match(self, a: str, b: str):
        return self.saved.get(frozenset((a, b)))
