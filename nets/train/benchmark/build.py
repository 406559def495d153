"""Building a benchmark set (``nets.train.benchmark.scoring``): positions from self-play and from
real protocol play (``nets.train.benchmark.sources``), labelled by a labeller of
``nets.train.labellers`` (``nets.train.benchmark.labelling``).

Checker decisions: self-play of the search net at 0-ply with a little exploration,
a roll drawn for each position, sampled per class (``CLASS_SHARES``: crashed and
race positions are rarer than their share, so each class gets enough decisions to
measure); plus the bot's own move decisions in arena logs, sampled as they come (a
real-life mix).  Only decisions with more than one legal result are kept, and those
whose labels put every move within ``TRIVIAL_SPREAD`` of the best are dropped
(counted in the set's meta line).  The candidates of each decision (the best of our
own search and of the labeller's cheap level) are re-scored at the labeller's deep
level, every other result keeps a placed cheap figure; each move records the depth
and the level of its figure.

Cube decisions: positions before the roll whose deep-level winning chance is at
least ``CUBE_MIN_WIN`` (below it nobody doubles), half from arena logs (the bot's
double decisions), half from self-play, each at every state of ``CUBE_STATES`` the
roller may double in (money, and away-scores with centred and owned cubes, as
gnubg's benchmark spreads its cube checks over scores) and, for arena ones, its real
score.

The same seed, sizes and nets give the same set, however many ``workers`` label it
and however often the build is interrupted and resumed (``nets.train.benchmark.journal``).
"""

from __future__ import annotations

import json
import math
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from datetime import date
from pathlib import Path

import numpy as np
import structlog

from engine.cube.decision import may_double
from engine.rules.ids import CENTRED, MatchState, match_id, position_id
from engine.rules.moves import MoveBuffers
from nets.train.benchmark.journal import LabelJournal, journal_path
from nets.train.benchmark.labelling import (
    DEFAULT_SEARCH,
    TOP_BY_CHEAP,
    TOP_BY_SEARCH,
    UNSCORED_RULE,
    LabelSetup,
    label_cubes,
    label_moves,
    labeller_levels,
)
from nets.train.benchmark.scoring import FORMAT_VERSION, Benchmark, BenchmarkError, CubeRecord, MoveOption, MoveRecord
from nets.train.benchmark.sources import (
    CLASS_SHARES,
    EXPLORE,
    Candidate,
    arena_decisions,
    choice_count,
    phase_class,
    selfplay_move_candidates,
    selfplay_pool,
    unique_candidates,
)
from nets.train.labellers import LabellerError, parse_labeller

__all__ = ["arena_decisions", "build_benchmark", "main_build"]

log = structlog.get_logger(__name__)

DEFAULT_LABELLER = "bgsage@3"
ARENA_LOGS = "runs/*/log/*.jsonl"
SOURCES = ("selfplay", "arena")
ARENA_MOVE_SHARE = 1 / 6  # of the checker decisions, when arena logs are there
ARENA_CUBE_SHARE = 1 / 2
TRIVIAL_SPREAD = 0.001
CUBE_MIN_WIN = 0.4
_POSITIONS_PER_GAME = 50  # self-play keeps about this many positions per game
_BATCH = 100  # decisions labelled between progress lines and journal writes


def _match(length: int, away_me: int, away_them: int, cube: int = 1, owned: bool = False) -> MatchState:
    return MatchState(
        match_length=length, score=(length - away_me, length - away_them), cube=cube, cube_owner=0 if owned else CENTRED
    )


# (description, state with the roller as player 0)
CUBE_STATES: tuple[tuple[str, MatchState], ...] = (
    ("money", MatchState(jacoby=False)),
    ("money, cube 2 owned", MatchState(jacoby=False, cube=2, cube_owner=0)),
    ("25a-25a", _match(25, 25, 25)),
    ("9a-9a", _match(9, 9, 9)),
    ("7a-7a", _match(7, 7, 7)),
    ("7a-7a, cube 2 owned", _match(7, 7, 7, 2, True)),
    ("5a-5a", _match(7, 5, 5)),
    ("5a-5a, cube 2 owned", _match(7, 5, 5, 2, True)),
    ("4a-7a", _match(7, 4, 7)),
    ("7a-4a", _match(7, 7, 4)),
    ("3a-3a", _match(7, 3, 3)),
    ("5a-3a, cube 2 owned", _match(7, 5, 3, 2, True)),
    ("2a-3a", _match(7, 2, 3)),
    ("3a-2a", _match(7, 3, 2)),
    ("2a-4a", _match(7, 2, 4)),
    ("4a-2a", _match(7, 4, 2)),
)


# ---------------------------------------------------------------- labelling


class Labeller:
    """Labels candidates in this process or over a pool of worker processes."""

    def __init__(self, setup: LabelSetup, workers: int) -> None:
        self.setup = setup
        self.workers = workers
        self.pool = ProcessPoolExecutor(max_workers=workers) if workers > 1 else None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.pool is not None:
            self.pool.shutdown()

    def map(self, fn: Callable, items: list) -> list:
        if self.pool is None or len(items) < 2:
            return fn(self.setup, items)
        size = max(1, math.ceil(len(items) / (self.workers * 4)))
        chunks = [items[i : i + size] for i in range(0, len(items), size)]
        return [x for part in self.pool.map(fn, [self.setup] * len(chunks), chunks) for x in part]


def fill_quotas(
    pools: dict[str, list[Candidate]],
    quotas: dict[str, int],
    label: Callable[[list], list],
    accept: Callable[[Candidate, object], object | None],
) -> tuple[dict[str, list], Counter]:
    """Label candidates in pool order until each quota holds accepted records (or the
    pool runs dry); returns the records and how many labelled candidates were refused."""
    accepted: dict[str, list] = {k: [] for k in quotas}
    refused: Counter = Counter()
    cursor: Counter[str] = Counter()
    while True:
        batch = []
        for key, quota in quotas.items():
            short = quota - len(accepted[key])
            if short > 0:
                take = pools.get(key, [])[cursor[key] : cursor[key] + int(short * 1.25) + 4]
                cursor[key] += len(take)
                batch += [(key, c) for c in take]
        if not batch:
            return accepted, refused
        started = time.monotonic()
        labels: list = []
        for first in range(0, len(batch), _BATCH):
            labels += label([c for _, c in batch[first : first + _BATCH]])
            log.info(
                "benchmark.labelling", done=len(labels), of=len(batch), seconds=round(time.monotonic() - started, 1)
            )
        for (key, candidate), labelled in zip(batch, labels):
            record = accept(candidate, labelled)
            if record is None:
                refused[key] += 1
            elif len(accepted[key]) < quotas[key]:
                accepted[key].append(record)
        log.info(
            "benchmark.labelled",
            positions=len(batch),
            seconds=round(time.monotonic() - started, 1),
            accepted={k: len(v) for k, v in accepted.items()},
            wanted=quotas,
        )


def move_record(candidate: Candidate, labelled) -> MoveRecord | None:
    equities = [e for _, e, _, _ in labelled]
    if len(labelled) < 2 or max(equities) - min(equities) < TRIVIAL_SPREAD:
        return None
    assert candidate.dice is not None  # a move candidate carries its roll
    # populate_by_name: `cls` fills the field aliased "class", which mypy without pydantic's plugin cannot see
    return MoveRecord(
        cls=phase_class(candidate.board),  # type: ignore[call-arg]
        position_id=position_id(candidate.board),
        dice=candidate.dice,
        source=candidate.source,
        moves=tuple(MoveOption(position_id=r, equity=e, ply=p, by=b) for r, e, p, b in labelled),
    )


def cube_records(candidate: Candidate, probs) -> list[CubeRecord] | None:
    if probs[0] < CUBE_MIN_WIN:
        return None
    states = [s for _, s in CUBE_STATES]
    if candidate.state is not None and candidate.state not in states:
        states.append(candidate.state)
    pid, cls = position_id(candidate.board), phase_class(candidate.board)
    # populate_by_name: `cls` fills the field aliased "class" (see move_record)
    return [
        CubeRecord(
            cls=cls,  # type: ignore[call-arg]
            position_id=pid,
            match_id=match_id(s),
            probs=tuple(probs),
            source=candidate.source,
        )
        for s in states
        if may_double(s)
    ]


# ---------------------------------------------------------------- the whole set


def _split(total: int, shares: dict[str, float]) -> dict[str, int]:
    counts = {k: int(total * v) for k, v in shares.items()}
    first = next(iter(counts))
    counts[first] += total - sum(counts.values())
    return counts


def build_benchmark(
    labeller: str = DEFAULT_LABELLER,
    n_moves: int = 6000,
    n_cube: int = 400,
    seed: int = 1,
    sources: Sequence[str] = SOURCES,
    workers: int = 1,
    arena_logs: str = ARENA_LOGS,
    search: str = DEFAULT_SEARCH,
    journal: Path | None = None,
) -> Benchmark:
    """A labelled set of ``n_moves`` checker decisions and ``n_cube`` cube positions
    (each at several scores); see the module docstring for how they are chosen.
    ``journal``: a file keeping the labels as they come, to resume an interrupted build."""
    unknown = set(sources) - set(SOURCES)
    if unknown or not sources:
        raise BenchmarkError(f"sources must be among {', '.join(SOURCES)}, got {list(sources)}")
    try:
        levels = labeller_levels(labeller)
        parse_labeller(labeller).require()
    except LabellerError as exc:
        raise BenchmarkError(str(exc)) from exc
    setup = LabelSetup(labeller=labeller, search=search, seed=seed)
    cards = {"labeller_card": _card(labeller), "search_net": _card(search)}  # before the nets can change on disk
    rng = np.random.default_rng(seed)
    arena_moves, arena_doubles = arena_decisions(arena_logs) if "arena" in sources else ([], [])
    if "arena" in sources and not arena_moves:
        log.warning("benchmark.no_arena_logs", pattern=arena_logs)
    buffers = MoveBuffers()
    # every arena move candidate carries its roll
    move_pools = {
        "arena": unique_candidates(
            [c for c in arena_moves if c.dice is not None and choice_count(c.board, *c.dice, buffers) > 1], rng
        )
    }
    n_arena = min(len(move_pools["arena"]), round(n_moves * ARENA_MOVE_SHARE)) if arena_moves else 0
    n_selfplay = n_moves - n_arena if "selfplay" in sources else 0
    # a pool about 12 times the need, so the rarest class (crashed, ~8% of positions) fills its share
    games = max(20, math.ceil(12 * max(n_selfplay, n_cube) / _POSITIONS_PER_GAME))
    net = search.partition("@")[0]
    boards = selfplay_pool(net, games, seed) if "selfplay" in sources else np.zeros((0, 2, 25), np.int8)
    taken = {c.key for c in move_pools["arena"]}  # a decision met in both sources counts once
    move_pools.update(
        {k: [c for c in pool if c.key not in taken] for k, pool in selfplay_move_candidates(boards, rng).items()}
    )
    quotas = {"arena": n_arena, **_split(n_selfplay, CLASS_SHARES)}

    cube_pools = {"arena": unique_candidates(arena_doubles, rng)}
    taken = {c.key for c in cube_pools["arena"]}
    cube_pools["selfplay"] = [
        c for c in unique_candidates([Candidate(b, "selfplay") for b in boards], rng) if c.key not in taken
    ]
    n_cube_arena = min(len(cube_pools["arena"]), round(n_cube * ARENA_CUBE_SHARE)) if "arena" in sources else 0
    cube_quotas = {"arena": n_cube_arena, "selfplay": n_cube - n_cube_arena if "selfplay" in sources else 0}

    setup_card = {**asdict(setup), "moves": n_moves, "cube": n_cube, "sources": list(sources), "format": FORMAT_VERSION}
    labels = LabelJournal(journal, setup_card)
    started = time.monotonic()
    with Labeller(setup, workers) as pool:
        moves, dropped = fill_quotas(
            move_pools,
            quotas,
            labels.wrap(
                lambda cs: pool.map(label_moves, [(c.board, *c.dice) for c in cs]),
                lambda c: f"move:{position_id(c.board)}:{c.dice[0]}{c.dice[1]}",
            ),
            move_record,
        )
        cubes, low = fill_quotas(
            cube_pools,
            cube_quotas,
            labels.wrap(
                lambda cs: pool.map(label_cubes, [c.board for c in cs]), lambda c: f"cube:{position_id(c.board)}"
            ),
            cube_records,
        )
    move_list = [r for key in quotas for r in moves[key]]
    cube_list = [r for key in cube_quotas for group in cubes[key] for r in group]
    meta = _meta(setup, levels, cards, sources, games, move_list, cube_list, dropped, low)
    log.info(
        "benchmark.built",
        moves=len(move_list),
        cube_records=len(cube_list),
        seconds=round(time.monotonic() - started, 1),
    )
    return Benchmark(meta=meta, moves=tuple(move_list), cubes=tuple(cube_list))


def _meta(setup: LabelSetup, levels, cards, sources, games, moves, cubes, dropped, low) -> dict:
    from engine.players.agent import DEFAULT_FILTERS

    return {
        "format": FORMAT_VERSION,
        "labeller": setup.labeller,
        "labeller_card": cards["labeller_card"],
        "levels": {
            "cheap": levels.cheap,
            "deep": levels.deep,
            "cheap_depth": levels.cheap_depth,
            "deep_depth": levels.deep_depth,
        },
        "search": setup.search,
        "search_net": cards["search_net"],
        "search_filters": list(DEFAULT_FILTERS),
        "rescored": {"top_by_search": TOP_BY_SEARCH, "top_by_cheap": TOP_BY_CHEAP},
        "unscored": UNSCORED_RULE,
        "depth": "plies counted as gnubg counts them (0: one net evaluation)",
        "rescored_moves": sum(1 for r in moves for m in r.moves if m.by == levels.deep),
        "unscored_moves": sum(1 for r in moves for m in r.moves if m.by != levels.deep),
        "equity": "cubeless money equity of the mover",
        "seed": setup.seed,
        "sources": list(sources),
        "selfplay_net": setup.search.partition("@")[0],
        "selfplay_games": games,
        "explore": EXPLORE,
        "created": date.today().isoformat(),
        "moves": dict(Counter(f"{r.source}/{r.cls}" for r in moves)),
        "dropped_trivial": dict(dropped),
        "trivial_spread": TRIVIAL_SPREAD,
        "cube_positions": len({r.position_id for r in cubes}),
        "cube_records": len(cubes),
        "cube_min_win": CUBE_MIN_WIN,
        "cube_below_min_win": dict(low),
        "cube_states": [name for name, _ in CUBE_STATES] + ["arena: the real score"],
    }


def _card(spec: str) -> dict:
    """What a spec's figures depend on: a net's file and weights checksum, or the
    labelling package and its version."""
    if spec.startswith("bgsage@"):
        from importlib.metadata import PackageNotFoundError, version

        try:
            return {"package": "bgsage", "version": version("bgsage")}
        except PackageNotFoundError:
            return {"package": "bgsage"}
    from nets.player import resolve_net_path

    if spec.startswith("rollout:"):
        games, _, net = spec[8:].partition(":")
        return {"games": int(games), "net": _card(f"net:{net or 'default'}")}
    path = resolve_net_path(spec[4:].partition("@")[0] if spec.startswith("net:") else spec.partition("@")[0])
    card = path.with_suffix(".json")
    info = {"file": path.name}
    if card.exists():
        data = json.loads(card.read_text())
        info.update({k: data[k] for k in ("name", "arch", "weights_sha256") if k in data})
    return info


def main_build(out: str | Path, resume: bool = True, **kwargs) -> Benchmark:
    """Build and write a set; with ``resume`` a journal beside ``out`` keeps the labels
    so that an interrupted build picks up where it stopped."""
    from nets.train.benchmark.scoring import write_benchmark

    started = time.monotonic()
    journal = journal_path(out) if resume else None
    benchmark = build_benchmark(journal=journal, **kwargs)
    write_benchmark(out, benchmark)
    if journal is not None:
        journal.unlink(missing_ok=True)
    log.info(
        "benchmark.written",
        path=str(out),
        moves=len(benchmark.moves),
        cube_records=len(benchmark.cubes),
        seconds=round(time.monotonic() - started, 1),
    )
    return benchmark
