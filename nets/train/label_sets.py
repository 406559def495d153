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


def read_label_set(spec: str) -> tuple[np.ndarray, np.ndarray, dict]:
    """(boards, labels as float32, what the model card says of them: file, labeller key,
    positions, sources) of ``FILE.npz[:KEY]``; each array is read once."""
    path, key = _parse(spec)
    if not path.exists():
        raise LabelSetError(f"no label set {path}")
    with np.load(path) as data:
        boards = data["boards"].astype(np.int8)
        named = [k for k in data.files if k not in NOT_LABELS and _rows(data, k) == len(boards)]
        if key is None:
            if len(named) != 1:
                raise LabelSetError(f"{path} holds labels {', '.join(named)}: name one as {path}:KEY")
            key = named[0]
        parts = key.split("+")
        for part in parts:
            if part not in named:
                raise LabelSetError(f"{path} has no labels {part!r}; it has {', '.join(named)}")
        arrays = [data[part] for part in parts]
        sources = [str(s) for s in data["sources"]] if "sources" in data.files else []
    labels = (sum(array.astype(np.float32) for array in arrays) / len(arrays)).astype(np.float32)
    extent = {
        "file": path.name,
        "labels": key,
        "labeller": labeller_of(key),
        "positions": len(boards),
        "sources": sources,
    }
    return boards, labels, extent


def labeller_of(key: str) -> str:
    """The labeller spec a label array's key stands for (``sage2`` -> ``bgsage@2``)."""
    if "+" in key:
        return "mean of " + " and ".join(labeller_of(part) for part in key.split("+"))
    if key.startswith("sage") and key[4:].isdigit():
        return f"bgsage@{key[4:]} (Open Sage {key[4:]}-ply; its 1-ply is gnubg's 0-ply depth)"
    return key


def _rows(data, key: str) -> int:
    """The rows of one array of an open ``.npz``, from its header: the array is not read."""
    with data.zip.open(f"{key}.npy") as member:
        version = np.lib.format.read_magic(member)
        header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape = header(member)[0]
    return shape[0] if shape else 0


def contact_split(specs: list[str], seed: int, held_out: float = 0.1):
    """The contact positions of label sets split as ``fibsbot train fit`` splits them
    (``nets.train.supervised.fit``: the first ``held_out`` of a permutation by ``seed``
    held out): (boards, labels, held-out indices, training indices, the sets' extents)."""
    from nets.train.supervised import split_by_net

    read = [read_label_set(spec) for spec in specs]
    boards = np.concatenate([b for b, _, _ in read])
    labels = np.concatenate([lab for _, lab, _ in read])
    contact_boards, contact_labels = split_by_net(boards, labels)["contact"]
    perm = np.random.default_rng(seed).permutation(len(contact_boards))
    cut = max(1, int(round(len(contact_boards) * held_out)))
    return contact_boards, contact_labels, perm[:cut], perm[cut:], [extent for _, _, extent in read]
