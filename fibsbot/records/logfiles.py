"""The JSON log on a bounded disk: rotated by size into compressed segments, capped in total.

``RotatingLog`` is the file structlog writes to (``records.events.configure_logging``).
Lines are appended to ``log/NAME.jsonl``; when it holds ``segment_bytes`` it is
rotated, in steps each of which a kill may interrupt without losing or doubling a line:

1. the file is synced and renamed ``log/NAME.NNNNNN.jsonl`` (one rename: the line
   written last is in it) and a new, empty ``NAME.jsonl`` is opened;
2. the segment is compressed into a temporary file, which is synced and renamed
   ``NAME.NNNNNN.jsonl.gz`` (so a ``.gz`` is always whole), and the directory synced;
3. the uncompressed segment is removed;
4. the oldest segments of the folder (of any stream) are removed until the folder is
   under ``max_bytes`` less room for the current file to fill: the total stays under
   the cap (``[records] log_max_mb``).

A kill after 1 leaves an uncompressed segment, after 2 both forms (readers take the
``.gz``: ``nets.logfiles``); the next ``RotatingLog`` on the folder finishes the
work, and also rotates the current file of a stream nobody holds any more (each
writer holds an ``flock`` on its current file), such as an arena log of an earlier run.
Compression runs in the writing thread: a segment is at most 4 MB, a fraction of a
second, once in tens of matches.

A full disk (``records.space``) never reaches the caller: a line that cannot be
written (a partial write is cut off again, so the file never holds half a line)
waits in memory, up to ``BACKLOG_BYTES`` (later lines are counted and dropped, and
the count is logged once space returns), and is written before the next line.
"""

from __future__ import annotations

import fcntl
import gzip
import json
import os
import shutil
import threading
import time
from pathlib import Path

from fibsbot.records.atomic import replacing, sync_dir
from fibsbot.records.space import DISK, before_write, no_space
from nets import logfiles

MB = 1024 * 1024
MAX_SEGMENT = 4 * MB
MIN_SEGMENT = 16 * 1024
LINE_ROOM = 16 * 1024  # a long line past the segment size before the rotation comes
BACKLOG_BYTES = 1 * MB
WHAT = "the JSON log"


def segment_bytes_for(max_bytes: int) -> int:
    """The size at which the current file is rotated: an eighth of the cap, 16 KB to 4 MB."""
    return max(MIN_SEGMENT, min(MAX_SEGMENT, max_bytes // 8))


def _next_number(folder: Path, stream: str) -> int:
    numbers = [parsed[1] for path in folder.iterdir() if (parsed := logfiles.parse(path)) and parsed[0] == stream]
    return max((n for n in numbers if n is not None), default=0) + 1


def compress(segment: Path) -> Path:
    """``NAME.NNNNNN.jsonl`` -> ``NAME.NNNNNN.jsonl.gz`` through a synced temporary file; OSError
    leaves the uncompressed segment as it was (it is readable, and compressed later)."""
    target = segment.with_name(segment.name + logfiles.GZ)
    with replacing(target) as raw:
        with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6, mtime=0) as packed:
            with open(segment, "rb") as source:
                shutil.copyfileobj(source, packed, 1 << 20)
    segment.unlink(missing_ok=True)
    sync_dir(segment.parent)
    return target


def _unheld(path: Path) -> bool:
    """Whether no live writer holds the current file ``path`` (a writer keeps an flock on it)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)  # closing drops the probe's lock


def tidy(folder: Path, keep: Path | None = None, adopt: bool = True) -> None:
    """Finish what killed rotations left in ``folder``: drop an uncompressed segment whose
    ``.gz`` exists, compress one that has none, and, with ``adopt`` (a folder of logs only,
    such as ``DATA/log``), rotate the non-empty current files nobody holds (``keep``: ours).
    Temporary files of a rotation cut short are removed."""
    for path in sorted(folder.iterdir()):
        name = path.name
        if name.startswith(".") and name.endswith(".tmp") and logfiles.SUFFIX in name:
            if _unheld_tmp(path):
                path.unlink(missing_ok=True)
            continue
        parsed = logfiles.parse(path)
        if parsed is None or path == keep:
            continue
        stream, number, packed = parsed
        try:
            if number is not None and not packed:
                if path.with_name(name + logfiles.GZ).exists():
                    path.unlink(missing_ok=True)
                else:
                    compress(path)
            elif adopt and number is None and path.stat().st_size > 0 and _unheld(path):
                segment = folder / f"{stream}.{_next_number(folder, stream):06d}{logfiles.SUFFIX}"
                os.rename(path, segment)
                sync_dir(folder)
                compress(segment)
        except OSError:
            continue  # left for the next tidy: nothing is lost by waiting


def _unheld_tmp(path: Path) -> bool:
    # a compression in progress in another process writes its temporary file for well under a
    # minute; one older than that was left by a kill
    try:
        return time.time() - path.stat().st_mtime > 60
    except OSError:
        return False


def prune(folder: Path, max_bytes: int, room: int) -> list[Path]:
    """Remove the oldest segments (any stream, by the time they were written) until the
    folder's files total at most ``max_bytes - room``; returns what was removed."""
    target = max_bytes - room
    total = logfiles.size(folder)
    if total <= target:
        return []
    segments = []
    for path in folder.iterdir():
        parsed = logfiles.parse(path)
        if parsed is not None and parsed[1] is not None:
            try:
                stat = path.stat()
            except OSError:
                continue
            segments.append((stat.st_mtime_ns, path.name, stat.st_size, path))
    removed = []
    for _, _, size, path in sorted(segments):
        if total <= target:
            break
        path.unlink(missing_ok=True)
        total -= size
        removed.append(path)
    return removed


class RotatingLog:
    """Appends whole lines to ``path`` (``NAME.jsonl``), rotating and capping as above.
    ``adopt``: the folder holds logs only (``DATA/log``), so current files nobody writes any
    more are rotated too; a log beside other files (``fibsbot external --log``) leaves them be."""

    def __init__(self, path: Path, max_bytes: int, segment_bytes: int | None = None, *, adopt: bool = False) -> None:
        self.path = Path(path)
        self.folder = self.path.parent
        self.adopt = adopt
        name = self.path.name
        self.stream = name[: -len(logfiles.SUFFIX)] if name.endswith(logfiles.SUFFIX) else name
        self.max_bytes = int(max_bytes)
        self.segment_bytes = segment_bytes or segment_bytes_for(self.max_bytes)
        self.folder.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._backlog: list[bytes] = []
        self._backlog_size = 0
        self._dropped = 0
        self._fd = -1
        self._size = 0
        self._open()
        tidy(self.folder, keep=self.path, adopt=adopt)
        if self._size >= self.segment_bytes:
            self._rotate()
        else:
            prune(self.folder, self.max_bytes, self._room())

    # --- the file protocol structlog uses ------------------------------------------------

    def write(self, text: str) -> int:
        data = text.encode("utf-8")
        with self._lock:
            if self._backlog and not self._write_backlog():
                self._keep(data)
                return len(text)
            try:
                self._append(data)
            except OSError as exc:
                self._keep(data)
                self._report(exc)
                return len(text)
            if self._size >= self.segment_bytes:
                self._rotate()
        return len(text)

    def flush(self) -> None:
        """Lines go to the kernel as they are written: nothing waits in this process but the backlog."""
        with self._lock:
            if self._backlog:
                self._write_backlog()

    def close(self) -> None:
        with self._lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1

    @property
    def closed(self) -> bool:
        return self._fd < 0

    @property
    def waiting(self) -> int:
        """Lines kept in memory for want of space."""
        return len(self._backlog)

    # --- inside ---------------------------------------------------------------------------

    def _room(self) -> int:
        # the current file fills to a segment, and a rotation holds it beside its compressed
        # copy until the copy is whole: a quarter of it is room to spare for JSON lines
        return self.segment_bytes + self.segment_bytes // 4 + LINE_ROOM

    def _open(self) -> None:
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)  # logs hold chat and names
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # tells tidy() that this stream is alive
        except OSError:
            pass  # held elsewhere (two writers on one stream): both append, neither rotates the other's away
        self._fd = fd
        self._size = os.fstat(fd).st_size

    def _append(self, data: bytes) -> None:
        """All of ``data`` or nothing: a write cut short by a full disk is cut off the file again."""
        before_write(self.path)
        written = 0
        try:
            while written < len(data):
                written += os.write(self._fd, data[written:])
        except OSError:
            if written:
                try:
                    os.ftruncate(self._fd, self._size)
                except OSError:
                    pass
            raise
        self._size += written

    def _keep(self, data: bytes) -> None:
        if self._backlog_size + len(data) > BACKLOG_BYTES:
            self._dropped += 1
            return
        self._backlog.append(data)
        self._backlog_size += len(data)

    def _write_backlog(self) -> bool:
        if self._dropped:
            note = {"event": "log_lines_dropped", "level": "warning", "lines": self._dropped, "reason": "disk full"}
            self._backlog.append((json.dumps(note) + "\n").encode())
            self._dropped = 0
        try:
            self._append(b"".join(self._backlog))
        except OSError as exc:
            self._report(exc)
            return False
        self._backlog, self._backlog_size = [], 0
        DISK.wrote(WHAT)
        return True

    def _report(self, exc: OSError) -> None:
        if no_space(exc):
            DISK.failed(WHAT, exc, retry=self._retry, quiet=True)

    def _retry(self) -> None:
        with self._lock:
            if self._backlog and not self._write_backlog():
                raise OSError(28, "the JSON log still cannot be written")

    def _rotate(self) -> None:
        """Steps 1 to 4 of the module's docstring; a step that fails leaves the rest for later."""
        try:
            os.fsync(self._fd)
            number = _next_number(self.folder, self.stream)
            segment = self.folder / f"{self.stream}.{number:06d}{logfiles.SUFFIX}"
            os.rename(self.path, segment)
            sync_dir(self.folder)
        except OSError:
            return  # the current file goes on growing until a rotation succeeds
        old = self._fd
        try:
            self._open()
        except OSError:
            os.rename(segment, self.path)  # no new file could be made: go on with the old one
            self._fd = old
            return
        os.close(old)
        try:
            compress(segment)
        except OSError as exc:
            self._report(exc)  # the uncompressed segment stays, readable, until a tidy compresses it
        tidy(self.folder, keep=self.path, adopt=self.adopt)
        prune(self.folder, self.max_bytes, self._room())
