"""Which account a data directory's records are about, and the records of the others.

One data directory may hold the records of several accounts: the quick start's arena
plays as ``fibsbot`` on a local server, the daemon as the owner's own user on a real
one.  An account is a user on a server (``host:port`` as the daemon's match journals
name their ``site``; the arena's journals name the arena).  ``fibsbot status`` and the
report show the account in use and its figures alone, and list the others apart.

The account in use is the daemon's (``owner/daemon.json``); without a daemon record,
the account of the newest rating line, else of the newest match.  Rating lines written
before they named their account have no account: they are counted as such and kept
out of every account's figures, since nothing in them tells which account they were.
A match journal without a site belongs to its user on any server.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from fibsbot.owner.index import MatchSummary


@dataclass(frozen=True)
class Account:
    user: str
    server: str | None  # None: not known (then any server of the user's)

    @property
    def label(self) -> str:
        return f"{self.user} on {self.server}" if self.server else self.user

    def as_dict(self) -> dict:
        return {"user": self.user, "server": self.server}

    def holds_match(self, summary: MatchSummary) -> bool:
        return summary.user == self.user and (not self.server or not summary.site or summary.site == self.server)

    def holds_rating(self, row: dict) -> bool:
        return row.get("user") == self.user and (not self.server or row.get("server") == self.server)


def daemon_account(daemon: dict | None) -> Account | None:
    if not daemon or not daemon.get("user"):
        return None
    server, port = daemon.get("server"), daemon.get("port")
    return Account(str(daemon["user"]), f"{server}:{port}" if server and port else (server or None))


def rating_account(row: dict) -> Account | None:
    """The account a rating line is for; None for a line from before lines named it."""
    return Account(str(row["user"]), row.get("server") or None) if row.get("user") else None


def current_account(daemon: dict | None, rating_rows: list[dict], summaries: list[MatchSummary]) -> Account | None:
    """The daemon's account, else the newest rating line's, else the newest match's."""
    account = daemon_account(daemon)
    if account is not None:
        return account
    for row in reversed(rating_rows):
        account = rating_account(row)
        if account is not None:
            return account
    if summaries:
        newest = max(summaries, key=lambda s: s.journal)  # journal names begin with their start time
        return Account(newest.user, newest.site or None)
    return None


def other_accounts(account: Account | None, rating_rows: list[dict], summaries: list[MatchSummary]) -> list[dict]:
    """Every other account with records here: its matches finished and its last rating."""
    found: dict[Account, dict] = defaultdict(lambda: {"matches": 0, "rating": None, "experience": None})
    for s in summaries:
        if account is not None and account.holds_match(s):
            continue
        row = found[Account(s.user, s.site or None)]
        row["matches"] += s.finished
    for line in rating_rows:
        other = rating_account(line)
        if other is None or (account is not None and account.holds_rating(line)):
            continue
        found[other].update(rating=line.get("rating"), experience=line.get("experience"))
    return [{**a.as_dict(), "label": a.label, **figures} for a, figures in found.items()]


def unnamed_rating_lines(rating_rows: list[dict]) -> int:
    """Rating lines from before lines named their account: in no account's figures."""
    return sum(rating_account(row) is None for row in rating_rows)
