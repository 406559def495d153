"""One summary per recorded match, from the match journals, kept in an index so reading is fast.

Parsing ten thousand journals takes seconds; their summaries, kept in
``DIR/owner/index.json`` keyed by journal name with its size and modification
time, take milliseconds.  A journal that changed since (the match in progress) is
read again.  The index is only a cache: deleting it loses nothing, and a data
directory that cannot be written to is still read, just more slowly.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from fibsbot.records.atomic import write_atomically
from fibsbot.records.journal import FINISHED, PLAYING, SUFFIX, check_journal_format
from fibsbot.records.journal import VERSION as JOURNAL_FORMAT
from nets.formats import FIRST

INDEX_VERSION = 3  # 2: the score of a match is the server's final one; 3: the site (server) it was played on


@dataclass(frozen=True)
class MatchSummary:
    """A match from our side: ``score`` is (ours, theirs)."""

    journal: str
    mat: str
    user: str
    opponent: str
    length: int
    started: str
    ended: float  # the journal's last write, seconds since the epoch
    status: str
    score: tuple[int, int]
    games: int
    site: str = ""  # the server (``host:port``, or the arena's name); "" where the journal does not say

    @property
    def finished(self) -> bool:
        return self.status == FINISHED

    @property
    def won(self) -> bool:
        return self.finished and self.score[0] > self.score[1]


def summarise_actions(actions: list) -> tuple[tuple[int, int], int]:
    """(final score, games played) from a journal's actions, following the cube for drops.

    Every game starts at the server's score, games the record could not hold included,
    and the server's final score (``end``) stands over what the recorded games add up to.
    """
    score, games, cube = [0, 0], 0, 1
    for action in actions:
        kind = action[0]
        if kind in ("game", "unseen", "end"):
            score = [int(action[1]), int(action[2])]
            cube, games = 1, games + (kind != "end")
        elif kind == "take":
            cube *= 2
        elif kind == "drop":
            score[1 - int(action[1])] += cube
        elif kind == "win":
            score[int(action[1])] += int(action[2])
        elif kind == "resign":
            score[1 - int(action[1])] += int(action[2])
    return (score[0], score[1]), games


def read_summary(path: Path, mtime: float) -> MatchSummary | None:
    """A journal's summary; None for a file that is not a readable journal, NewerFormatError
    for one a newer release wrote."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        header = data["header"]
        check_journal_format(header, path)  # a newer journal is refused, not left out of the figures
        score, games = summarise_actions(data["actions"])
        return MatchSummary(
            path.name,
            str(header.get("mat", "")),
            str(header.get("user", "")),
            str(header.get("opponent", "")),
            int(header.get("length") or 0),
            str(header.get("started", "")),
            mtime,
            str(data.get("status", PLAYING)),
            score,
            games,
            str(header.get("site") or ""),
        )
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None


class MatchIndex:
    def __init__(self, data_dir: Path) -> None:
        self.matches_dir = Path(data_dir) / "matches"
        self.path = Path(data_dir) / "owner" / "index.json"

    def _load(self) -> dict:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            # an index that a release of another journal format kept is read again from the journals,
            # which are then checked: a newer journal is never taken from the cache unchecked
            if data.get("version") == INDEX_VERSION and data.get("journal_format", FIRST) == JOURNAL_FORMAT:
                return data["matches"]
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            pass
        return {}

    def summaries(self) -> list[MatchSummary]:
        """Every readable journal's summary, oldest first; the index is brought up to date."""
        if not self.matches_dir.is_dir():
            return []
        cached = self._load()
        fresh: dict[str, dict] = {}
        changed = False
        for entry in os.scandir(self.matches_dir):
            if not entry.name.endswith(SUFFIX):
                continue
            stat = entry.stat()
            key = [stat.st_size, stat.st_mtime_ns]
            old = cached.get(entry.name)
            if old is not None and old.get("key") == key:
                fresh[entry.name] = old
                continue
            summary = read_summary(Path(entry.path), stat.st_mtime)
            if summary is not None:
                fresh[entry.name] = {"key": key, "summary": asdict(summary)}
            changed = True
        changed |= len(fresh) != len(cached)
        if changed:
            try:
                write_atomically(
                    self.path,
                    json.dumps(
                        {"version": INDEX_VERSION, "journal_format": JOURNAL_FORMAT, "matches": fresh},
                        separators=(",", ":"),
                    ),
                )
            except OSError:
                pass  # a read-only data directory: read again next time
        found = []
        for item in fresh.values():
            values = dict(item["summary"])
            values["score"] = tuple(values["score"])
            found.append(MatchSummary(**values))
        return sorted(found, key=lambda s: s.journal)
