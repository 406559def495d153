"""The disk a data directory takes, for ``fibsbot status``: its parts, the log's cap, the room left.

The log's cap is the running daemon's (``daemon.json`` keeps the ``log_max_mb`` it was
started with), else the settings' (``[records] log_max_mb``, ``FIBSBOT_RECORDS__LOG_MAX_MB``).
A file system with less than ``FULL_BELOW`` bytes free is full: a daemon there keeps its
match in memory and refuses invitations until there is room (``fibsbot.records.space``).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nets import logfiles

FULL_BELOW = 1024 * 1024  # the records' probe and a few lines of log need this much
MB = 1024 * 1024
PARTS = ("log", "matches", "queue", "training", "owner", "other")


def tree_bytes(path: Path) -> int:
    """Bytes of the files under ``path`` (a file removed while walking counts nothing)."""
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                continue
    return total


def _configured_cap_mb() -> int | None:
    from fibsbot.config import ConfigError, load_settings

    try:
        return load_settings().records.log_max_mb
    except ConfigError:
        return None


def disk_usage(data_dir: Path, daemon: dict | None = None, usage: Callable[[Path], Any] = shutil.disk_usage) -> dict:
    """Bytes of each part, the log's cap, and the file system's free bytes (``full`` below ``FULL_BELOW``)."""
    data_dir = Path(data_dir)
    parts = {
        "log": logfiles.size(data_dir / "log"),
        "matches": tree_bytes(data_dir / "matches"),
        "queue": sum(_size(data_dir / f"queue.sqlite{end}") for end in ("", "-wal", "-shm")),
        "training": tree_bytes(data_dir / "training"),
        "owner": tree_bytes(data_dir / "owner"),
    }
    total = tree_bytes(data_dir) if data_dir.is_dir() else 0
    parts["other"] = max(0, total - sum(parts.values()))
    cap = (daemon or {}).get("log_max_mb") or _configured_cap_mb()
    try:
        free: int | None = int(usage(data_dir).free)
    except OSError:
        free = None
    return {
        "bytes": total,
        "parts": parts,
        "log_cap_bytes": None if cap is None else int(cap) * MB,
        "free_bytes": free,
        "full": free is not None and free < FULL_BELOW,
    }


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _mb(n: int) -> str:
    return f"{n / MB:.1f} MB"


def disk_line(disk: dict) -> str:
    """``disk: 12.3 MB (log 0.8 MB of its 1.0 MB cap, matches ..., ...); 3.2 GB free``, and why
    the bot waits where the file system is full."""
    parts = disk["parts"]
    cap = disk["log_cap_bytes"]
    log = f"log {_mb(parts['log'])}" + (f" of its {_mb(cap)} cap" if cap else "")
    rest = ", ".join(f"{name} {_mb(parts[name])}" for name in PARTS[1:] if parts.get(name))
    line = f"disk: {_mb(disk['bytes'])} ({log}{', ' + rest if rest else ''})"
    free = disk["free_bytes"]
    if free is not None:
        line += f"; {free / MB / 1024:.1f} GB free" if free >= 1024 * MB else f"; {_mb(free)} free"
    if disk["full"]:
        line += (
            "; the disk is FULL: the daemon keeps its match in memory and refuses new invitations "
            "until there is room (free some space: it goes on by itself)"
        )
    return line
