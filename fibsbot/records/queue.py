"""The training queue: positions where the quick (0-ply) choice and the search disagreed.

They are the positions worth labelling later (rollouts, deeper search) and
training on.  The queue is one SQLite file in WAL mode; every ``add`` is its own
committed transaction with ``synchronous=FULL``, so a killed bot (or a power
cut) loses at most the row being written and the file stays readable, and a
trainer can read while the bot writes.

The queue is bounded (``max_rows``, ``[records] queue_max_rows``): past it the oldest
rows go, in one transaction, labelled ones first (a retrain has put their positions
in its training set: they are not kept twice), then the oldest waiting ones, down
to nine tenths of the cap.  The WAL file is kept small (``journal_size_limit``) and
pages freed by pruning are reused, so the file stops growing at the cap.

On a full disk (SQLite's "database or disk is full", or ENOSPC) a row waits in memory
(up to ``PENDING_MAX``) and is written, before any later row, once there is room
(``records.space``); the file is as the last committed transaction left it.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import structlog
from pydantic import BaseModel, ConfigDict, Field, field_validator

from fibsbot.records.space import DISK, before_write, no_space
from nets.formats import NewerFormatError, check_format

SCHEMA_VERSION = 1  # PRAGMA user_version; a newer one is refused (nets.formats), an older one migrated
PENDING_MAX = 10_000  # rows kept in memory while the disk is full; later ones are counted and dropped
WAL_LIMIT = 4 * 1024 * 1024  # bytes the WAL file is truncated to after a checkpoint
WHAT = "the training queue"

log = structlog.get_logger("fibsbot.records.queue")

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


class NewerQueueError(QueueError, NewerFormatError):
    """A queue a newer release made: refused, never migrated down."""


def check_queue_format(version: int, path: Path) -> None:
    """A queue's ``user_version`` (0: a file with no table yet) is one this code reads;
    NewerQueueError where a newer release made it."""
    if version != 0:
        check_format(version, SCHEMA_VERSION, f"{path} (the training queue)", NewerQueueError)


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

    def __init__(self, path: Path | str, max_rows: int | None = None) -> None:
        self.path = Path(path)
        self.max_rows = max_rows
        self._pending: list[tuple] = []
        self.dropped = 0  # rows lost because even the memory for waiting rows was full
        self._rows: int | None = None  # rows in the file, counted once where there is a cap
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # autocommit mode: transactions are opened explicitly, one per write
        self._db = sqlite3.connect(self.path, isolation_level=None, timeout=10.0)
        self._db.row_factory = sqlite3.Row
        try:
            mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if mode.lower() != "wal":
                raise QueueError(f"{self.path}: could not switch to WAL mode (got {mode})")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute(f"PRAGMA journal_size_limit={WAL_LIMIT}")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._migrate()
            if max_rows is not None:
                self._rows = self.count()
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise QueueError(f"{self.path}: not a usable training queue: {exc}") from exc
        except NewerQueueError:
            self._db.close()
            raise

    def _migrate(self) -> None:
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        check_queue_format(version, self.path)
        if version < SCHEMA_VERSION:
            # executescript commits whatever is open first, so the script carries its own transaction
            self._db.executescript(f"BEGIN IMMEDIATE;\n{_SCHEMA}\nPRAGMA user_version={SCHEMA_VERSION};\nCOMMIT;")

    def _transaction(self):
        return _Transaction(self._db)

    # ------------------------------------------------------------------ writing

    def add(self, item: Disagreement) -> int | None:
        """Store one position in its own committed transaction; returns its id, or None when
        the disk is full and the row waits in memory."""
        values = _row_values(item)
        try:
            if self._pending:
                self._write_pending()
            row_id = self._insert([values])
        except (OSError, sqlite3.Error) as exc:
            if not no_space(exc):
                raise
            if len(self._pending) < PENDING_MAX:
                self._pending.append(values)
            else:
                self.dropped += 1
            DISK.failed(WHAT, exc, retry=self._write_pending)
            return None
        if self.max_rows is not None and self._rows is not None and self._rows > self.max_rows:
            self.prune(self.max_rows)
        return row_id

    def _insert(self, rows: list[tuple]) -> int:
        before_write(self.path)
        placeholders = ", ".join("?" for _ in _COLUMNS)
        with self._transaction():
            cursor = self._db.executemany(
                f"INSERT INTO disagreements ({', '.join(_COLUMNS)}) VALUES ({placeholders})", rows
            )
            last = self._db.execute("SELECT MAX(id) FROM disagreements").fetchone()[0]
        assert cursor.rowcount == len(rows)
        if self._rows is not None:
            self._rows += len(rows)
        return int(last)

    def _write_pending(self) -> None:
        """The rows that waited for space, in one transaction (all or none)."""
        if self._pending:
            self._insert(self._pending)
            self._pending = []
        DISK.wrote(WHAT)

    @property
    def waiting_in_memory(self) -> int:
        return len(self._pending)

    def prune(self, max_rows: int) -> int:
        """Down to nine tenths of ``max_rows``: the oldest labelled rows first, then the oldest
        waiting ones, in one transaction; returns how many went."""
        target = max_rows * 9 // 10
        with self._transaction():
            total = int(self._db.execute("SELECT COUNT(*) FROM disagreements").fetchone()[0])
            self._rows = total
            if total <= max_rows:
                return 0
            excess = total - target
            labelled = self._db.execute(
                "DELETE FROM disagreements WHERE id IN "
                "(SELECT id FROM disagreements WHERE labelled = 1 ORDER BY id LIMIT ?)",
                (excess,),
            ).rowcount
            waiting = self._db.execute(
                "DELETE FROM disagreements WHERE id IN "
                "(SELECT id FROM disagreements WHERE labelled = 0 ORDER BY id LIMIT ?)",
                (excess - labelled,),
            ).rowcount
        self._rows = total - labelled - waiting
        log.info("queue_pruned", labelled=labelled, waiting=waiting, kept=self._rows)
        return labelled + waiting

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
        if not exc_type:
            try:
                self._db.execute("COMMIT")
            except sqlite3.Error:
                if self._db.in_transaction:  # a commit that failed (no room for the WAL) is undone whole
                    self._db.execute("ROLLBACK")
                raise
        elif self._db.in_transaction:  # SQLite rolls back by itself on some errors (a full disk)
            self._db.execute("ROLLBACK")
