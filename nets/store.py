"""A directory of net versions with an atomically switched ``current`` pointer.

    STORE/versions/20261121-120000/net.npz (+ .json, net.race.npz, net.race.json)
    STORE/current -> versions/20261121-120000
    STORE/store.json                           {"format": 1}: the layout above (``FORMAT``)

A promotion writes a complete new version directory first, then replaces the
``current`` symlink in one ``rename``: a reader (the daemon, at the start of each
match) sees either the old pair or the new one, never half of each, and every old
version stays on disk.

``store.json`` says which layout the store is in; a store without one is in the first
(release 0.1.0 wrote none), and gets one at its next promotion.  A store in a newer
layout is refused (``nets.formats``) before anything in it is read or replaced.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from nets.formats import check_format

if TYPE_CHECKING:  # the store is read where numba should not be loaded (fibsbot status)
    from engine.eval.evaluator import Evaluator

NET_FILE = "net.npz"
INDEX_FILE = "store.json"
FORMAT = 1  # the layout: versions/STAMP/net.npz (+ race, prune, root nets), current -> versions/STAMP


def store_format(root: Path) -> int:
    """The layout of the store at ``root`` (one without ``store.json``: the first);
    NewerFormatError where a newer release made it."""
    index = Path(root) / INDEX_FILE
    try:
        found = json.loads(index.read_text(encoding="utf-8")).get("format")
    except FileNotFoundError:
        found = None
    except (OSError, ValueError, AttributeError) as exc:
        raise OSError(f"{index}: not a net store's index ({exc})") from exc
    return check_format(found, FORMAT, f"{index} (the net store)")


class NetStore:
    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        store_format(self.root)

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
        write_nets(evaluator, version, version=stamp, **card_updates)
        self._say_format()
        self._point_at(stamp)
        return version

    def _say_format(self) -> None:
        index = self.root / INDEX_FILE
        if not index.exists():
            tmp = self.root / f".{INDEX_FILE}.{os.getpid()}"
            tmp.write_text(json.dumps({"format": FORMAT}) + "\n", encoding="utf-8")
            os.replace(tmp, index)

    def roll_back(self, version: str | None) -> None:
        """Make an earlier ``version`` current again (None: no promoted net, the shipped one plays)."""
        if version is None:
            self.current_link.unlink(missing_ok=True)
            return
        if version not in self.versions():
            raise ValueError(
                f"no version {version!r} in {self.root}; there are: {', '.join(self.versions()) or 'none'}"
            )
        self._point_at(version)

    def _point_at(self, version: str) -> None:
        tmp = self.root / f".current.{version}.{os.getpid()}"
        os.symlink(Path("versions") / version, tmp)
        os.replace(tmp, self.current_link)  # the one atomic step


def write_nets(evaluator: Evaluator, folder: Path, **card_updates) -> Path:
    """``evaluator``'s nets as ``folder/net.npz`` (+ ``net.race.npz``, ``net.prune.npz``,
    ``net.root.npz``), each with its card: the spec ``net:FOLDER/net`` plays them."""
    evaluator.contact.save(folder / NET_FILE, role="contact", **card_updates)
    if evaluator.race is not None:
        evaluator.race.save(folder / "net.race.npz", role="race", **card_updates)
    stamp = {"version": card_updates["version"]} if "version" in card_updates else {}  # small nets: the version only
    if evaluator.prune is not None:
        evaluator.prune.save(folder / "net.prune.npz", role="pruning", **stamp)
    if evaluator.root is not None:
        evaluator.root.save(folder / "net.root.npz", role="root", **stamp)
    return folder


def keep_refused(evaluator: Evaluator, folder: Path, **card_updates) -> Path:
    """Replace the candidate kept in ``folder`` by ``evaluator`` (written beside it first,
    then renamed into place), so that a refused candidate can still be measured."""
    folder = Path(folder)
    fresh = folder.with_name(f".{folder.name}.{os.getpid()}")
    shutil.rmtree(fresh, ignore_errors=True)
    fresh.mkdir(parents=True)
    write_nets(evaluator, fresh, **card_updates)
    stale = folder.with_name(f".{folder.name}.old.{os.getpid()}")
    if folder.exists():
        folder.rename(stale)
    fresh.rename(folder)
    shutil.rmtree(stale, ignore_errors=True)
    return folder
