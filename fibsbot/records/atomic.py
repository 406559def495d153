"""Replace a file so that a reader (or a crash) sees either the old or the new content."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from fibsbot.records.space import before_write


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a synced temporary file and ``os.replace``.

    The directory is synced as well, so that after a power cut the rename is on
    disk too; a crash at any point leaves either the previous file or the new one,
    and so does a full disk (the temporary file is removed, the error raised).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with replacing(path) as handle:
        handle.write(text.encode("utf-8"))


@contextmanager
def replacing(path: Path) -> Iterator[BinaryIO]:
    """A binary file that takes ``path``'s place when the block ends: written beside it
    under a temporary name, synced, renamed over it and the directory synced.  If the
    block raises (a full disk, a kill's exception), the temporary file is removed and
    ``path`` is as it was."""
    path = Path(path)
    before_write(path)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as tmp:
            yield tmp
            tmp.flush()
            os.fsync(tmp.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        raise
    sync_dir(path.parent)


def sync_dir(folder: Path) -> None:
    """Sync a directory, so that a rename or removal in it survives a power cut."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
