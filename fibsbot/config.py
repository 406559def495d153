"""The bot's settings: one pydantic-settings model read from a TOML file and the environment.

Precedence, highest first: environment variables ``FIBSBOT_*`` (nested fields
with ``__``: ``FIBSBOT_SERVER__HOST``), then the TOML file, then the defaults.

The password is never taken from the command line or the TOML file (which tends
to be shared and copied).  It comes, in this order, from ``FIBSBOT_PASSWORD``,
from the file named by ``password_file`` (``FIBSBOT_PASSWORD_FILE``), or from
``$CREDENTIALS_DIRECTORY/fibs-password``, where systemd's ``LoadCredential=``
puts it.  It is held as a ``SecretStr``, so reprs and dumps show stars.
"""

from __future__ import annotations

import ipaddress
import os
import re
import tomllib
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_core import PydanticCustomError
from pydantic_settings import BaseSettings, InitSettingsSource, PydanticBaseSettingsSource, SettingsConfigDict

CREDENTIAL_NAME = "fibs-password"  # the name in LoadCredential=fibs-password:/etc/fibsbot/password
ENV_PREFIX = "FIBSBOT_"
# FIBS user names: letters, digits and underscores (the server refuses others)
_USER_NAME = re.compile(r"[A-Za-z0-9_]{1,20}")
# DNS labels (underscores tolerated: some local names have them), an optional final dot
_HOST_NAME = re.compile(
    r"(?=.{1,253}\.?$)([A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?\.)*"
    r"[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?\.?"
)


def _is_ip_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


class ConfigError(ValueError):
    """Settings that cannot be used, with the reason in one line."""


def default_data_dir() -> Path:
    """``$XDG_DATA_HOME/fibsbot``, or ``~/.local/share/fibsbot``."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "fibsbot"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ServerSettings(_Section):
    host: str = "fibs.com"
    port: int = Field(default=4321, ge=1, le=65535)
    user: str | None = None
    client_name: str = Field(default="fibsbot", pattern=r"^\S{1,20}$")  # sent in the login line
    reconnect_backoff_base: float = Field(default=2.0, gt=0, description="first wait after a failed attempt, seconds")
    # the cap bounds how long the bot stays away once the server is back: after an outage of any
    # length it logs in within this many seconds of the server answering
    reconnect_backoff_max: float = Field(default=30.0, gt=0, description="longest wait between attempts, seconds")
    connect_timeout: float = Field(default=20.0, gt=0, description="seconds for the server to accept a connection")
    login_timeout: float = Field(default=30.0, gt=0, description="seconds from connecting to the server's welcome")
    keepalive_interval: float = Field(default=600.0, gt=0, description="seconds of silence before a harmless command")
    # measured from the command, so it need not exceed keepalive_interval: a quiet server is asked
    # with the keepalive command after half of it, and a silent one is found 1.5 times it after its last byte
    silence_timeout: float = Field(
        default=180.0,
        gt=0,
        description="seconds a command may go unanswered, with nothing else from the server, before the "
        "connection counts as lost and the bot reconnects (fibsbot.client.silence)",
    )
    max_login_refusals: int = Field(
        default=3,
        ge=1,
        description="logins refused in a row (a wrong user name or password) before the daemon stops with exit 2",
    )
    retry_refused_login: bool = Field(
        default=False, description="keep trying with backoff after max_login_refusals instead of stopping"
    )

    @field_validator("host")
    @classmethod
    def _host_name(cls, host: str) -> str:
        # a mistake here is never mended by retrying: say it at start (exit 2) rather than
        # retry a name that no resolver will ever answer
        if _HOST_NAME.fullmatch(host) or _is_ip_address(host):
            return host
        if re.fullmatch(r"[^:/\s]+:\d+", host):
            raise ValueError(f"{host!r}: the port goes in [server] port, not in host")
        raise ValueError(f"{host!r} is not a host name or an IP address")

    @field_validator("user")
    @classmethod
    def _fibs_name(cls, user: str | None) -> str | None:
        if user is not None and not _USER_NAME.fullmatch(user):
            raise ValueError(f"{user!r} is not a FIBS user name (letters, digits, _; at most 20)")
        return user

    @model_validator(mode="after")
    def _backoff_order(self) -> ServerSettings:
        if self.reconnect_backoff_max < self.reconnect_backoff_base:
            raise ValueError("reconnect_backoff_max must not be below reconnect_backoff_base")
        return self


THINK_RETIRED = (
    "think is no longer a setting: the table level's deeper look is bounded by work, not seconds, so a "
    'decision is the same on any machine at any load; remove the line (for quicker decisions, level = "2")'
)


class PlaySettings(_Section):
    net: str = "default"
    level: Literal["0", "1", "2", "table", "roller"] | None = Field(
        default=None,
        description="how the bot decides: 0, 1 or 2 plies, table (cubeful 2-ply with a deeper look at "
        "close moves and every cube decision, bounded by work, not time) or roller (the table level whose "
        "deeper look is short cubeful rollouts, on trial); unset: `ply`, and without `ply` the table level",
    )
    ply: int | None = Field(
        default=None, ge=0, le=2, description="the search depth when `level` is unset; unset too: the table level"
    )
    workers: int | None = Field(
        default=None,
        ge=1,
        le=256,
        description="threads of the cubeful lookahead (the 2-ply search's cube and the table level's deeper look); "
        "unset: every core this process may use",
    )
    inactivity_timeout: float = Field(
        default=600.0, gt=0, description="seconds without any activity in a match before it is dropped to idle"
    )
    warmup: bool = Field(
        default=True,
        description="at start, compile the search in a background process if it is not compiled yet "
        "(fibsbot.warmup), choosing moves at 0-ply until it is ready",
    )

    @model_validator(mode="before")
    @classmethod
    def _no_time_budget(cls, data: Any) -> Any:
        # earlier releases' examples had `think = 1.0`, the table level's seconds a decision; kept, it
        # would let the clock cut the deeper look, and the same position play differently by machine
        if isinstance(data, dict) and "think" in data:
            raise PydanticCustomError("retired_setting", THINK_RETIRED)
        return data

    @property
    def threads(self) -> int:
        """``workers``, else the cores this process may run on."""
        if self.workers is not None:
            return self.workers
        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1

    @property
    def agent_spec(self) -> str:
        """The player spec for ``nets.player.load_agent``."""
        return f"net:{self.net}@{self.depth}"

    @property
    def depth(self) -> str:
        """The level of the player spec: ``level``, else ``ply``, else the table level (which the
        project's referee puts ahead of plain 2-ply at match scores)."""
        if self.level is not None:
            return self.level
        return "table" if self.ply is None else str(self.ply)


def _names(names: list[str]) -> list[str]:
    bad = [name for name in names if not _USER_NAME.fullmatch(name)]
    if bad:
        raise ValueError(f"not FIBS user names: {', '.join(map(repr, bad))}")
    return names


class InvitationPolicy(_Section):
    min_length: int = Field(default=1, ge=1, le=99)
    max_length: int = Field(default=11, ge=1, le=99)
    allow_unlimited: bool = False
    allow: list[str] = Field(default_factory=list, description="if not empty, only these may invite")
    deny: list[str] = Field(default_factory=list, description="never accepted (wins over allow)")
    max_matches: int = Field(default=1, ge=1, le=1, description="matches at a time: FIBS allows one")
    auto_invite: list[str] = Field(default_factory=list, description="invited when seen ready")
    auto_invite_length: int = Field(default=5, ge=1, le=99)

    _check_names = field_validator("allow", "deny", "auto_invite")(_names)

    @model_validator(mode="after")
    def _lengths(self) -> InvitationPolicy:
        if self.min_length > self.max_length:
            raise ValueError(f"min_length {self.min_length} exceeds max_length {self.max_length}")
        return self


class RecordsSettings(_Section):
    log_max_mb: int = Field(
        default=256,
        ge=1,
        le=1_000_000,
        description="megabytes the JSON logs in DATA/log may take in all: rotated into compressed segments, "
        "the oldest removed first (fibsbot.records.logfiles)",
    )
    queue_max_rows: int = Field(
        default=200_000,
        ge=100,
        description="rows the training queue keeps: past it the oldest labelled rows go first, then the oldest "
        "waiting ones (their positions are in the training set once a retrain has read them)",
    )


# The TOML file's parsed content while load_settings runs (sources are built per call).
_TOML_DATA: ContextVar[dict[str, Any] | None] = ContextVar("fibsbot_toml_data", default=None)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_nested_delimiter="__",
        extra="forbid",
        frozen=True,
        case_sensitive=False,
    )

    server: ServerSettings = Field(default_factory=ServerSettings)
    play: PlaySettings = Field(default_factory=PlaySettings)
    invitations: InvitationPolicy = Field(default_factory=InvitationPolicy)
    records: RecordsSettings = Field(default_factory=RecordsSettings)
    admins: list[str] = Field(default_factory=list, description="users whose 'tell' commands are obeyed")
    data_dir: Path = Field(default_factory=default_data_dir)
    password: SecretStr | None = Field(default=None, description="only from FIBSBOT_PASSWORD")
    password_file: Path | None = None

    _check_admins = field_validator("admins")(_names)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources = [init_settings, env_settings]
        toml_data = _TOML_DATA.get()
        if toml_data:
            sources.append(InitSettingsSource(settings_cls, init_kwargs=toml_data))
        return tuple(sources)

    # ------------------------------------------------------------------ paths

    @property
    def matches_dir(self) -> Path:
        return self.data_dir / "matches"

    @property
    def log_dir(self) -> Path:
        return self.data_dir / "log"

    @property
    def queue_path(self) -> Path:
        return self.data_dir / "queue.sqlite"

    # ------------------------------------------------------------------ secrets

    def fibs_password(self) -> SecretStr:
        """The password: FIBSBOT_PASSWORD, else ``password_file``, else the systemd credential."""
        if self.password is not None and self.password.get_secret_value():
            return self.password
        candidates = []
        if self.password_file is not None:
            candidates.append(self.password_file)
        credentials = os.environ.get("CREDENTIALS_DIRECTORY")
        if credentials:
            candidates.append(Path(credentials) / CREDENTIAL_NAME)
        for path in candidates:
            try:
                text = path.read_text(encoding="utf-8")
            except FileNotFoundError:
                if path == self.password_file:
                    raise ConfigError(f"password_file {path} does not exist") from None
                continue
            except OSError as exc:
                raise ConfigError(f"cannot read the password file {path}: {exc.strerror}") from None
            secret = text.rstrip("\r\n")
            if not secret:
                raise ConfigError(f"the password file {path} is empty")
            return SecretStr(secret)
        raise ConfigError(
            f"no password: set {ENV_PREFIX}PASSWORD, password_file, or a systemd credential '{CREDENTIAL_NAME}'"
        )

    def fibs_login(self) -> tuple[str, SecretStr]:
        """(user, password) for logging in; ConfigError says what is missing."""
        if not self.server.user:
            raise ConfigError(f"no FIBS user: set [server] user or {ENV_PREFIX}SERVER__USER")
        return self.server.user, self.fibs_password()


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as stream:
            data = tomllib.load(stream)
    except FileNotFoundError:
        raise ConfigError(f"config file {path} does not exist") from None
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    if "password" in data or "password" in data.get("server", {}):
        raise ConfigError(
            f"{path}: the password does not belong in the config file; "
            f"use {ENV_PREFIX}PASSWORD, password_file or a systemd credential"
        )
    return data


def _describe(exc: ValidationError, origin: str) -> str:
    reasons = "; ".join(
        f"{'.'.join(str(part) for part in error['loc']) or 'settings'}: {error['msg']}" for error in exc.errors()
    )
    return f"{origin}: {reasons}"


def load_settings(path: Path | None = None) -> Settings:
    """Settings from the TOML file ``path`` (None: none) and the environment; ConfigError if unusable."""
    data = _read_toml(Path(path)) if path is not None else {}
    token = _TOML_DATA.set(data)
    try:
        return Settings()
    except ValidationError as exc:
        origin = f"{path} and the {ENV_PREFIX}* environment" if path else f"the {ENV_PREFIX}* environment"
        raise ConfigError(_describe(exc, origin)) from None
    finally:
        _TOML_DATA.reset(token)
