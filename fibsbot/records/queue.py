"""The training queue: positions where the quick (0-ply) choice and the search disagreed.

They are the positions worth labelling later (rollouts, deeper search) and
training on.  The queue is one SQLite file in WAL mode; every ``add`` is its own
committed transaction with ``synchronous=FULL``, so a killed bot (or a power
cut) loses at most the row being written and the file stays readable, and a
trainer can read while the bot writes.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS disagreements (
    id            INTEGER PRIMARY KEY,
    position_id   TEXT    NOT NULL,             -- gnubg Position ID, side to act on roll
    match_id      TEXT    NOT NULL,             -- gnubg Match ID (cube, score, dice)
    dice          TEXT,                         -- '31' for a move, NULL for a cube decision
    kind          TEXT    NOT NULL CHECK (kind IN ('move', 'cube')),
    choice_ply0   TEXT    NOT NULL,             -- the 0-ply choice (move in gnubg notation, cube action)
    choice_search TEXT    NOT NULL,             -- the searched choice that was played
    equity_ply0   REAL    NOT NULL,             -- equity of each choice by the search
    equity_search REAL    NOT NULL,
    ply           INTEGER NOT NULL CHECK (ply >= 0),
    net_version   TEXT    NOT NULL,
    created_at    TEXT    NOT NULL,             -- ISO 8601, UTC
    match_ref     TEXT,                         -- the match record (.mat file name)
    game_number   INTEGER,
    move_number   INTEGER,
    labelled      INTEGER NOT NULL DEFAULT 0 CHECK (labelled IN (0, 1)),
    label         TEXT                          -- the label, as its producer writes it (JSON)
);
CREATE INDEX IF NOT EXISTS disagreements_unlabelled ON disagreements (labelled, id);
"""


class QueueError(RuntimeError):
    """The queue file is not a training queue this code can use."""


class Disagreement(BaseModel):
    """One queued position."""

    model_config = ConfigDict(frozen=True)

    position_id: str = Field(min_length=14, max_length=14)
    match_id: str = Field(min_length=12, max_length=12)
    dice: tuple[int, int] | None = None
    kind: Literal["move", "cube"]
    choice_ply0: str
    choice_search: str
    equity_ply0: float
    equity_search: float
    ply: int = Field(ge=0)
    net_version: str = Field(min_length=1)
    created_at: dt.datetime = Field(default_factory=lambda: dt.datetime.now(dt.UTC))
    match_ref: str | None = None
    game_number: int | None = Field(default=None, ge=1)
    move_number: int | None = Field(default=None, ge=1)

    @field_validator("dice")
    @classmethod
    def _dice_range(cls, dice):
        if dice is not None and not all(1 <= d <= 6 for d in dice):
            raise ValueError(f"dice {dice} must be 1..6")
        return dice

    @field_validator("created_at")
    @classmethod
    def _aware(cls, when: dt.datetime) -> dt.datetime:
        return when if when.tzinfo else when.replace(tzinfo=dt.UTC)


class QueuedPosition(Disagreement):
    """A row read back, with its id and label."""

    id: int
    labelled: bool = False
    label: str | None = None


_COLUMNS = (
    "position_id",
    "match_id",
    "dice",
    "kind",
    "choice_ply0",
    "choice_search",
    "equity_ply0",
    "equity_search",
    "ply",
    "net_version",
    "created_at",
    "match_ref",
    "game_number",
    "move_number",
)


def _row_values(item: Disagreement) -> tuple:
    values = item.model_dump()
    values["dice"] = None if item.dice is None else f"{item.dice[0]}{item.dice[1]}"
    values["created_at"] = item.created_at.astimezone(dt.UTC).isoformat()
    return tuple(values[name] for name in _COLUMNS)


def _from_row(row: sqlite3.Row) -> QueuedPosition:
    values = dict(row)
    dice = values["dice"]
    values["dice"] = None if dice is None else (int(dice[0]), int(dice[1]))
    values["labelled"] = bool(values["labelled"])
    return QueuedPosition(**values)


class TrainingQueue:
    """The queue file; use as a context manager or call ``close``."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # autocommit mode: transactions are opened explicitly, one per write
        self._db = sqlite3.connect(self.path, isolation_level=None, timeout=10.0)
        self._db.row_factory = sqlite3.Row
        try:
            mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if mode.lower() != "wal":
                raise QueueError(f"{self.path}: could not switch to WAL mode (got {mode})")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._migrate()
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise QueueError(f"{self.path}: not a usable training queue: {exc}") from exc

    def _migrate(self) -> None:
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise QueueError(f"{self.path}: schema version {version} is newer than this code ({SCHEMA_VERSION})")
        if version < SCHEMA_VERSION:
            # executescript commits whatever is open first, so the script carries its own transaction
            self._db.executescript(f"BEGIN IMMEDIATE;\n{_SCHEMA}\nPRAGMA user_version={SCHEMA_VERSION};\nCOMMIT;")

    def _transaction(self):
        return _Transaction(self._db)

    # ------------------------------------------------------------------ writing

    def add(self, item: Disagreement) -> int:
        """Store one position in its own committed transaction; returns its id."""
        placeholders = ", ".join("?" for _ in _COLUMNS)
        with self._transaction():
            cursor = self._db.execute(
                f"INSERT INTO disagreements ({', '.join(_COLUMNS)}) VALUES ({placeholders})",
                _row_values(item),
            )
        assert cursor.lastrowid is not None  # set by every INSERT that succeeded
        return int(cursor.lastrowid)

    def mark_labelled(self, ids: list[int] | tuple[int, ...], label: str | None = None) -> int:
        """Mark rows labelled (with an optional label text); returns how many changed."""
        with self._transaction():
            changed = self._db.executemany(
                "UPDATE disagreements SET labelled = 1, label = ? WHERE id = ?",
                [(label, int(row_id)) for row_id in ids],
            ).rowcount
        return changed

    def unplace(self, match_ref: str, kept_games: list[int] | tuple[int, ...]) -> int:
        """Clear the game and line of ``match_ref``'s rows naming a game not in ``kept_games``
        (a game the match file left out); returns how many changed."""
        numbers = [int(number) for number in kept_games]
        kept = f" AND game_number NOT IN ({', '.join('?' for _ in numbers)})" if numbers else ""
        with self._transaction():
            changed = self._db.execute(
                "UPDATE disagreements SET game_number = NULL, move_number = NULL "
                f"WHERE match_ref = ? AND game_number IS NOT NULL{kept}",
                (match_ref, *numbers),
            ).rowcount
        return changed

    # ------------------------------------------------------------------ reading

    def count(self, *, labelled: bool | None = None) -> int:
        args: tuple[int, ...]
        if labelled is None:
            query, args = "SELECT COUNT(*) FROM disagreements", ()
        else:
            query, args = "SELECT COUNT(*) FROM disagreements WHERE labelled = ?", (int(labelled),)
        return int(self._db.execute(query, args).fetchone()[0])

    def iter_unlabelled(self, batch: int = 256) -> Iterator[QueuedPosition]:
        """Unlabelled rows in insertion order, read in batches (rows added meanwhile included)."""
        last = 0
        while True:
            rows = self._db.execute(
                "SELECT * FROM disagreements WHERE labelled = 0 AND id > ? ORDER BY id LIMIT ?",
                (last, batch),
            ).fetchall()
            if not rows:
                return
            for row in rows:
                yield _from_row(row)
            last = rows[-1]["id"]

    def get(self, row_id: int) -> QueuedPosition | None:
        row = self._db.execute("SELECT * FROM disagreements WHERE id = ?", (int(row_id),)).fetchone()
        return None if row is None else _from_row(row)

    def integrity_ok(self) -> bool:
        return self._db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"

    # ------------------------------------------------------------------ lifetime

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> TrainingQueue:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``, rolled back on any exception."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type, exc, tb) -> None:
        self._db.execute("ROLLBACK" if exc_type else "COMMIT")
