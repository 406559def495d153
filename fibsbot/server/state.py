"""The server's state shared by the command modules, and its output helpers.

``ServerState`` holds sessions, accounts and matches; the mixins in ``login``,
``lobby`` and ``play`` add commands on top of it and ``core.ServerCore`` combines
them.  Outputs are collected in ``self._out`` while one input is handled.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from fibsbot.server import messages as msg
from fibsbot.server.accounts import Account, AccountStore
from fibsbot.server.config import ServerConfig
from fibsbot.server.dice import DiceSource, SeededDice
from fibsbot.server.match import ServerMatch
from fibsbot.server.outputs import CRLF, Close, Output, Send, SetEcho


class Stage(Enum):
    LOGIN = "login"  # waiting for "login ...", "guest" or a bare name
    PASSWORD = "password"  # a bare name was given: waiting for its password
    GUEST_NAME = "guest_name"  # logged in as guest: waiting for "name U"
    GUEST_PASSWORD = "guest_password"
    GUEST_CONFIRM = "guest_confirm"
    GUEST_DONE = "guest_done"  # registered: waiting for "bye"
    ONLINE = "online"


@dataclass(eq=False)
class Session:
    id: int
    host: str
    connected_at: float
    last_input: float
    stage: Stage = Stage.LOGIN
    name: str | None = None  # the account once ONLINE; the chosen name before
    client: str | None = None
    login_time: int = 0
    guest_password: str | None = field(default=None, repr=False)

    @property
    def online(self) -> bool:
        return self.stage is Stage.ONLINE


@dataclass(frozen=True)
class Invite:
    target: str
    length: int | None  # None: resume the saved match


def pair(a: str, b: str) -> frozenset[str]:
    return frozenset((a, b))


class ServerState:
    def __init__(
        self, config: ServerConfig | None = None, *, dice: DiceSource | None = None, seed: int | None = None
    ) -> None:
        self.config = config or ServerConfig()
        self.dice: DiceSource = dice if dice is not None else SeededDice(seed)
        self.accounts = AccountStore(self.config)
        self.sessions: dict[int, Session] = {}
        self.online: dict[str, int] = {}  # name -> session id
        self.matches: dict[str, ServerMatch] = {}  # both players' names -> their match
        self.saved: dict[frozenset[str], ServerMatch] = {}
        self.invites: dict[str, Invite] = {}  # by inviter
        self.finished: list[ServerMatch] = []  # every match played to its end, in order
        self.held_match_ends: list[tuple[float, ServerMatch]] = []  # see ServerConfig.match_end_delay
        self.now = 0.0
        self._out: list[Output] = []

    # --- output ----------------------------------------------------------------------

    def _take_output(self) -> list[Output]:
        out, self._out = self._out, []
        return out

    def _send(self, session: int, *lines: str) -> None:
        if lines:
            self._out.append(Send(session, "".join(line + CRLF for line in lines)))

    def _tell_echo(self, session: int, line: str) -> None:
        """The echo of a player's own tell; with ``glue_tell_echo`` it lacks its line end."""
        if self.config.glue_tell_echo:
            self._out.append(Send(session, line))
        else:
            self._send(session, line)

    def _prompt(self, session: int, prompt: str) -> None:
        self._out.append(Send(session, prompt))

    def _echo(self, session: int, on: bool) -> None:
        self._out.append(SetEcho(session, on))

    def _close(self, session: int) -> None:
        self._out.append(Close(session))

    def _tell(self, name: str, *lines: str) -> None:
        """Lines for a player if online (boards only with autoboard on)."""
        session = self.online.get(name)
        account = self.accounts.get(name)
        if session is None or session not in self.sessions or account is None:
            return
        if not account.toggles["autoboard"]:
            lines = tuple(line for line in lines if not line.startswith("board:"))
        self._send(session, *lines)

    def _others(self, name: str) -> list[str]:
        return [other for other in self.online if other != name]

    # --- who lines ---------------------------------------------------------------------

    def _who_line(self, name: str) -> str:
        account = self.accounts.get(name)
        session = self.sessions[self.online[name]]
        assert account is not None
        match = self.matches.get(name)
        return msg.who_info(
            account,
            opponent=match.opponent_of(name) if match else None,
            idle=int(self.now - session.last_input),
            login=session.login_time,
            host=session.host,
            client=session.client,
        )

    def _broadcast_who(self, name: str) -> None:
        """Everyone online learns a player's new status (CLIP 5)."""
        if name not in self.online:
            return
        line = self._who_line(name)
        for other in self.online:
            self._tell(other, line)

    def _account(self, session: Session) -> Account:
        assert session.name is not None
        account = self.accounts.get(session.name)
        assert account is not None
        return account

    # --- hooks the command mixins provide ------------------------------------------

    def _suspend_match(self, name: str, how: str) -> None:
        """Save ``name``'s running match because they left (``play.PlayCommands``)."""
        raise NotImplementedError

    def _drop_invites(self, name: str) -> None:
        raise NotImplementedError

    def _announce_due(self) -> None:
        raise NotImplementedError

    def _forget_match_ends(self, name: str) -> None:
        raise NotImplementedError

    def _leave_server(self, session: Session, how: str) -> None:
        """Take a session off the server (``login.LoginFlow``)."""
        raise NotImplementedError
