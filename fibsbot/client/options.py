"""Settings of the network client, its reconnect backoff and the login line."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from pydantic import SecretStr

CLIP_VERSION = 1008

# What a bot wants from the server.  Toggles flip, so only those that differ
# from the CLIP 2 own-info line are sent.  ``moves`` off: move dumps glued to
# game-end lines help nobody; ``greedy``/``automove`` off: we play our own moves;
# ``notify`` on: CLIP 7 tells us when a saved match's opponent is back.
DESIRED_TOGGLES: Mapping[str, bool] = MappingProxyType(
    {
        "allowpip": True,
        "autoboard": True,
        "autodouble": False,
        "automove": False,
        "bell": False,
        "crawford": True,
        "double": True,
        "greedy": False,
        "moreboards": True,
        "moves": False,
        "notify": True,
        "ratings": False,
        "ready": True,
        "report": False,
        "silent": True,
    }
)

_CLIENT_NAME = re.compile(r"[A-Za-z0-9_.\-]{1,20}")
_USER = re.compile(r"[A-Za-z0-9_]{1,32}")

PasswordSource = str | SecretStr | Callable[[], "str | SecretStr"]


@dataclass(frozen=True)
class Backoff:
    """Exponential backoff with jitter: attempt n waits about initial * factor**n, capped."""

    initial_s: float = 2.0
    factor: float = 2.0
    max_s: float = 300.0
    jitter: float = 0.5  # the delay is drawn from [(1 - jitter) * d, d]

    def delay(self, attempt: int, rng: random.Random) -> float:
        base = min(self.max_s, self.initial_s * self.factor ** min(attempt, 64))
        return base * (1.0 - self.jitter * rng.random())


@dataclass(frozen=True)
class ClientOptions:
    client_name: str = "fibsbot"
    connect_timeout_s: float = 20.0
    login_timeout_s: float = 30.0  # from connecting to the welcome line
    keepalive_s: float = 300.0  # send something harmless after this long without sending
    keepalive_command: str = "time"
    # a command unanswered this long, with nothing else from the server, drops the connection
    # (client.silence: the keepalive command asks a quiet server after half of it)
    silence_timeout_s: float = 180.0
    roll_delay_s: float = 2.0  # how long to wait for the server to roll for us
    board_delay_s: float = 5.0  # how long to wait for a board before asking for it
    join_pending_s: float = 15.0  # after sending join, count as busy for this long
    inactivity_timeout_s: float | None = 600.0  # a match without activity this long is dropped to idle
    toggles: Mapping[str, bool] = field(default_factory=lambda: DESIRED_TOGGLES)
    backoff: Backoff = Backoff()
    max_matches: int | None = None  # stop after finishing this many matches
    # logins refused in a row before run() gives up (LoginGivenUp); None: keep trying,
    # for a server that refuses for a while (an account being set up) rather than for good
    max_login_refusals: int | None = None

    def __post_init__(self) -> None:
        if not _CLIENT_NAME.fullmatch(self.client_name):
            raise ValueError("client name: 1-20 characters, letters, digits, _ . -")
        if self.max_login_refusals is not None and self.max_login_refusals < 1:
            raise ValueError("max_login_refusals must be at least 1 (None: keep trying)")
        if self.keepalive_s <= 0 or self.silence_timeout_s <= 0:
            raise ValueError("keepalive_s and silence_timeout_s must be positive")
        if "\n" in self.keepalive_command or "\r" in self.keepalive_command:
            raise ValueError("the keepalive command must be one line")


def resolve_password(source: PasswordSource) -> str:
    value = source() if callable(source) else source
    if isinstance(value, SecretStr):
        value = value.get_secret_value()
    if not isinstance(value, str) or not value or any(c in value for c in " \r\n\0"):
        # the message must not contain the password itself
        raise ValueError("the password must be non-empty text without spaces or line breaks")
    return value


def check_user(user: str) -> str:
    if not _USER.fullmatch(user):
        raise ValueError(f"user name {user!r}: 1-32 letters, digits or _")
    return user


def login_line(client_name: str, user: str, password: str) -> str:
    return f"login {client_name} {CLIP_VERSION} {user} {password}"


def toggles_to_send(current: Mapping[str, bool], desired: Mapping[str, bool]) -> list[str]:
    """``toggle NAME`` for each setting whose current value differs from the wanted one."""
    return [f"toggle {name}" for name, want in desired.items() if name in current and current[name] != want]
