"""A retrain's labels kept as they come, so a killed retrain does not label twice.

Labelling is most of a retrain's time (half an hour of Open Sage's 3-ply on a week of
play), and the labels of a position depend only on the position, the labeller and the
seed, so ``label_in_chunks`` labels a few thousand positions at a time and writes each
chunk to ``DIR/chunk-NNNNN.npz`` (atomically) before the next.  A later call for the
same labeller and seed takes what the chunks already hold and labels only the rest;
chunks of another labeller or seed are never used.  The caller removes the directory
(``clear``) once the labels are safely in its training set.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import structlog

from engine.rules.ids import position_key

log = structlog.get_logger(__name__)

CHUNK = 2000  # positions labelled between writes
_SETUP = "setup.json"


def label_in_chunks(
    directory: Path,
    boards: np.ndarray,
    label: Callable[[np.ndarray], np.ndarray],
    setup: dict,
    chunk: int = CHUNK,
    progress: Callable[[str], None] | None = None,
) -> np.ndarray:
    """(n, 5) labels of ``boards`` by ``label``, reusing the chunks in ``directory``
    written for the same ``setup`` and writing each new chunk there as it is done."""
    directory = Path(directory)
    known = _read(directory, setup)
    boards = np.ascontiguousarray(boards, np.int8).reshape(-1, 2, 25)
    keys = [position_key(b) for b in boards]
    missing = [i for i, key in enumerate(keys) if key not in known]
    if known:
        log.info("labels.resumed", directory=str(directory), reused=len(boards) - len(missing), to_label=len(missing))
    number = len(list(directory.glob("chunk-*.npz")))
    for start in range(0, len(missing), chunk):
        part = boards[missing[start : start + chunk]]
        labels = np.asarray(label(part), np.float32).reshape(-1, 5)
        tmp = directory / f".chunk-{number:05d}.tmp.npz"
        np.savez_compressed(tmp, boards=part, labels=labels)
        tmp.replace(directory / f"chunk-{number:05d}.npz")
        number += 1
        known.update(zip((position_key(b) for b in part), labels))
        if progress:
            progress(f"  labelled {min(start + chunk, len(missing))} of {len(missing)}")
    return np.array([known[key] for key in keys], np.float32).reshape(-1, 5)


def clear(directory: Path) -> None:
    shutil.rmtree(directory, ignore_errors=True)


def _read(directory: Path, setup: dict) -> dict:
    """The labels the chunks of ``directory`` hold, by position key; a directory of
    another setup is emptied and started afresh."""
    marker = directory / _SETUP
    if marker.exists() and json.loads(marker.read_text(encoding="utf-8")) != setup:
        log.warning("labels.replaced", directory=str(directory), reason="another labeller or seed")
        clear(directory)
    directory.mkdir(parents=True, exist_ok=True)
    if not marker.exists():
        marker.write_text(json.dumps(setup), encoding="utf-8")
    known: dict = {}
    for path in sorted(directory.glob("chunk-*.npz")):
        try:
            with np.load(path) as data:
                known.update(zip((position_key(b) for b in data["boards"]), data["labels"]))
        except (OSError, ValueError, KeyError):  # a chunk cut short: label its positions again
            log.warning("labels.chunk_unreadable", path=str(path))
    return known
