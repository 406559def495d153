"""Whom the bot plays and what it says: invitations and replies to tells.

Pure: no IO, the clock is passed in.  The settings are a small frozen dataclass
so the daemon can build them from whatever configuration it has.

Invitations (first rule that applies wins):
1. from ourselves, or while we are already playing (one match at a time): refused;
2. while the bot cannot keep records (``unable``: the data directory's disk is full,
   ``fibsbot.records.space``): refused, with a tell saying why, resumes included (the
   server keeps a saved match until it is played);
3. to resume a saved match: always accepted (the server keeps it until it is played);
4. from a denied player, or from anyone else when an allow list is set: refused;
5. an unlimited match: accepted only if unlimited play is on;
6. a match of ``min_length`` .. ``max_length`` points: accepted.

Players on the ``auto_invite`` list are invited (to ``auto_invite_length``
points) when a who line shows them ready and free while we are idle, at most once
per ``auto_invite_interval_s`` each.

Tells get one polite reply that says this is a bot and lists what it understands,
rate-limited per player and overall; admins may also command it (``invite U 5``,
``invite U`` to resume, ``status``).  Nothing a player writes is echoed back.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from fibsbot.protocol.events import Invitation, Says, WhoInfo
from fibsbot.protocol.match.outputs import Send

_NAME = re.compile(r"[A-Za-z0-9_]{1,32}")
_MAX_INVITE_LENGTH = 99


@dataclass(frozen=True)
class PolicySettings:
    user: str  # our own login name
    min_length: int = 1
    max_length: int = 7
    allow_unlimited: bool = False
    allow: frozenset[str] = frozenset()  # empty: everyone not denied
    deny: frozenset[str] = frozenset()
    admins: frozenset[str] = frozenset()
    reply_interval_s: float = 60.0  # at most one automatic reply per player per interval
    replies_per_minute: int = 10  # automatic replies to everyone together
    explain_refusals: bool = True  # tell a refused player why
    auto_invite: frozenset[str] = frozenset()
    auto_invite_length: int = 5
    auto_invite_interval_s: float = 600.0

    def __post_init__(self) -> None:
        if not 1 <= self.min_length <= self.max_length:
            raise ValueError(f"need 1 <= min_length <= max_length, got {self.min_length}..{self.max_length}")
        if not 1 <= self.auto_invite_length <= _MAX_INVITE_LENGTH:
            raise ValueError(f"auto_invite_length must be 1..{_MAX_INVITE_LENGTH}")
        for name in ("allow", "deny", "admins", "auto_invite"):
            object.__setattr__(self, name, frozenset(getattr(self, name)))


@dataclass(frozen=True)
class Verdict:
    accept: bool
    reason: str
    commands: list[Send] = field(default_factory=list)


DISK_FULL = "disk full"


def _able() -> str | None:
    return None


class Policy:
    """Invitation verdicts and chat replies, with the rate limiter's memory.

    ``unable`` answers why the bot cannot take a match now (None: it can); the daemon
    gives it the data directory's disk state, which tries the disk again when asked."""

    def __init__(self, settings: PolicySettings, unable: Callable[[], str | None] = _able) -> None:
        self.settings = settings
        self.unable = unable
        self._last_reply: dict[str, float] = {}
        self._recent: deque[float] = deque()
        self._auto_invited: dict[str, float] = {}

    # --- invitations ----------------------------------------------------------------

    def on_invitation(self, invitation: Invitation, *, busy: bool, now: float) -> Verdict:
        """Whether to join; ``busy``: we are playing (or about to) another match."""
        s, player = self.settings, invitation.player
        if player == s.user:
            return Verdict(False, "from ourselves")
        if busy:
            return self._refuse(player, "busy", "Sorry, I am playing a match right now. Please try later.", now)
        if player not in s.deny and self.unable() is not None:
            text = "Sorry, I cannot keep the record of a match right now (my disk is full). Please try later."
            return self._refuse(player, DISK_FULL, text, now)
        if invitation.resume:
            return Verdict(True, "resume", [Send(f"join {player}")])
        if player in s.deny:
            return Verdict(False, "denied")  # no conversation with denied players
        if s.allow and player not in s.allow:
            return self._refuse(
                player, "not on the allow list", "Sorry, I only play with a few invited players at the moment.", now
            )
        if invitation.length is None:
            if s.allow_unlimited:
                return Verdict(True, "unlimited", [Send(f"join {player}")])
            return self._refuse(player, "unlimited", f"Sorry, I do not play unlimited matches. {self._lengths()}", now)
        if not s.min_length <= invitation.length <= s.max_length:
            return self._refuse(player, "length", f"Sorry, {self._lengths()}", now)
        return Verdict(True, "length", [Send(f"join {player}")])

    def _refuse(self, player: str, reason: str, text: str, now: float) -> Verdict:
        commands = []
        if self.settings.explain_refusals and self._may_reply(player, now):
            commands = [_tell(player, text)]
        return Verdict(False, reason, commands)

    def _lengths(self) -> str:
        s = self.settings
        span = f"{s.min_length} point" if s.min_length == s.max_length else f"{s.min_length} to {s.max_length} point"
        return f"I play {span} matches{' and unlimited ones' if s.allow_unlimited else ''}."

    def on_who(self, who: WhoInfo, *, busy: bool, now: float) -> list[Send]:
        """Invite an ``auto_invite`` player whom a who line shows ready, present and free."""
        s, player = self.settings, who.name
        if busy or player not in s.auto_invite or player == s.user or player in s.deny:
            return []
        if not who.ready or who.away or who.opponent is not None:
            return []
        last = self._auto_invited.get(player)
        if last is not None and now - last < s.auto_invite_interval_s:
            return []
        if self.unable() is not None:
            return []  # no new match while its record could not be kept
        self._auto_invited[player] = now
        return [Send(f"invite {player} {s.auto_invite_length}")]

    # --- tells -------------------------------------------------------------------------

    def on_tell(self, says: Says, *, now: float, status: Callable[[], str]) -> list[Send]:
        """Commands answering a tell: admin commands, else one rate-limited help text."""
        s, player = self.settings, says.name
        if player == s.user:
            return []
        words = says.text.split()
        if player in s.admins and words:
            commands = self._admin(player, words, status)
            if commands is not None:
                return commands
        if not self._may_reply(player, now):
            return []
        return [_tell(player, self.help_text(admin=player in s.admins))]

    def help_text(self, *, admin: bool = False) -> str:
        user = self.settings.user
        text = (
            f"Hi, I am {user}, a backgammon bot (a program, not a person). {self._lengths()} "
            f"Type 'invite {user} 5' to play me. Commands: tell {user} help."
        )
        if admin:
            text += " Admin: invite NAME N, invite NAME (resume), status."
        return text

    def _admin(self, player: str, words: list[str], status: Callable[[], str]) -> list[Send] | None:
        command = words[0].lower()
        if command == "status" and len(words) == 1:
            return [_tell(player, status())]
        if command != "invite":
            return None
        if len(words) not in (2, 3) or not _NAME.fullmatch(words[1]):
            return [_tell(player, "Usage: invite NAME [N|unlimited]")]
        target = words[1]
        if len(words) == 2:
            return [Send(f"invite {target}"), _tell(player, f"Inviting {target} to resume our match.")]
        length = words[2].lower()
        if length == "unlimited":
            return [Send(f"invite {target} unlimited"), _tell(player, f"Inviting {target} to an unlimited match.")]
        if not length.isdigit() or not 1 <= int(length) <= _MAX_INVITE_LENGTH:
            return [_tell(player, f"Usage: invite NAME N with N from 1 to {_MAX_INVITE_LENGTH}")]
        n = int(length)
        return [Send(f"invite {target} {n}"), _tell(player, f"Inviting {target} to a {n} point match.")]

    # --- rate limit --------------------------------------------------------------------

    def _may_reply(self, player: str, now: float) -> bool:
        s = self.settings
        last = self._last_reply.get(player)
        if last is not None and now - last < s.reply_interval_s:
            return False
        while self._recent and now - self._recent[0] >= 60.0:
            self._recent.popleft()
        if len(self._recent) >= s.replies_per_minute:
            return False
        self._last_reply[player] = now
        self._recent.append(now)
        if len(self._last_reply) > 10_000:  # forget the oldest players
            for name in sorted(self._last_reply, key=self._last_reply.__getitem__)[:5_000]:
                del self._last_reply[name]
        return True


def _tell(player: str, text: str) -> Send:
    # one line only: a line break would start a second command
    clean = " ".join(text.split())
    return Send(f"tell {player} {clean}")
