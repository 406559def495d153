"""Replace a file so that a reader (or a crash) sees either the old or the new content."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from fibsbot.records.space import before_write


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a synced temporary file and ``os.replace``.

    The directory is synced as well, so that after a power cut the rename is on
    disk too; a crash at any point leaves either the previous file or the new one,
    and so does a full disk (the temporary file is removed, the error raised).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    before_write(path)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as tmp:
            tmp.write(text)
            tmp.flush()
            os.fsync(tmp.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
