"""The expensive part: both choices of every differing decision rolled out, in chunks.

A decision's two post-move positions are rolled out cubelessly by our net's 0-ply
(``engine.rollout.cubeless.rollout_position``: truncated at the bearoff database,
variance reduction and pruning as set) with the same rollout seed, so game ``g`` of
both meets the same dice; the decision's loss is gnubg's choice's rolled-out equity
minus ours (positive where gnubg's 0-ply chose better), with the standard error of
that paired difference.  The rollout seed comes from the decision itself, so a
decision's figures do not depend on the chunk or the worker that judged it.

Decisions go in chunks of ``chunk`` in the collected order; each chunk is written
atomically as ``chunk-NNNN.jsonl.gz`` once all its decisions are judged, and a rerun
skips the chunks already there.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import math
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from engine.players.registry import install_players, registered_players
from engine.rollout.cubeless import rollout_agent, rollout_position
from engine.rules.position import board_from_position_id
from fibsbot.records.atomic import replacing

DECISIONS = "decisions.json.gz"
SETTINGS = "judge.json"


class DiagnosisError(ValueError):
    """A directory or file that does not hold what the diagnosis needs."""


def chunk_path(folder: Path, index: int, prefix: str = "") -> Path:
    """Chunk ``index`` of a judge (``prefix`` tells a second judge's chunks apart)."""
    return folder / f"{prefix}chunk-{index:04d}.jsonl.gz"


def write_gzip(path: Path, text: str) -> None:
    with replacing(path) as handle:
        handle.write(gzip.compress(text.encode("utf-8"), mtime=0))


def read_gzip(path: Path) -> str:
    try:
        return gzip.decompress(path.read_bytes()).decode("utf-8")
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise DiagnosisError(f"{path}: not a readable gzip file ({exc})") from exc


def read_jsonl(path: Path) -> list[dict]:
    text = read_gzip(path) if path.suffix == ".gz" else path.read_text()
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise DiagnosisError(f"{path}: line {number} is not JSON ({exc.msg})") from exc
    return rows


def load_collection(folder: Path) -> dict:
    path = folder / DECISIONS
    if not path.exists():
        raise DiagnosisError(
            f"{folder}: no {DECISIONS} (collect first: python scripts/diagnosis/diagnose_gap.py --out {folder})"
        )
    try:
        return json.loads(read_gzip(path))
    except json.JSONDecodeError as exc:
        raise DiagnosisError(f"{path}: not JSON ({exc.msg})") from exc


def rollout_seed(seed: int, key: str) -> int:
    digest = hashlib.sha256(f"{seed}:{key}".encode()).digest()
    return int.from_bytes(digest[:7], "little")


def check_settings(folder: Path, settings: dict, name: str = SETTINGS) -> None:
    """Record the judge's settings on a first run; refuse a rerun with other ones,
    whose chunks would not add up with the ones there."""
    path = folder / name
    if path.exists():
        before = json.loads(path.read_text())
        if before != settings:
            changed = ", ".join(f"{k} {before.get(k)} (now {v})" for k, v in settings.items() if before.get(k) != v)
            raise DiagnosisError(f"{folder} was judged with other settings: {changed}; use another --out")
        return
    with replacing(path) as handle:
        handle.write((json.dumps(settings, indent=1) + "\n").encode())


def judge_decision(agent, row: dict, settings: dict) -> dict:
    start = time.process_time()
    seed = rollout_seed(settings["seed"], row["key"])
    per_game = {}
    for name in ("ours", "theirs"):
        after = board_from_position_id(row[name]["after"])  # the opponent on roll
        result = rollout_position(
            after,
            settings["games"],
            agent=agent,
            seed=seed,
            varredn=settings["varredn"],
            prune=settings["prune"],
        )
        per_game[name] = -result.equities  # the mover's
    diff = per_game["theirs"] - per_game["ours"]
    games = len(diff)
    out = dict(row)
    for name in ("ours", "theirs"):
        equities = per_game[name]
        out[name] = row[name] | {
            "rollout": float(equities.mean()),
            "rollout_stderr": float(equities.std(ddof=1) / math.sqrt(games)) if games > 1 else 0.0,
        }
    return out | {
        "games": games,
        "rollout_seed": seed,
        "loss": float(diff.mean()),
        "loss_stderr": float(diff.std(ddof=1) / math.sqrt(games)) if games > 1 else 0.0,
        "cpu_seconds": round(time.process_time() - start, 3),
    }


def _judge_chunk(players: dict, folder: str, index: int, rows: list[dict], settings: dict) -> int:
    install_players(players)
    agent = rollout_agent(settings["net"])
    judged = [judge_decision(agent, row, settings) for row in rows]
    write_gzip(chunk_path(Path(folder), index), "".join(json.dumps(r) + "\n" for r in judged))
    return index


def todo_chunks(folder: Path, rows: list[dict], chunk: int, prefix: str = "") -> list[tuple[int, list[dict]]]:
    chunks = [(i, rows[first : first + chunk]) for i, first in enumerate(range(0, len(rows), chunk))]
    return [(i, part) for i, part in chunks if not chunk_path(folder, i, prefix).exists()]


def judge(folder: Path, rows: list[dict], settings: dict, workers: int, progress=None) -> int:
    """Judge every chunk not yet written; the number judged now."""
    folder.mkdir(parents=True, exist_ok=True)
    check_settings(folder, settings)
    todo = todo_chunks(folder, rows, settings["chunk"])
    players = registered_players()
    tasks = [(players, str(folder), index, part, settings) for index, part in todo]
    done = 0
    if workers > 1 and len(tasks) > 1:
        with ProcessPoolExecutor(min(workers, len(tasks))) as pool:
            for _ in pool.map(_judge_chunk, *zip(*tasks)):
                done += 1
                if progress:
                    progress(done, len(tasks))
    else:
        for task in tasks:
            _judge_chunk(*task)
            done += 1
            if progress:
                progress(done, len(tasks))
    return done


def judged_rows(folder: Path, prefix: str = "") -> list[dict]:
    rows = []
    for path in sorted(folder.glob(f"{prefix}chunk-*.jsonl.gz")):
        rows.extend(read_jsonl(path))
    return rows


def mean_cpu_seconds(rows: list[dict]) -> float:
    return float(np.mean([r["cpu_seconds"] for r in rows])) if rows else float("nan")
