"""Saved matches: which ones the server keeps for us, and when to resume one.

The server is the authority: after each login the driver asks ``show saved`` and
the listing replaces whatever was believed before.  A match that we saw being
saved while connected (the opponent left or dropped, we lost the connection, the
opponent logged out mid-match) is only *suspected* to be saved until a listing
confirms it, so the bot never sends ``invite U`` to resume a match the server does
not have.  Only a server that refuses ``show saved`` makes the bot fall back on
its own suspicions (and a ``There is no saved match with U`` answer corrects it).

Resuming: a saved match's opponent who is online and not playing someone else is
invited (``invite U``), once per time they come online or turn ready, and only while no
other invitation to resume is open (the server keeps one invitation per inviter).  FIBS
refuses to invite a player who is not ready, to a saved match too (``** U is refusing
games.``); a server may not, so the invitation is tried, and after that answer the who
line that shows them ready brings it again.
"""

from __future__ import annotations

from fibsbot.protocol.events import SavedMatch, WhoInfo
from fibsbot.protocol.match.outputs import Send


class SavedMatches:
    def __init__(self) -> None:
        self.confirmed: list[str] = []  # listed by the server, oldest first
        self.suspected: list[str] = []  # seen being saved, not listed yet
        self.online: set[str] = set()
        self.playing: set[str] = set()  # online but in another match
        self.refusing: set[str] = set()  # the server refused to invite them: not ready
        self.invited: set[str] = set()
        self.awaiting_listing = False
        self.listing_refused = False

    @property
    def latest(self) -> str | None:
        """The opponent of the most recently saved match we know of."""
        names = self.suspected or self.confirmed
        return names[-1] if names else None

    @property
    def opponents(self) -> tuple[str, ...]:
        """Every saved match's opponent we know of, listed first."""
        return (*self.confirmed, *(name for name in self.suspected if name not in self.confirmed))

    def knows(self, name: str) -> bool:
        return name in self.confirmed or name in self.suspected

    # --- what we learn ---------------------------------------------------------------------

    def new_session(self) -> Send:
        """A fresh login: forget who is online (the who burst tells) and ask for the listing."""
        self.online.clear()
        self.playing.clear()
        self.refusing.clear()
        self.invited.clear()
        self.awaiting_listing = True
        return Send("show saved")

    def suspect(self, opponent: str) -> None:
        if opponent not in self.confirmed and opponent not in self.suspected:
            self.suspected.append(opponent)
        self.invited.discard(opponent)

    def forget(self, opponent: str) -> None:
        """The match was resumed, replaced, or the server says there is none."""
        for names in (self.confirmed, self.suspected):
            if opponent in names:
                names.remove(opponent)
        self.invited.discard(opponent)

    def listing_started(self) -> None:
        self.confirmed.clear()
        self.suspected.clear()
        self.awaiting_listing = False

    def listed(self, row: SavedMatch) -> None:
        if row.opponent not in self.confirmed:
            self.confirmed.append(row.opponent)
        if row.online:
            self.online.add(row.opponent)
        if row.ready:
            self.refusing.discard(row.opponent)
        self.awaiting_listing = False

    def refused(self) -> None:
        """The server has no ``show saved``: our own suspicions are all there is."""
        self.listing_refused = True
        self.awaiting_listing = False

    def who(self, info: WhoInfo) -> None:
        self.online.add(info.name)
        if info.opponent is None:
            self.playing.discard(info.name)
        else:
            self.playing.add(info.name)
        if info.ready:
            self.refusing.discard(info.name)

    def refuses_games(self, name: str) -> None:
        """The server refused to invite ``name``: they are not ready; their who line says when they are."""
        self.refusing.add(name)
        self.invited.discard(name)

    def invitable(self, name: str) -> bool:
        """Online, free, and not refused by the server as not ready since they last were."""
        return name in self.online and name not in self.playing and name not in self.refusing

    def logged_in(self, name: str) -> None:
        self.online.add(name)
        self.invited.discard(name)

    def logged_out(self, name: str) -> None:
        self.online.discard(name)
        self.playing.discard(name)
        self.refusing.discard(name)
        self.invited.discard(name)

    # --- what we do ------------------------------------------------------------------------

    def invitation(self) -> list[Send]:
        """``invite U`` for one saved match whose opponent is here and free (call only while idle)."""
        if self.awaiting_listing:
            return []
        if any(name in self.online and self.knows(name) for name in self.invited):
            return []  # a newer invitation would replace the one still open
        candidates = self.confirmed + (self.suspected if self.listing_refused else [])
        for name in candidates:
            if self.invitable(name) and name not in self.invited:
                self.invited.add(name)
                return [Send(f"invite {name}")]
        return []

    def on_return(self, name: str) -> list[Send]:
        """A player came online: a suspected match of theirs is checked with the server first."""
        if name in self.suspected and not self.listing_refused and not self.awaiting_listing:
            self.awaiting_listing = True
            return [Send("show saved")]
        return []
