"""Finding the unfinished matches reads only the journals that changed: the matches folder
holds every match the bot ever played, and the search runs at every match start (the soak
found each match taking longer as the folder grew, every journal parsed each time)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from fibsbot.records import journal
from fibsbot.records.journal import FINISHED, PLAYING, SUFFIX, MatchJournal


def _journal(folder: Path, name: str, status: str, opponent: str = "alice") -> Path:
    path = folder / f"{name}{SUFFIX}"
    path.write_text(json.dumps({"header": {"user": "mybot", "opponent": opponent}, "actions": [], "status": status}))
    return path


def test_finished_journals_are_read_once_and_a_changed_one_again(tmp_path, monkeypatch):
    monkeypatch.setattr(journal, "SETTLED_SLACK_NS", 0)  # this file system keeps nanoseconds
    for i in range(30):
        _journal(tmp_path, f"m{i:03d}", FINISHED)
    playing = _journal(tmp_path, "m100", PLAYING)
    assert MatchJournal.unfinished(tmp_path, "mybot") == [playing]

    reads: list[str] = []
    real_read_text = Path.read_text

    def counting(self, *args, **kwargs):
        reads.append(self.name)
        return real_read_text(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", counting)
    assert MatchJournal.unfinished(tmp_path, "mybot", "alice") == [playing]
    assert reads == []  # nothing changed, nothing read

    finished_now = _journal(tmp_path, "m100", FINISHED)
    os.utime(finished_now, ns=(1, 1))  # a rewrite within one clock tick still has another size or time
    resumed = _journal(tmp_path, "m005", PLAYING, opponent="bob")
    assert MatchJournal.unfinished(tmp_path, "mybot") == [resumed]
    assert sorted(reads) == sorted([finished_now.name, resumed.name])
    assert MatchJournal.unfinished(tmp_path, "mybot", "alice") == []
    assert MatchJournal.unfinished(tmp_path, "otherbot") == []


def test_the_scan_holds_the_journals_in_play_alone(tmp_path, monkeypatch):
    """A year of matches must not grow the daemon: the soak found about half a KiB a match
    held for every finished journal, which 18,000 matches would make 8 MiB."""
    monkeypatch.setattr(journal, "SETTLED_SLACK_NS", 0)
    for i in range(200):
        _journal(tmp_path, f"m{i:03d}", FINISHED)
    playing = _journal(tmp_path, "m900", PLAYING)
    assert MatchJournal.unfinished(tmp_path, "mybot") == [playing]
    assert MatchJournal.unfinished(tmp_path, "mybot") == [playing]
    scan = journal._SCANS[str(tmp_path.resolve())]
    assert list(scan.in_play) == [str(playing)]


def test_a_journal_changed_while_the_clock_stood_within_the_slack_is_read_again(tmp_path, monkeypatch):
    """On a file system with coarse timestamps a journal rewritten just after a scan began may
    carry a time before it: only files older than the slack are taken as seen."""
    assert MatchJournal.unfinished(tmp_path, "mybot") == []
    old = _journal(tmp_path, "m001", PLAYING)
    os.utime(old, ns=(1, 1))  # its mtime in 1970; its ctime, which no program sets, is now
    assert MatchJournal.unfinished(tmp_path, "mybot") == [old]
