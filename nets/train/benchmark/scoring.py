"""A benchmark of checker and cube decisions, in the spirit of gnubg's training benchmarks.

A set is a gzip file of JSON lines.  An optional first line ``{"kind": "meta", ...}``
says how it was made.  Checker decisions list every distinct legal result of the roll
with its label equity (cubeless money, for the mover) and the ply it was judged at,
best first (and, since format 2, the labeller level that judged it: a set
labelled by a labeller re-scores a few candidates deeply, see
``nets.train.benchmark.labelling``); cube decisions carry the labeller's five cubeless probabilities of the
side on roll, before the roll, and a match state (Match ID, side on roll = player 0)::

    {"kind": "move", "class": "contact", "position_id": ..., "dice": [3, 1],
     "source": "selfplay", "moves": [{"position_id": RESULT_ID, "equity": 0.21, "ply": 2}, ...]}
    {"kind": "cube", "class": "race", "position_id": ..., "match_id": ..., "probs": [5 floats],
     "source": "arena"}

Position IDs are gnubg's: the decision's ID has the player on roll in row 0 of
``board_from_position_id``, a result's ID has the opponent on roll (as ``fibsbot
moves`` and ``fibsbot hint`` write them).

``score`` plays a player through the set: the move error of a decision is the best
listed equity minus that of the player's result, and the cube error is the equity
(by the label's cubeful equities) given up by the player's own double/no double and
take/drop answers, as gnubg's benchmark measures cube errors.  Players: our nets
at a ply (``net:NAME@PLY``), ``pubeval`` (checker play only), ``gnubg0``, gnubg's
0-ply through the ``gnubg_nn`` package, and ``bgsage@PLY``, the Open Sage engine
(offline comparison only).
"""

from __future__ import annotations

import gzip
import json
import math
from collections.abc import Iterable
from pathlib import Path
from typing import Literal, Protocol

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from engine.cube.decision import cube_decision, cube_life
from engine.rules.ids import board_from_position_id, match_state_from_id, position_id

CLASSES = ("contact", "crashed", "race")
FORMAT_VERSION = 2  # 2: a move's ``by`` (the level that judged it) and depths up to 3
SHIPPED_SET = Path(__file__).resolve().parents[3] / "bench" / "benchmark-sage3.jsonl.gz"


class BenchmarkError(ValueError):
    """A benchmark file, record or player that cannot be used."""


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, populate_by_name=True, extra="forbid")


class MoveOption(_Record):
    position_id: str = Field(min_length=14, max_length=14)
    equity: float
    ply: int = Field(ge=0, le=3)  # depth of the figure in gnubg's plies (a rollout counts as 3)
    by: str | None = None  # the labeller level that judged it (absent in sets labelled by one search)


class MoveRecord(_Record):
    kind: Literal["move"] = "move"
    cls: Literal["contact", "crashed", "race"] = Field(alias="class")
    position_id: str = Field(min_length=14, max_length=14)
    dice: tuple[int, int]
    source: str = "selfplay"
    moves: tuple[MoveOption, ...] = Field(min_length=2)

    @field_validator("dice")
    @classmethod
    def _dice_in_range(cls, dice):
        if not all(1 <= d <= 6 for d in dice):
            raise ValueError(f"dice {list(dice)} must be 1..6")
        return dice

    @model_validator(mode="after")
    def _best_first(self):
        if len({m.position_id for m in self.moves}) != len(self.moves):
            raise ValueError("a result is listed twice")
        if self.moves[0].ply < max(m.ply for m in self.moves):
            raise ValueError("the first (best) move must be judged at the deepest ply")
        return self

    @property
    def best_equity(self) -> float:
        return self.moves[0].equity

    def option_of(self, result_id: str) -> MoveOption:
        for option in self.moves:
            if option.position_id == result_id:
                return option
        raise BenchmarkError(
            f"{self.position_id} dice {self.dice}: result {result_id} is not among the {len(self.moves)} listed moves"
        )


class CubeRecord(_Record):
    kind: Literal["cube"] = "cube"
    cls: Literal["contact", "crashed", "race"] = Field(alias="class")
    position_id: str = Field(min_length=14, max_length=14)
    match_id: str = Field(min_length=12, max_length=12)
    probs: tuple[float, float, float, float, float]
    source: str = "selfplay"

    @field_validator("probs")
    @classmethod
    def _probabilities(cls, probs):
        if not all(math.isfinite(p) and -1e-6 <= p <= 1 + 1e-6 for p in probs):
            raise ValueError(f"probabilities {list(probs)} must lie in 0..1")
        return probs


class Benchmark(BaseModel):
    model_config = ConfigDict(frozen=True)

    meta: dict = Field(default_factory=dict)
    moves: tuple[MoveRecord, ...] = ()
    cubes: tuple[CubeRecord, ...] = ()

    def limited(self, limit: int | None) -> Benchmark:
        """The first ``limit`` checker decisions and the first ``limit`` cube records."""
        if limit is None:
            return self
        return Benchmark(meta=self.meta, moves=self.moves[:limit], cubes=self.cubes[:limit])


# ---------------------------------------------------------------- reading and writing


def _open(path: Path, mode: str):
    return gzip.open(path, mode + "t", encoding="utf-8") if path.suffix == ".gz" else open(path, mode, encoding="utf-8")


def record_json(record: _Record) -> str:
    return json.dumps(record.model_dump(by_alias=True, mode="json", exclude_none=True), separators=(",", ":"))


def write_benchmark(path: str | Path, benchmark: Benchmark) -> Path:
    """Write a set (gzip when the name ends in ``.gz``), meta line first."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _open(path, "w") as out:
        out.write(json.dumps({"kind": "meta", **benchmark.meta}, separators=(",", ":")) + "\n")
        for record in (*benchmark.moves, *benchmark.cubes):
            out.write(record_json(record) + "\n")
    return path


def parse_line(line: str) -> MoveRecord | CubeRecord | dict:
    data = json.loads(line)
    if not isinstance(data, dict):
        raise ValueError("a record must be a JSON object")
    kind = data.get("kind")
    if kind == "move":
        return MoveRecord.model_validate(data)
    if kind == "cube":
        return CubeRecord.model_validate(data)
    if kind == "meta":
        return {k: v for k, v in data.items() if k != "kind"}
    raise ValueError(f"unknown kind {kind!r} (move, cube or meta)")


def read_benchmark(path: str | Path) -> Benchmark:
    path = Path(path)
    if not path.exists():
        raise BenchmarkError(f"no benchmark file {path}")
    meta: dict = {}
    moves: list[MoveRecord] = []
    cubes: list[CubeRecord] = []
    try:
        with _open(path, "r") as stream:
            for lineno, line in enumerate(stream, 1):
                if not line.strip():
                    continue
                try:
                    record = parse_line(line)
                except (ValueError, ValidationError) as exc:
                    raise BenchmarkError(f"{path} line {lineno}: {_short(exc)}") from exc
                if isinstance(record, dict):
                    version = record.get("format", FORMAT_VERSION)
                    if not isinstance(version, int) or version > FORMAT_VERSION:
                        raise BenchmarkError(
                            f"{path} line {lineno}: format {version!r} is newer than this reader's ({FORMAT_VERSION})"
                        )
                    meta = record
                elif isinstance(record, MoveRecord):
                    moves.append(record)
                else:
                    cubes.append(record)
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise BenchmarkError(f"{path}: cannot be read ({exc})") from exc
    return Benchmark(meta=meta, moves=tuple(moves), cubes=tuple(cubes))


def _short(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        return f"{where}: {first['msg']}" if where else first["msg"]
    return str(exc)


# ---------------------------------------------------------------- scoring


class BenchmarkPlayer(Protocol):
    """What ``score`` needs of a player."""

    name: str

    def result(self, board: np.ndarray, d1: int, d2: int) -> np.ndarray:
        """The board after its move (mover still in row 0)."""

    def cube_probs(self, board: np.ndarray) -> np.ndarray | None:
        """Its five probabilities for the side on roll before the roll (None: no cube play)."""


def move_outcome(record: MoveRecord, result: np.ndarray) -> tuple[float, bool]:
    """(equity given up by playing to ``result``, mover in row 0; whether that move's
    figure comes from a lower ply than the best's).  The loss is never below 0: a move
    the filters left at a lower ply can show a figure above the best's deeper one."""
    option = record.option_of(position_id(np.ascontiguousarray(result[::-1])))
    return max(0.0, record.best_equity - option.equity), option.ply < record.moves[0].ply


def move_loss(record: MoveRecord, result: np.ndarray) -> float:
    return move_outcome(record, result)[0]


def cube_losses(record: CubeRecord, player_probs) -> tuple[float, float]:
    """(doubler's loss, taker's loss) of deciding with ``player_probs`` instead of the
    label's, both valued with the label's cubeful equities (the doubler's, in units of
    the present cube; the taker's loss is the same number from the other side)."""
    board = board_from_position_id(record.position_id)
    state = match_state_from_id(record.match_id)
    life = cube_life(board)
    label = cube_decision(np.clip(record.probs, 0.0, 1.0), state, cube_life=life)
    mine = cube_decision(np.clip(np.asarray(player_probs, np.float64), 0.0, 1.0), state, cube_life=life)
    eq = label.equities
    after_double = min(eq["double_take"], eq["double_drop"])  # the taker answers correctly
    best = max(eq["no_double"], after_double)
    double_loss = best - (after_double if mine.double else eq["no_double"])
    take_loss = abs(eq["double_take"] - eq["double_drop"]) if mine.take != label.take else 0.0
    return double_loss, take_loss


def _summary(losses: list[float], shallow: list[bool] | None = None) -> dict:
    n = len(losses)
    if n == 0:
        return {"n": 0, "error": None, "stderr": None, "wrong": None} | (
            {"shallow": None} if shallow is not None else {}
        )
    values = np.asarray(losses) * 1000.0
    stderr = float(values.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0
    out = {"n": n, "error": float(values.mean()), "stderr": stderr, "wrong": float(np.mean(values > 0))}
    if shallow is not None:  # share of choices judged at a lower ply than the best (filter effect)
        out["shallow"] = float(np.mean(shallow))
    return out


def move_outcomes(player: BenchmarkPlayer, records: Iterable[MoveRecord]) -> list[tuple[float, bool]]:
    out = []
    for record in records:
        board = board_from_position_id(record.position_id)
        out.append(move_outcome(record, player.result(board, *record.dice)))
    return out


def cube_loss_pairs(player: BenchmarkPlayer, records: Iterable[CubeRecord]) -> list[tuple[float, float]] | None:
    """Losses per cube record; None when the player makes no cube decisions."""
    probs_of: dict[str, np.ndarray | None] = {}
    out = []
    for record in records:
        if record.position_id not in probs_of:
            probs_of[record.position_id] = player.cube_probs(board_from_position_id(record.position_id))
        probs = probs_of[record.position_id]
        if probs is None:
            return None
        out.append(cube_losses(record, probs))
    return out


def summarise(
    name: str, benchmark: Benchmark, outcomes: list[tuple[float, bool]], pairs: list[tuple[float, float]] | None
) -> dict:
    """Per-class and overall move errors (x1000) and the cube error of one player."""
    groups = {c: [o for r, o in zip(benchmark.moves, outcomes) if r.cls == c] for c in CLASSES}
    groups["overall"] = outcomes
    result = {
        "player": name,
        "labels": benchmark.meta.get("labeller", "unknown"),
        "moves": {c: _summary([loss for loss, _ in v], [s for _, s in v]) for c, v in groups.items()},
    }
    if pairs is None or not benchmark.cubes:
        result["cube"] = None
        return result
    doubles = [d for d, _ in pairs]
    takes = [t for _, t in pairs]
    total = _summary([d + t for d, t in pairs])
    result["cube"] = {
        "positions": len({r.position_id for r in benchmark.cubes}),
        "decisions": len(pairs),
        "states": len({r.match_id for r in benchmark.cubes}),
        "error": total["error"],
        "stderr": total["stderr"],
        "double_error": _summary(doubles)["error"],
        "take_error": _summary(takes)["error"],
        "wrong_doubles": _summary(doubles)["wrong"],
        "wrong_takes": _summary(takes)["wrong"],
    }
    return result


def score(player: BenchmarkPlayer, benchmark: Benchmark) -> dict:
    """Move error rates (mean equity loss per decision x 1000) per class and overall,
    with standard errors, counts, the share of decisions with any loss ("wrong") and
    of choices whose figure comes from a lower ply than the best's ("shallow");
    and the cube error (x1000 per cube record, double and take answers summed)."""
    return summarise(
        player.name, benchmark, move_outcomes(player, benchmark.moves), cube_loss_pairs(player, benchmark.cubes)
    )


def paired_difference(
    benchmark: Benchmark,
    first: list[tuple[float, bool]],
    second: list[tuple[float, bool]],
    first_pairs: list[tuple[float, float]] | None,
    second_pairs: list[tuple[float, float]] | None,
) -> dict:
    """The first player's error minus the second's on the same decisions (x1000), per
    class, overall and on the cube: the mean difference, its standard error over the
    decisions (paired, so the set's own spread cancels), and in how many the two lose
    different amounts (only those carry the difference)."""

    def summary(a: list[float], b: list[float]) -> dict:
        delta = (np.asarray(a) - np.asarray(b)) * 1000.0
        n = len(delta)
        if n == 0:
            return {"n": 0, "difference": None, "stderr": None, "differ": 0}
        stderr = float(delta.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0
        return {"n": n, "difference": float(delta.mean()), "stderr": stderr, "differ": int(np.sum(delta != 0))}

    out = {}
    for cls in (*CLASSES, "overall"):
        rows = [i for i, r in enumerate(benchmark.moves) if cls == "overall" or r.cls == cls]
        out[cls] = summary([first[i][0] for i in rows], [second[i][0] for i in rows])
    if first_pairs is not None and second_pairs is not None and benchmark.cubes:
        out["cube"] = summary([d + t for d, t in first_pairs], [d + t for d, t in second_pairs])
    return out
