"""Finding the unfinished matches reads only the journals that changed: the matches folder
holds every match the bot ever played, and the search runs at every match start (the soak
found each match taking longer as the folder grew, every journal parsed each time)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from fibsbot.records.journal import FINISHED, PLAYING, SUFFIX, MatchJournal


def _journal(folder: Path, name: str, status: str, opponent: str = "alice") -> Path:
    path = folder / f"{name}{SUFFIX}"
    path.write_text(json.dumps({"header": {"user": "mybot", "opponent": opponent}, "actions": [], "status": status}))
    return path


def test_finished_journals_are_read_once_and_a_changed_one_again(tmp_path, monkeypatch):
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
