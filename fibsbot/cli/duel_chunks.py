"""A duel played in chunks of duplicate pairs, each saved as it finishes, so that a
killed duel goes on from where it stopped and gives the same points as one run.

Pair ``p`` of a duel always gets the dice of ``game_seed(seed, p)``, so a chunk is fully
named by its first pair and its size; the folder's ``duel.json`` holds the players, the
seed and the chunk size, and a rerun with other settings is refused rather than mixed in.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import numpy as np

from engine.players.registry import install_players, make_player, registered_players
from engine.rollout.duel import DuelResult, play_pairs, summarize


class ChunkFolderMismatch(ValueError):
    """The folder holds chunks of another duel."""


def _chunk_path(folder: Path, first_pair: int, n_pairs: int) -> Path:
    return folder / f"pairs-{first_pair:08d}-{n_pairs}.npy"


def _claim_folder(folder: Path, settings: dict) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    meta = folder / "duel.json"
    if meta.exists():
        held = json.loads(meta.read_text())
        if held != settings:
            raise ChunkFolderMismatch(
                f"{folder} holds chunks of another duel ({held}); this one is {settings}: use another folder"
            )
        return
    tmp = meta.with_suffix(".tmp")
    tmp.write_text(json.dumps(settings, sort_keys=True) + "\n")
    os.replace(tmp, meta)


def _save(path: Path, points: np.ndarray) -> None:
    tmp = path.with_name(path.name + ".tmp.npy")
    np.save(tmp, points)
    os.replace(tmp, path)  # a kill mid-write leaves no half chunk under the real name


def run_chunked_duel(
    spec_a: str,
    spec_b: str,
    games: int,
    seed: int,
    workers: int,
    folder: Path,
    chunk_pairs: int,
    on_chunk: Callable[[int, int], None] | None = None,
) -> tuple[DuelResult, int]:
    """Play the pairs whose chunks ``folder`` lacks; return the whole duel's result and
    how many pairs this call played (games/s counts those alone)."""
    make_player(spec_a), make_player(spec_b)  # a bad spec fails before the folder is claimed
    n_pairs = (games + 1) // 2
    _claim_folder(folder, {"a": spec_a, "b": spec_b, "seed": seed, "chunk_pairs": chunk_pairs})
    chunks = [(first, min(chunk_pairs, n_pairs - first)) for first in range(0, n_pairs, chunk_pairs)]
    missing = [c for c in chunks if not _chunk_path(folder, *c).exists()]
    played = sum(n for _, n in missing)
    start = time.perf_counter()
    if missing:
        play_pairs(spec_a, spec_b, seed, n_pairs, 1)  # compile outside the timed region
        start = time.perf_counter()
        done = len(chunks) - len(missing)
        if workers <= 1:
            for first, n in missing:
                _save(_chunk_path(folder, first, n), play_pairs(spec_a, spec_b, seed, first, n))
                done += 1
                if on_chunk:
                    on_chunk(done, len(chunks))
        else:
            with ProcessPoolExecutor(
                max_workers=workers, initializer=install_players, initargs=(registered_players(),)
            ) as pool:
                futures = {pool.submit(play_pairs, spec_a, spec_b, seed, first, n): (first, n) for first, n in missing}
                for future in as_completed(futures):
                    _save(_chunk_path(folder, *futures[future]), future.result())
                    done += 1
                    if on_chunk:
                        on_chunk(done, len(chunks))
    seconds = time.perf_counter() - start
    points = np.concatenate([np.load(_chunk_path(folder, *c)) for c in chunks])
    result = summarize(spec_a, spec_b, points, seconds, seed)
    result.games_per_s = 2 * played / seconds if played and seconds > 0 else 0.0
    return result, played
