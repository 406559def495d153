"""A full disk: how writers recognise it, what waits for space, and when play may go on.

Every writer of the data directory (the journal and ``.mat``, the training queue, the
JSON log, the owner files) calls ``before_write(path)`` before it writes and hands a
failure to ``no_space(exc)``: an ``OSError`` of ENOSPC, EDQUOT or EFBIG, or SQLite's
"database or disk is full".  Such a failure is reported to ``DISK`` (``failed``) with,
where losing the write would lose a move, a function that writes it again; nothing is
raised to the bot.  While anything failed for want of space, ``DISK.full`` holds the
reason: the bot refuses new invitations (``fibsbot.client.policy``) and says so once.
``DISK.recover()``, called as lines come in and before an invitation is refused, writes
what waits and, once every wait is over and a probe file of ``PROBE_BYTES`` can be
written in the data directory, clears the state: the bot goes on by itself.

``before_write`` is the fault hook of the tests (``fill``): root ignores permissions, so
only a write that fails tells, and this makes one fail in-process, as a full disk does.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import structlog

NO_SPACE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
PROBE_BYTES = 64 * 1024  # space returned: a file this size can be written and synced
_FAULT: list[Callable[[Path], None]] = []  # the tests' hook (``fill``), innermost last

log = structlog.get_logger("fibsbot.records.space")


def no_space(exc: BaseException) -> bool:
    """Whether ``exc`` says the file system (or the file's quota or size limit) is full."""
    if isinstance(exc, OSError):
        return exc.errno in NO_SPACE_ERRNOS
    if isinstance(exc, sqlite3.Error):
        return getattr(exc, "sqlite_errorcode", None) == 13 or "disk is full" in str(exc)  # SQLITE_FULL
    return False


def before_write(path: Path | str) -> None:
    """Called by every writer before it writes ``path``: raises what the tests' fault says."""
    for fault in _FAULT:
        fault(Path(path))


@contextmanager
def fill(where: Callable[[Path], bool] = lambda path: True) -> Iterator[None]:
    """The tests' full disk: every write to a path ``where`` accepts fails with ENOSPC."""

    def fault(path: Path) -> None:
        if where(path):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    _FAULT.append(fault)
    try:
        yield
    finally:
        _FAULT.remove(fault)


class DiskState:
    """Whether the data directory's disk was found full, and the writes waiting for space."""

    def __init__(self) -> None:
        self.folder: Path | None = None  # where the probe is written (the data directory)
        self.reason: str | None = None  # set while full: what failed, in words
        self.waiting: dict[str, Callable[[], None]] = {}  # key: what; value: writes it again
        self.listeners: list[Callable[[str | None], None]] = []  # told of each change: reason or None

    @property
    def full(self) -> bool:
        return self.reason is not None

    def watch(self, folder: Path) -> None:
        self.folder = Path(folder)

    def failed(
        self, what: str, exc: BaseException, retry: Callable[[], None] | None = None, *, quiet: bool = False
    ) -> None:
        """``what`` could not be written for want of space; ``retry`` writes it again later.
        ``quiet``: not logged (the JSON log itself reports, and logging from inside it would
        wait on its own lock)."""
        if retry is not None:
            self.waiting[what] = retry
        if self.reason is None:
            self.reason = f"the disk is full ({what}: {getattr(exc, 'strerror', None) or exc})"
            if not quiet:
                log.warning("disk_full", what=what, error=str(exc))
            self._tell(self.reason)

    def wrote(self, what: str) -> None:
        """``what`` was written: a wait for it is over."""
        self.waiting.pop(what, None)

    def recover(self) -> bool:
        """Write what waits and probe the disk; True when nothing is full any more."""
        if self.reason is None:
            return True
        for what, retry in list(self.waiting.items()):
            try:
                retry()
            except Exception as exc:  # noqa: BLE001 - a writer's failure must never reach the bot
                if no_space(exc):
                    return False  # still full: try again later
                log.warning("write_retry_failed", what=what, exc_info=True)  # not space: waiting cannot mend it
            self.waiting.pop(what, None)
        if not self._probe():
            return False
        self.reason = None
        log.info("disk_space_back")
        self._tell(None)
        return True

    def _probe(self) -> bool:
        if self.folder is None:
            return True
        try:
            before_write(self.folder / ".space-probe")
            handle, name = tempfile.mkstemp(prefix=".space-probe-", dir=self.folder)
        except OSError:
            return False
        try:
            with os.fdopen(handle, "wb") as probe:
                probe.write(b"\0" * PROBE_BYTES)
                probe.flush()
                os.fsync(probe.fileno())
            return True
        except OSError:
            return False
        finally:
            try:
                os.unlink(name)
            except OSError:
                pass

    def _tell(self, reason: str | None) -> None:
        for listener in list(self.listeners):
            try:
                listener(reason)
            except Exception:  # noqa: BLE001 - a listener must never stop a writer
                pass

    def reset(self) -> None:
        """Forget everything (a new daemon in the same process, a test)."""
        self.__init__()  # type: ignore[misc]


DISK = DiskState()


def unable() -> str | None:
    """For the invitation policy: why no match can be taken now (the disk is full), after trying
    the disk again; None when records can be kept."""
    return None if DISK.recover() else DISK.reason


def watch(data_dir: Path, say: Callable[[str, str], None] | None = None) -> Callable[[], str | None]:
    """Watch ``data_dir``'s disk for a daemon: a fresh state, ``say(text, level)`` (the console)
    told once when the disk fills and once when space returns; returns ``unable``."""
    DISK.reset()
    DISK.watch(data_dir)
    if say is not None:

        def tell(reason: str | None) -> None:
            if reason is not None:
                say(
                    f"{reason}: the match in play goes on, its record kept in memory and written when there "
                    "is room; new invitations are refused until then",
                    "warning",
                )
            else:
                say("disk space is back: every record is written, invitations are accepted again", "info")

        DISK.listeners.append(tell)
    return unable
