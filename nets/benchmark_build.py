"""Building a benchmark set (``nets.benchmark``): positions from self-play and from
real protocol play, labelled by our own 2-ply search.

Checker decisions: self-play of the labelling net at 0-ply with a little exploration
(``nets.labels.selfplay_positions``), a roll drawn for each position, sampled per
class (``CLASS_SHARES``: crashed and race positions are rarer than their share, so
each class gets enough decisions to measure); plus the bot's own move decisions in
arena logs, sampled as they come (a real-life mix).  Only decisions with more than
one legal result are kept, and those whose label puts every move within
``TRIVIAL_SPREAD`` of the best are dropped (counted in the set's meta line).  Every
result is labelled as gnubg's analysis does: 0-ply for all, 1-ply and 2-ply for the
moves the filters keep, each move with the ply of its figure.

Cube decisions: positions before the roll whose 2-ply winning chance is at least
``CUBE_MIN_WIN`` (below it nobody doubles), half from arena logs (the bot's double
decisions), half from self-play, each at every state of ``CUBE_STATES`` the roller
may double in (money, and away-scores with centred and owned cubes, as gnubg's
benchmark spreads its cube checks over scores) and, for arena ones, its real score.

The same seed and sizes give the same set, however many ``workers`` label it.
"""

from __future__ import annotations

import glob
import json
import math
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import structlog

from engine.cube import may_double
from engine.ids import CENTRED, MatchState, board_from_position_id, match_id, match_state_from_id, position_id
from engine.moves import MoveBuffers, generate_moves
from engine.notation import parse_gnubg
from engine.position import Phase, classify
from nets.benchmark import FORMAT_VERSION, Benchmark, BenchmarkError, CubeRecord, MoveOption, MoveRecord

log = structlog.get_logger(__name__)

DEFAULT_LABELLER = "net:default@2"
ARENA_LOGS = "runs/*/log/*.jsonl"
SOURCES = ("selfplay", "arena")
ARENA_MOVE_SHARE = 1 / 6  # of the checker decisions, when arena logs are there
ARENA_CUBE_SHARE = 1 / 2
CLASS_SHARES = {"contact": 0.5, "crashed": 0.2, "race": 0.3}
EXPLORE = 0.05
TRIVIAL_SPREAD = 0.001
CUBE_MIN_WIN = 0.4
_POSITIONS_PER_GAME = 50  # self-play keeps about this many positions per game
_PROGRESS_EVERY = 500  # positions labelled between progress lines


def _match(length: int, away_me: int, away_them: int, cube: int = 1, owned: bool = False) -> MatchState:
    return MatchState(match_length=length, score=(length - away_me, length - away_them), cube=cube,
                      cube_owner=0 if owned else CENTRED)


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


def phase_class(board: np.ndarray) -> str:
    """The benchmark class: gnubg's contact, crashed, or race (bear-offs included)."""
    phase = classify(board)
    return {Phase.CONTACT: "contact", Phase.CRASHED: "crashed"}.get(phase, "race")


@dataclass(frozen=True)
class Candidate:
    board: np.ndarray  # side on roll (to move, or to double) in row 0
    source: str
    dice: tuple[int, int] | None = None
    state: MatchState | None = None  # an arena cube decision's real score

    @property
    def key(self) -> tuple:
        return position_id(self.board), self.dice


# ---------------------------------------------------------------- where positions come from


def selfplay_pool(agent_spec: str, games: int, seed: int) -> np.ndarray:
    """Positions before their roll from ``games`` self-play games of the net at 0-ply."""
    from engine.agent import load_agent
    from nets.labels import selfplay_positions

    return selfplay_positions(load_agent(agent_spec, ply=0), games, seed=seed, explore=EXPLORE)


def choice_count(board: np.ndarray, d1: int, d2: int, buffers: MoveBuffers) -> int:
    return generate_moves(np.ascontiguousarray(board, np.int8), d1, d2, *buffers.args())


def selfplay_move_candidates(boards: np.ndarray, rng: np.random.Generator) -> dict[str, list[Candidate]]:
    """Each position once with a random roll, shuffled, split by class; only real choices."""
    buffers = MoveBuffers()
    pools: dict[str, list[Candidate]] = {c: [] for c in CLASS_SHARES}
    seen = set()
    for i in rng.permutation(len(boards)):
        d1, d2 = (int(d) for d in rng.integers(1, 7, 2))
        candidate = Candidate(boards[i], "selfplay", (d1, d2))
        if candidate.key in seen or choice_count(boards[i], d1, d2, buffers) < 2:
            continue
        seen.add(candidate.key)
        pools[phase_class(boards[i])].append(candidate)
    return pools


def arena_decisions(pattern: str) -> tuple[list[Candidate], list[Candidate]]:
    """The bot's move and double decisions in arena logs (JSON lines, event "decision").

    The logs write each decision's Position ID with the deciding side's row first,
    the reverse of gnubg's order; which way a log writes them is checked on its
    move decisions (the logged move must be legal for the side in row 0) and applied
    to its double decisions too.
    """
    moves: list[Candidate] = []
    doubles: list[Candidate] = []
    for path in sorted(glob.glob(pattern)):
        rows = []
        with open(path, encoding="utf-8") as stream:
            for line in stream:
                if '"decision"' not in line or '"position_id"' not in line:
                    continue
                try:
                    row = json.loads(line)
                    board = board_from_position_id(row["position_id"])
                except (ValueError, KeyError):
                    continue
                if row.get("event") == "decision" and row.get("kind") in ("move", "double"):
                    rows.append((row, board))
        flip = _log_rows_reversed(rows)
        for row, board in rows:
            board = np.ascontiguousarray(board[::-1] if flip else board)
            if row["kind"] == "move" and len(row.get("dice", ())) == 2:
                moves.append(Candidate(board, "arena", (int(row["dice"][0]), int(row["dice"][1]))))
            elif row["kind"] == "double":
                state = _roller_state(row.get("match_id", ""))
                if state is not None:
                    doubles.append(Candidate(board, "arena", None, state))
    return moves, doubles


def _log_rows_reversed(rows) -> bool:
    votes = Counter()
    for row, board in rows[:400]:
        if row["kind"] != "move" or row.get("move") in (None, "(none)"):
            continue
        for flip, view in ((False, board), (True, board[::-1])):
            try:
                votes[flip] += _playable(view, parse_gnubg(row["move"], np.ascontiguousarray(view), tuple(row["dice"])))
            except (ValueError, KeyError, TypeError):
                pass
    return votes[True] > votes[False]


def _playable(board: np.ndarray, steps) -> bool:
    """Whether the steps move row 0's own checkers to points row 1 does not block."""
    row = board[0].astype(np.int64)
    for src, dst in steps:
        col = 24 if src == 25 else src - 1
        if not 0 <= col <= 24 or row[col] <= 0 or (dst > 0 and board[1, 24 - dst] >= 2):
            return False
        row[col] -= 1
        if dst > 0:
            row[dst - 1] += 1
    return True


def _roller_state(mid: str) -> MatchState | None:
    try:
        state = match_state_from_id(mid)
    except ValueError:
        return None
    if state.on_roll == 1:  # name the roller player 0, as every cube record does
        owner = state.cube_owner if state.cube_owner == CENTRED else 1 - state.cube_owner
        state = replace(state, on_roll=0, cube_owner=owner, score=state.score[::-1])
    state = replace(state, to_decide=0, doubled=False, dice=(0, 0))
    return state if may_double(state) else None


def _unique(candidates: list[Candidate], rng: np.random.Generator) -> list[Candidate]:
    seen, out = set(), []
    for i in rng.permutation(len(candidates)):
        if candidates[i].key not in seen:
            seen.add(candidates[i].key)
            out.append(candidates[i])
    return out


# ---------------------------------------------------------------- labelling


_labellers: dict = {}


def _labeller(spec: str):
    from engine.agent import load_agent

    if spec not in _labellers:
        _labellers[spec] = load_agent(spec)
    return _labellers[spec]


def label_moves(spec: str, items: list[tuple[np.ndarray, int, int]]) -> list[list[tuple[str, float, int]]]:
    """Every result of each (board, d1, d2), best first: (result ID, equity, ply)."""
    agent = _labeller(spec)
    out = []
    for board, d1, d2 in items:
        ranked = agent.rank_moves(board, d1, d2, ply=agent.ply)
        out.append([(position_id(np.ascontiguousarray(r.board[::-1])), round(r.equity, 5), r.ply) for r in ranked])
    return out


def label_cubes(spec: str, boards: list[np.ndarray]) -> list[list[float]]:
    agent = _labeller(spec)
    return [[round(float(p), 6) for p in agent.probabilities(b, agent.ply)] for b in boards]


class Labeller:
    """Labels candidates in this process or over a pool of worker processes."""

    def __init__(self, spec: str, workers: int) -> None:
        self.spec = spec
        self.workers = workers
        self.pool = ProcessPoolExecutor(max_workers=workers) if workers > 1 else None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.pool is not None:
            self.pool.shutdown()

    def map(self, fn: Callable, items: list) -> list:
        if self.pool is None or len(items) < 2:
            return fn(self.spec, items)
        size = max(1, math.ceil(len(items) / (self.workers * 4)))
        chunks = [items[i:i + size] for i in range(0, len(items), size)]
        return [x for part in self.pool.map(fn, [self.spec] * len(chunks), chunks) for x in part]


def fill_quotas(pools: dict[str, list[Candidate]], quotas: dict[str, int], label: Callable[[list], list],
                accept: Callable[[Candidate, object], object | None]) -> tuple[dict[str, list], Counter]:
    """Label candidates in pool order until each quota holds accepted records (or the
    pool runs dry); returns the records and how many labelled candidates were refused."""
    accepted: dict[str, list] = {k: [] for k in quotas}
    refused: Counter = Counter()
    cursor = Counter()
    while True:
        batch = []
        for key, quota in quotas.items():
            short = quota - len(accepted[key])
            if short > 0:
                take = pools.get(key, [])[cursor[key]:cursor[key] + int(short * 1.25) + 4]
                cursor[key] += len(take)
                batch += [(key, c) for c in take]
        if not batch:
            return accepted, refused
        started = time.monotonic()
        labels: list = []
        for first in range(0, len(batch), _PROGRESS_EVERY):
            labels += label([c for _, c in batch[first:first + _PROGRESS_EVERY]])
            log.info("benchmark.labelling", done=len(labels), of=len(batch),
                     seconds=round(time.monotonic() - started, 1))
        for (key, candidate), labelled in zip(batch, labels):
            record = accept(candidate, labelled)
            if record is None:
                refused[key] += 1
            elif len(accepted[key]) < quotas[key]:
                accepted[key].append(record)
        log.info("benchmark.labelled", positions=len(batch), seconds=round(time.monotonic() - started, 1),
                 accepted={k: len(v) for k, v in accepted.items()}, wanted=quotas)


def move_record(candidate: Candidate, labelled) -> MoveRecord | None:
    equities = [e for _, e, _ in labelled]
    if len(labelled) < 2 or max(equities) - min(equities) < TRIVIAL_SPREAD:
        return None
    return MoveRecord(cls=phase_class(candidate.board), position_id=position_id(candidate.board),
                      dice=candidate.dice, source=candidate.source,
                      moves=tuple(MoveOption(position_id=r, equity=e, ply=p) for r, e, p in labelled))


def cube_records(candidate: Candidate, probs) -> list[CubeRecord] | None:
    if probs[0] < CUBE_MIN_WIN:
        return None
    states = [s for _, s in CUBE_STATES]
    if candidate.state is not None and candidate.state not in states:
        states.append(candidate.state)
    pid, cls = position_id(candidate.board), phase_class(candidate.board)
    return [CubeRecord(cls=cls, position_id=pid, match_id=match_id(s), probs=tuple(probs), source=candidate.source)
            for s in states if may_double(s)]


# ---------------------------------------------------------------- the whole set


def _split(total: int, shares: dict[str, float]) -> dict[str, int]:
    counts = {k: int(total * v) for k, v in shares.items()}
    first = next(iter(counts))
    counts[first] += total - sum(counts.values())
    return counts


def build_benchmark(agent_spec: str = DEFAULT_LABELLER, n_moves: int = 6000, n_cube: int = 400, seed: int = 1,
                    sources: Sequence[str] = SOURCES, workers: int = 1, arena_logs: str = ARENA_LOGS) -> Benchmark:
    """A labelled set of ``n_moves`` checker decisions and ``n_cube`` cube positions
    (each at several scores); see the module docstring for how they are chosen."""
    unknown = set(sources) - set(SOURCES)
    if unknown or not sources:
        raise BenchmarkError(f"sources must be among {', '.join(SOURCES)}, got {list(sources)}")
    rng = np.random.default_rng(seed)
    arena_moves, arena_doubles = arena_decisions(arena_logs) if "arena" in sources else ([], [])
    if "arena" in sources and not arena_moves:
        log.warning("benchmark.no_arena_logs", pattern=arena_logs)
    buffers = MoveBuffers()
    move_pools = {"arena": _unique([c for c in arena_moves if choice_count(c.board, *c.dice, buffers) > 1], rng)}
    n_arena = min(len(move_pools["arena"]), round(n_moves * ARENA_MOVE_SHARE)) if arena_moves else 0
    n_selfplay = n_moves - n_arena if "selfplay" in sources else 0
    # a pool about 12 times the need, so the rarest class (crashed, ~8% of positions) fills its share
    games = max(20, math.ceil(12 * max(n_selfplay, n_cube) / _POSITIONS_PER_GAME))
    boards = selfplay_pool(agent_spec, games, seed) if "selfplay" in sources else np.zeros((0, 2, 25), np.int8)
    taken = {c.key for c in move_pools["arena"]}  # a decision met in both sources counts once
    move_pools.update({k: [c for c in pool if c.key not in taken]
                       for k, pool in selfplay_move_candidates(boards, rng).items()})
    quotas = {"arena": n_arena, **_split(n_selfplay, CLASS_SHARES)}

    cube_pools = {"arena": _unique(arena_doubles, rng)}
    taken = {c.key for c in cube_pools["arena"]}
    cube_pools["selfplay"] = [c for c in _unique([Candidate(b, "selfplay") for b in boards], rng) if c.key not in taken]
    n_cube_arena = min(len(cube_pools["arena"]), round(n_cube * ARENA_CUBE_SHARE)) if "arena" in sources else 0
    cube_quotas = {"arena": n_cube_arena, "selfplay": n_cube - n_cube_arena if "selfplay" in sources else 0}

    with Labeller(agent_spec, workers) as labeller:
        moves, dropped = fill_quotas(
            move_pools, quotas, lambda cs: labeller.map(label_moves, [(c.board, *c.dice) for c in cs]), move_record)
        cubes, low = fill_quotas(cube_pools, cube_quotas, lambda cs: labeller.map(label_cubes, [c.board for c in cs]),
                                 cube_records)
    move_list = [r for key in quotas for r in moves[key]]
    cube_list = [r for key in cube_quotas for group in cubes[key] for r in group]
    meta = _meta(agent_spec, seed, sources, games, move_list, cube_list, dropped, low)
    return Benchmark(meta=meta, moves=tuple(move_list), cubes=tuple(cube_list))


def _meta(spec, seed, sources, games, moves, cubes, dropped, low) -> dict:
    from engine.agent import DEFAULT_FILTERS

    return {
        "format": FORMAT_VERSION, "labeller": spec, "net": _net_card(spec), "filters": list(DEFAULT_FILTERS),
        "equity": "cubeless money equity of the mover", "seed": seed, "sources": list(sources),
        "selfplay_games": games, "explore": EXPLORE, "created": date.today().isoformat(),
        "moves": dict(Counter(f"{r.source}/{r.cls}" for r in moves)),
        "dropped_trivial": dict(dropped), "trivial_spread": TRIVIAL_SPREAD,
        "cube_positions": len({r.position_id for r in cubes}), "cube_records": len(cubes),
        "cube_min_win": CUBE_MIN_WIN, "cube_below_min_win": dict(low),
        "cube_states": [name for name, _ in CUBE_STATES] + ["arena: the real score"],
    }


def _net_card(spec: str) -> dict:
    from nets.player import resolve_net_path

    name = spec[4:] if spec.startswith("net:") else spec
    path = resolve_net_path(name.partition("@")[0])
    card = path.with_suffix(".json")
    info = {"file": path.name}
    if card.exists():
        data = json.loads(card.read_text())
        info.update({k: data[k] for k in ("name", "arch", "weights_sha256") if k in data})
    return info


def main_build(out: str | Path, **kwargs) -> Benchmark:
    from nets.benchmark import write_benchmark

    started = time.monotonic()
    benchmark = build_benchmark(**kwargs)
    write_benchmark(out, benchmark)
    log.info("benchmark.written", path=str(out), moves=len(benchmark.moves), cube_records=len(benchmark.cubes),
             seconds=round(time.monotonic() - started, 1))
    return benchmark
