"""Accounts of the local server: names, salted password hashes, toggles, mail, ratings.

Passwords are kept only as PBKDF2 hashes and never logged or echoed.  A finished
match moves both players' rating and experience by FIBS's formula
(``fibsbot.server.ratings``).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass, field

from fibsbot.server.config import ServerConfig
from fibsbot.server.ratings import RatingChange, rating_change

# Names are single words; "You" (and its case variants) would read as the player
# themself in every server message, so it is refused along with the login words.
NAME_PATTERN = re.compile(r"[A-Za-z0-9_]{1,20}")
RESERVED_NAMES = frozenset({"you", "guest", "login", "name", "bye", "player"})
_HASH_ROUNDS = 2_000  # a local test bed: enough to keep the plain text out of memory


class AccountError(ValueError):
    """A name or password that cannot be used; the message is safe to show."""


def check_name(name: str) -> None:
    if not NAME_PATTERN.fullmatch(name):
        raise AccountError(f"'{name[:40]}' is not a valid name (1-20 letters, digits or _)")
    if name.lower() in RESERVED_NAMES:
        raise AccountError(f"'{name}' is reserved")


def _hash(password: str, salt: bytes) -> bytes:
    return hashlib.pbkdf2_hmac("sha256", password.encode("utf-8"), salt, _HASH_ROUNDS)


@dataclass(eq=False)
class StoredMail:
    sender: str
    time: int
    text: str


@dataclass(eq=False)
class Account:
    name: str
    salt: bytes
    password_hash: bytes
    toggles: dict[str, bool]
    rating: float
    experience: int = 0
    away: bool = False
    away_message: str = ""
    boardstyle: int = 3
    last_login: int = 0
    last_host: str = "-"
    mail: list[StoredMail] = field(default_factory=list)

    def password_matches(self, password: str) -> bool:
        return hmac.compare_digest(_hash(password, self.salt), self.password_hash)

    def __repr__(self) -> str:  # keeps the hash out of logs and reprs
        return f"Account({self.name!r})"


class AccountStore:
    """Accounts by name (names are case-sensitive, as on FIBS)."""

    def __init__(self, config: ServerConfig) -> None:
        self._config = config
        self._accounts: dict[str, Account] = {}

    def __contains__(self, name: str) -> bool:
        return name in self._accounts

    def get(self, name: str) -> Account | None:
        return self._accounts.get(name)

    def create(self, name: str, password: str) -> Account:
        check_name(name)
        if name in self._accounts:
            raise AccountError(f"'{name}' is already used by someone else")
        if not password or any(ch in password for ch in " \t\r\n:"):
            raise AccountError("a password must be a non-empty word without ':'")
        salt = secrets.token_bytes(16)
        account = Account(
            name=name,
            salt=salt,
            password_hash=_hash(password, salt),
            toggles=self._config.initial_toggles(),
            rating=self._config.rating,
        )
        self._accounts[name] = account
        return account

    def authenticate(self, name: str, password: str) -> Account | None:
        """The account if the password fits; in local mode an unknown name is created."""
        account = self._accounts.get(name)
        if account is None:
            if not self._config.create_accounts:
                return None
            try:
                return self.create(name, password)
            except AccountError:
                return None
        return account if account.password_matches(password) else None

    def record_match(self, winner: str, loser: str, length: int) -> RatingChange:
        """A finished ``length``-point match (0: unlimited, unrated): both ratings move by
        FIBS's formula, from the figures before the match, and both gain its length in
        experience.  A player without an account (gone since) is left out."""
        won, lost = self._accounts.get(winner), self._accounts.get(loser)
        if won is None or lost is None or length < 1:
            return RatingChange(0.0, 0.0)
        change = rating_change(won.rating, won.experience, lost.rating, lost.experience, length)
        won.rating += change.gained
        lost.rating -= change.lost
        won.experience += length
        lost.experience += length
        return change
