"""A build's labels, kept as they come, so an interrupted ``benchmark-build`` resumes.

Labelling is the slow part of a build (minutes to an hour with a deep labeller) and
a labelled decision depends only on its position, roll and the build's setup, so
each label is appended to a JSON-lines journal beside the output file; a build with
the same setup reads it back and labels only what is missing.  The first line
records the setup: a journal of another setup is started afresh, never mixed in.
The journal is removed once the set is written.
"""

from __future__ import annotations

import json
from pathlib import Path

import structlog

log = structlog.get_logger(__name__)


def journal_path(out: str | Path) -> Path:
    out = Path(out)
    return out.with_name(out.name + ".labels.jsonl")


class LabelJournal:
    """Labels by key ("move:ID:d1d2", "cube:ID"), read back from and appended to a file."""

    def __init__(self, path: Path | None, setup: dict) -> None:
        self.path = path
        self.labels: dict[str, list] = {}
        if path is None:
            return
        if path.exists():
            with path.open(encoding="utf-8") as stream:
                lines = stream.read().splitlines()
            if lines and json.loads(lines[0]) == setup:
                for line in lines[1:]:
                    try:
                        row = json.loads(line)
                    except ValueError:  # a line cut short by the interruption
                        continue
                    self.labels[row["key"]] = row["label"]
                log.info("benchmark.resumed", path=str(path), labels=len(self.labels))
                return
            log.warning("benchmark.journal_replaced", path=str(path), reason="another setup")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(setup) + "\n", encoding="utf-8")

    def wrap(self, label, key_of):
        """``label`` (a list of candidates to a list of labels) answering from the
        journal where it can and journalling what it computes."""

        def journalled(candidates: list) -> list:
            missing = [c for c in candidates if key_of(c) not in self.labels]
            if missing:
                fresh = label(missing)
                for candidate, value in zip(missing, fresh):
                    self.labels[key_of(candidate)] = json.loads(json.dumps(value))
                if self.path is not None:
                    with self.path.open("a", encoding="utf-8") as out:
                        for candidate, value in zip(missing, fresh):
                            out.write(json.dumps({"key": key_of(candidate), "label": value}) + "\n")
            return [self.labels[key_of(c)] for c in candidates]

        return journalled
