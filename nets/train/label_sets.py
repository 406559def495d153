"""Committed label sets: positions with one or more labellers' figures in one file.

``FILE.npz`` holds ``boards`` (int8, N x 2 x 25, side on roll in row 0) and one
float16 array of five probabilities per labeller (``sage1`` = Open Sage 1-ply, ...),
plus ``sources`` saying where the positions came from.  ``FILE.npz:KEY`` picks a
labeller, ``FILE.npz:KEY+KEY`` the mean of several (an odd and an even ply together
cancel most of the odd ply's optimism); a file with only one label array needs no key.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

NOT_LABELS = ("boards", "sources")


class LabelSetError(ValueError):
    """A label-set spec that names no file, or no labels in it."""


def is_label_set(spec: str) -> bool:
    return spec.split(":", 1)[0].endswith(".npz")


def _parse(spec: str) -> tuple[Path, str | None]:
    path, _, key = spec.partition(":")
    return Path(path), key or None


def load_label_set(spec: str) -> tuple[np.ndarray, np.ndarray]:
    """(boards, labels as float32) of ``FILE.npz[:KEY]``."""
    path, key = _parse(spec)
    if not path.exists():
        raise LabelSetError(f"no label set {path}")
    with np.load(path) as data:
        keys = [k for k in data.files if k not in NOT_LABELS and data[k].shape[0] == data["boards"].shape[0]]
        if key is None:
            if len(keys) != 1:
                raise LabelSetError(f"{path} holds labels {', '.join(keys)}: name one as {path}:KEY")
            key = keys[0]
        parts = key.split("+")
        for part in parts:
            if part not in keys:
                raise LabelSetError(f"{path} has no labels {part!r}; it has {', '.join(keys)}")
        labels = sum(data[part].astype(np.float32) for part in parts) / len(parts)
        return data["boards"].astype(np.int8), labels.astype(np.float32)


def label_set_extent(spec: str) -> dict:
    """What the model card says of a label set: file, labeller key, positions, sources."""
    path, key = _parse(spec)
    boards, _ = load_label_set(spec)
    with np.load(path) as data:
        sources = [str(s) for s in data["sources"]] if "sources" in data.files else []
    key = key or _only_key(path)
    return {"file": path.name, "labels": key, "labeller": labeller_of(key), "positions": len(boards),
            "sources": sources}


def labeller_of(key: str) -> str:
    """The labeller spec a label array's key stands for (``sage2`` -> ``bgsage@2``)."""
    if "+" in key:
        return "mean of " + " and ".join(labeller_of(part) for part in key.split("+"))
    if key.startswith("sage") and key[4:].isdigit():
        return f"bgsage@{key[4:]} (Open Sage {key[4:]}-ply; its 1-ply is gnubg's 0-ply depth)"
    return key


def _only_key(path: Path) -> str:
    with np.load(path) as data:
        return next(k for k in data.files if k not in NOT_LABELS)
