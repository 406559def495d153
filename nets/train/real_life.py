"""The real-life benchmark: the checker decisions the bot met in its logged matches, labelled deeply.

The shipped benchmark is made of self-play positions; what the bot must get right is
what its opponents lead it into.  Every move decision the daemon logs (``DATA/log``,
event ``decision``; the training queue is a subset of them) in the benchmark's share is a
candidate: one decision in five, by a hash of the position and roll (``held_out``),
which retrain never trains on.  Each retrain labels up to ``max_new`` of them not in
the benchmark yet, as the shipped benchmark's are (``nets.train.benchmark.labelling``:
our search's and the labeller's favourite moves re-scored by the labeller, rollouts by
default), and writes the next
version, ``DATA/benchmarks/real-life-vN.jsonl.gz``: the previous version's records and
the new ones, so a version never loses a decision and older versions stay to compare
with (the newest ``KEEP_VERSIONS``).  The labels of every decision ever labelled are kept in
``real-life.labels.jsonl`` beside them, so an interrupted update resumes where it
stopped.  Cube decisions are not in it: the gate judges checker play.
"""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import structlog

from engine.rules.ids import position_id
from engine.rules.moves import MoveBuffers
from nets.train.benchmark.build import Labeller, fill_quotas, move_record
from nets.train.benchmark.journal import LabelJournal
from nets.train.benchmark.labelling import DEFAULT_SEARCH, LabelSetup, label_moves
from nets.train.benchmark.scoring import FORMAT_VERSION, Benchmark, read_benchmark, write_benchmark
from nets.train.benchmark.sources import Candidate, arena_decisions, choice_count, unique_candidates

log = structlog.get_logger("nets.train.real_life")

DIRECTORY = "benchmarks"
LABELS_FILE = "real-life.labels.jsonl"
KEEP_VERSIONS = 8  # the newest versions kept: each holds every earlier decision
# 36 games a candidate, then 324 more on fresh dice for the best three still within 0.06 of
# the best (``nets.train.benchmark.labelling.look_again``): with 36 games alone the
# largest losses on the benchmark were mostly the rollouts' noise (118 x1000 on the ten
# largest, 39 when rolled out again); 14 CPU seconds a decision instead of 2.6
REAL_LIFE_LABELLER = "rollout:36/324+vr+prune"
_VERSION = re.compile(r"real-life-v(\d+)\.jsonl\.gz$")


HOLD_OUT = 5  # one logged move decision in five is kept for the benchmark, never trained on


def held_out(board: np.ndarray, dice) -> bool:
    """Whether a logged move decision belongs to the benchmark's share (never to training).

    Decided by a hash of the position (either side's view: logs and queue rows may write
    it either way round) and the roll, so it is the same decision for every retrain, and a
    candidate is never judged on positions it learned from."""
    if dice is None or len(dice) != 2:
        return False
    board = np.ascontiguousarray(board, np.int8)
    key = min(position_id(board), position_id(np.ascontiguousarray(board[::-1])))
    digest = hashlib.sha256(f"{key}:{min(dice)}{max(dice)}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % HOLD_OUT == 0


def held_out_pool(data_dir: Path, rng: np.random.Generator) -> list[Candidate]:
    """The logged move decisions of ``data_dir`` in the benchmark's share with more than one
    legal result, each once, in ``rng``'s order."""
    moves, _ = arena_decisions(str(Path(data_dir) / "log" / "*.jsonl"))  # their rotated segments too
    buffers = MoveBuffers()
    return [
        c
        for c in unique_candidates(moves, rng)
        if c.dice is not None and held_out(c.board, c.dice) and choice_count(c.board, *c.dice, buffers) > 1
    ]


@dataclass(frozen=True)
class RealLifeUpdate:
    path: Path | None  # the newest version (None: no logged decision has a label yet)
    version: int
    positions: int  # move decisions in it
    added: int  # labelled by this update
    candidates: int  # logged decisions with a choice, before this update
    seconds: float


def versions(data_dir: Path) -> list[tuple[int, Path]]:
    """(version, path) of every real-life benchmark in ``data_dir``, oldest first."""
    found = []
    for path in (Path(data_dir) / DIRECTORY).glob("real-life-v*.jsonl.gz"):
        match = _VERSION.search(path.name)
        if match:
            found.append((int(match.group(1)), path))
    return sorted(found)


def prune_versions(data_dir: Path, keep: int = KEEP_VERSIONS) -> list[int]:
    """Remove all but the newest ``keep`` versions; returns the removed ones.  Every version
    holds every decision of the ones before it, so no decision is lost, only old snapshots
    (kept whole they would grow with the square of the rounds)."""
    removed = []
    for number, path in versions(data_dir)[:-keep]:
        path.unlink(missing_ok=True)
        removed.append(number)
    return removed


def latest(data_dir: Path) -> tuple[int, Path] | None:
    found = versions(data_dir)
    return found[-1] if found else None


def update_real_life(
    data_dir: Path,
    *,
    labeller: str = REAL_LIFE_LABELLER,
    max_new: int = 300,
    seed: int = 1,
    workers: int = 1,
    search: str = DEFAULT_SEARCH,
) -> RealLifeUpdate:
    """Label up to ``max_new`` logged decisions not in the newest version and write the next."""
    started = time.monotonic()
    data_dir = Path(data_dir)
    newest = latest(data_dir)
    previous = read_benchmark(newest[1]) if newest else Benchmark()
    number = newest[0] if newest else 0
    if previous.meta.get("labeller", labeller) != labeller:
        # one version holds one labeller's figures: a new labeller starts a new series
        log.info("real_life.new_labeller", previous=previous.meta.get("labeller"), labeller=labeller)
        previous = Benchmark()
    known = {(r.position_id, tuple(r.dice)) for r in previous.moves}
    rng = np.random.default_rng(seed + number)  # each version draws its own sample of what is new
    pool = [c for c in held_out_pool(data_dir, rng) if (position_id(c.board), c.dice) not in known]
    setup = LabelSetup(labeller=labeller, search=search, seed=seed)
    journal = LabelJournal(data_dir / DIRECTORY / LABELS_FILE, {**asdict(setup), "format": FORMAT_VERSION})
    with Labeller(setup, workers) as labelling:
        accepted, refused = fill_quotas(
            {"arena": pool},
            {"arena": max_new},
            journal.wrap(
                lambda cs: labelling.map(label_moves, [(c.board, *c.dice) for c in cs]),
                lambda c: f"move:{position_id(c.board)}:{c.dice[0]}{c.dice[1]}",
            ),
            move_record,
        )
    added = accepted["arena"]
    if not added:
        path = newest[1] if newest else None
        return RealLifeUpdate(path, number, len(previous.moves), 0, len(pool), round(time.monotonic() - started, 1))
    meta = {
        "format": FORMAT_VERSION,
        "set": "real-life",
        "version": number + 1,
        "labeller": labeller,
        "search": search,
        "seed": seed,
        "sources": "the daemon's logged move decisions (DATA/log/*.jsonl and their segments)",
        "added": len(added),
        "trivial_refused": int(sum(refused.values())),
    }
    benchmark = Benchmark(meta=meta, moves=(*previous.moves, *added), cubes=())
    path = data_dir / DIRECTORY / f"real-life-v{number + 1}.jsonl.gz"
    write_benchmark(path.with_name(f".real-life-v{number + 1}.tmp.jsonl.gz"), benchmark).replace(path)  # atomic
    log.info("real_life.updated", version=number + 1, positions=len(benchmark.moves), added=len(added))
    prune_versions(data_dir)
    return RealLifeUpdate(
        path, number + 1, len(benchmark.moves), len(added), len(pool), round(time.monotonic() - started, 1)
    )
