"""The retrain's labelled positions on disk (``DATA/training/set.npz``), and how many of them
a verdict has seen (``DATA/training/judged.json``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from engine.rules.ids import position_key

MAX_TRAINING_POSITIONS = 1_000_000  # about 70 bytes a position in set.npz


class TrainingSet:
    """Labelled positions on disk, unique by position; grows with every retrain up to
    ``max_positions``, past which the oldest go first (a year of weekly retrains adds about
    700,000, so the default cap holds years of them in about 70 MB)."""

    def __init__(self, path: Path, max_positions: int = MAX_TRAINING_POSITIONS) -> None:
        self.path = Path(path)
        self.max_positions = max_positions
        if self.path.exists():
            with np.load(self.path) as data:
                self.boards, self.labels = data["boards"], data["labels"]
        else:
            self.boards = np.zeros((0, 2, 25), np.int8)
            self.labels = np.zeros((0, 5), np.float32)
        self._keys = {position_key(b) for b in self.boards}

    def unseen(self, boards: list[np.ndarray]) -> np.ndarray:
        fresh, keys = [], set()
        for board in boards:
            key = position_key(board)
            if key not in self._keys and key not in keys:
                keys.add(key)
                fresh.append(board)
        return np.array(fresh, dtype=np.int8).reshape(-1, 2, 25)

    def add(self, boards: np.ndarray, labels: np.ndarray) -> int:
        """Add labelled positions and save; returns how many of the oldest were dropped for the cap."""
        self.boards = np.concatenate([self.boards, boards])
        self.labels = np.concatenate([self.labels, labels.astype(np.float32)])
        dropped = max(0, len(self.boards) - self.max_positions)
        if dropped:
            self.boards, self.labels = self.boards[dropped:], self.labels[dropped:]
            self._keys = {position_key(b) for b in self.boards}
        else:
            self._keys.update(position_key(b) for b in boards)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp.npz")
        np.savez_compressed(tmp, boards=self.boards, labels=self.labels)
        tmp.replace(self.path)
        return dropped


JUDGED_FILE = "judged.json"


def judged_positions(data_dir: Path, present: int) -> int:
    """How many positions of the training set a retrain has trained and judged a candidate
    on.  A retrain killed after labelling has added positions no verdict has seen yet, so
    the next one trains on them instead of finding "nothing new".  Data dirs from before
    this record count their whole set as judged where a retrain reported at all."""
    training = Path(data_dir) / "training"
    try:
        return int(json.loads((training / JUDGED_FILE).read_text(encoding="utf-8"))["positions"])
    except FileNotFoundError:
        return present if (training / "last_report.json").exists() else 0
    except (ValueError, KeyError, TypeError):
        return 0


def mark_judged(data_dir: Path, positions: int) -> None:
    path = Path(data_dir) / "training" / JUDGED_FILE
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"positions": positions}), encoding="utf-8")
    tmp.replace(path)
