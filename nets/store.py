"""A directory of net versions with an atomically switched ``current`` pointer.

    STORE/versions/20261121-120000/net.npz (+ .json, net.race.npz, net.race.json)
    STORE/current -> versions/20261121-120000

A promotion writes a complete new version directory first, then replaces the
``current`` symlink in one ``rename``: a reader (the daemon, at the start of each
match) sees either the old pair or the new one, never half of each, and every old
version stays on disk.
"""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

from engine.eval.evaluator import Evaluator

NET_FILE = "net.npz"


class NetStore:
    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)

    @property
    def current_link(self) -> Path:
        return self.root / "current"

    def current_path(self) -> Path | None:
        """The current contact net's file, or None when nothing was promoted yet."""
        path = self.current_link / NET_FILE
        return path if path.exists() else None

    def current_version(self) -> str | None:
        try:
            return os.readlink(self.current_link).rsplit("/", 1)[-1]
        except OSError:
            return None

    def versions(self) -> list[str]:
        folder = self.root / "versions"
        return sorted(p.name for p in folder.iterdir()) if folder.exists() else []

    def promote(self, evaluator: Evaluator, **card_updates) -> Path:
        """Write ``evaluator``'s nets as a new version and make it current."""
        stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S-%f")
        version = self.root / "versions" / stamp
        version.mkdir(parents=True)
        evaluator.contact.save(version / NET_FILE, role="contact", version=stamp, **card_updates)
        if evaluator.race is not None:
            evaluator.race.save(version / "net.race.npz", role="race", version=stamp, **card_updates)
        if evaluator.prune is not None:
            evaluator.prune.save(version / "net.prune.npz", role="pruning", version=stamp)
        tmp = self.root / f".current.{stamp}"
        os.symlink(Path("versions") / stamp, tmp)
        os.replace(tmp, self.current_link)  # the one atomic step
        return version
