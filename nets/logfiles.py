"""Finding and reading the JSON-lines logs of a data directory, rotated segments included.

A log stream ``log/NAME.jsonl`` is rotated by size (``fibsbot.records.logfiles``):
the full file becomes ``log/NAME.NNNNNN.jsonl`` (numbered from 1), which is then
compressed to ``log/NAME.NNNNNN.jsonl.gz`` and removed.  Between those two steps a
kill can leave both; their lines are the same, so a reader takes the ``.gz`` only.
Everything that reads logs (retrain, the real-life benchmark, the chaos audit) finds
them here, so a line in a rotated segment counts as one in the current file.

Plain code (no engine, no fibsbot): ``nets`` may not import ``fibsbot``, and both use it.
"""

from __future__ import annotations

import glob
import gzip
import re
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path

SUFFIX = ".jsonl"
GZ = ".gz"
# NAME.000012.jsonl or NAME.000012.jsonl.gz; the current file is NAME.jsonl
SEGMENT = re.compile(r"^(?P<stem>.+)\.(?P<seq>\d{6,})\.jsonl(?P<gz>\.gz)?$")


def parse(path: Path) -> tuple[str, int | None, bool] | None:
    """(stream, segment number or None for the current file, compressed) of a log file name;
    None for a name that is no log (a temporary file, another kind of file)."""
    name = Path(path).name
    if name.startswith("."):
        return None  # a temporary file of a rotation in progress
    match = SEGMENT.match(name)
    if match:
        return match["stem"], int(match["seq"]), bool(match["gz"])
    if name.endswith(SUFFIX):
        return name[: -len(SUFFIX)], None, False
    return None


def _order(paths: Iterable[Path]) -> list[Path]:
    """One file per segment (the ``.gz`` where both are there), in order: by stream, its
    segments oldest first, then its current file."""
    best: dict[tuple[str, int | None], tuple[bool, Path]] = {}
    for path in paths:
        parsed = parse(path)
        if parsed is None:
            continue
        stream, seq, compressed = parsed
        held = best.get((stream, seq))
        if held is None or (compressed and not held[0]):
            best[(stream, seq)] = (compressed, Path(path))
    keys = sorted(best, key=lambda key: (key[0], key[1] is None, key[1] or 0))
    return [best[key][1] for key in keys]


def log_files(folder: Path | str, stream: str | None = None) -> list[Path]:
    """The log files in ``folder`` (``stream``: only NAME's), oldest first within each stream."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    found = _order(folder.iterdir())
    return found if stream is None else [path for path in found if parse(path)[0] == stream]  # type: ignore[index]


def matching(pattern: str) -> list[Path]:
    """The log files a glob of current files (``runs/*/log/*.jsonl``) names, with their segments."""
    paths = {Path(p) for p in glob.glob(pattern)}
    if pattern.endswith(SUFFIX):
        paths.update(Path(p) for p in glob.glob(pattern + GZ))
    return _order(paths)


def read_lines(path: Path | str) -> Iterator[str]:
    """The lines of one log file, compressed or not, without their line ends.  A compressed
    segment cut short (written by something other than the rotation, which renames only
    whole ones) yields what it holds."""
    path = Path(path)
    opener = gzip.open if path.name.endswith(GZ) else open
    try:
        with opener(path, "rt", encoding="utf-8", errors="replace") as stream:
            for line in stream:
                yield line.rstrip("\n")
    except FileNotFoundError:
        return  # pruned between listing and reading
    except (EOFError, zlib.error, gzip.BadGzipFile):
        return


def lines(paths: Iterable[Path | str]) -> Iterator[str]:
    """Every line of ``paths`` in turn."""
    for path in paths:
        yield from read_lines(path)


def size(folder: Path | str) -> int:
    """Bytes of every file in ``folder`` (logs, segments, temporary files)."""
    total = 0
    folder = Path(folder)
    if not folder.is_dir():
        return 0
    for path in folder.iterdir():
        try:
            if path.is_file():
                total += path.stat().st_size
        except OSError:
            continue
    return total
