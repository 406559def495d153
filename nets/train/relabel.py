"""Harvested positions relabelled by a labeller (``fibsbot train relabel``).

A net trained on its own 2-ply labels converges to a fixed point that keeps the
net's systematic errors: measured on harvest 5, both the 0-ply outputs and the
2-ply labels of its positions rate the gammons of the side that just moved about
0.025 lower than rollouts of the same positions do.  Labels from outside the
net's own search (rollouts, a stronger engine: ``nets.train.labellers``) bring in what
no search of the net can.

The positions are taken in harvest order, so the sibling candidates of a decision
mostly fall in one chunk and share their dice when the labeller rolls dice
(common random numbers: their differences are less noisy than their values).
Every chunk has its own seed, so no luck is shared across the whole set.  Chunk
files are written atomically; a chunk depends only on its positions, the seed and
the labeller, so a killed run resumes where it stopped, with any number of workers.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from engine.rollout.parallel import map_chunks
from nets.train.harvest import chunk_path, load_harvest
from nets.train.labellers import parse_labeller

_labellers: dict = {}


def _labeller(spec: str, threads: int):
    key = (spec, threads)
    return _labellers.get(key) or _labellers.setdefault(key, parse_labeller(spec, threads))


def _relabel_chunk(spec: str, boards: np.ndarray, seed: int, out_dir: str, first: int, threads: int = 1) -> int:
    labels = _labeller(spec, threads).label(boards, seed)
    path = chunk_path(Path(out_dir), first)
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(
        tmp,
        boards=boards,
        labels=labels,
        positions=np.array([first, len(boards)]),
        labeller=np.array(spec),
        seed=np.array(seed),
    )
    os.replace(tmp, path)
    return len(boards)


def chunk_seed(seed: int, first: int) -> int:
    return seed * 1_000_003 + first


def relabel(
    labeller: str,
    src: str | Path,
    out_dir: str | Path,
    *,
    positions: int | None = None,
    seed: int = 1,
    chunk_positions: int = 64,
    workers: int = 1,
    threads: int = 1,
    ray_address: str | None = None,
    progress=None,
) -> int:
    """Relabel the first ``positions`` boards of the harvest directory ``src`` (all of
    them when None) into ``out_dir`` with the labeller spec ``labeller``, skipping
    chunks already there; returns the number of positions in the finished chunks."""
    parse_labeller(labeller).require()  # a bad spec or a missing engine fails here, before any work
    if chunk_positions < 1:
        raise ValueError("a chunk needs at least one position")
    boards, _ = load_harvest(src)
    if positions is not None:
        boards = boards[:positions]
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    todo = [first for first in range(0, len(boards), chunk_positions) if not chunk_path(out_dir, first).exists()]
    step = max(1, workers) * 16  # a batch per pool: each pool start reloads the labeller
    for i in range(0, len(todo), step):
        tasks = [
            (labeller, boards[first : first + chunk_positions], chunk_seed(seed, first), str(out_dir), first, threads)
            for first in todo[i : i + step]
        ]
        map_chunks(_relabel_chunk, tasks, workers=workers, ray_address=ray_address)
        if progress:
            progress(min(i + step, len(todo)), len(todo))
    return len(load_harvest(out_dir)[0])
