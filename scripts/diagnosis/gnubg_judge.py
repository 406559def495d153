"""The second judge: GNU Backgammon's own cubeless rollouts of both choices.

Our net's rollouts lean our way: where gnubg's choice is better by a position our net
misjudges, our net's games misjudge it too.  gnubg's rollouts (its 0-ply with its
pruning nets, variance reduction, truncated at its one-sided bearoff database) lean
the other way, so a finding both judges make holds for neither's bias.

Each decision's two post-move positions (the opponent on roll) are rolled out from
the same seed, each in a gnubg process of its own, so both meet the same dice; the
mover's equity is minus the rollout's.  gnubg reports a standard error per rollout, not per game, so the loss's error is
taken as if the two rollouts were independent: common dice make the true paired
error smaller, so the figure errs on the wide side.  Chunks are written as the first
judge's are (``gnubg-chunk-NNNN.jsonl.gz`` beside them, settings in
``judge-gnubg.json``) and a rerun skips the chunks already there.
"""

from __future__ import annotations

import json
import math
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from engine.rules.ids import MatchState, match_id
from fibsbot.bench.gnubg_rollout import gnubg_available, gnubg_cubeless_rollouts
from scripts.diagnosis.judge import (
    DiagnosisError,
    check_settings,
    chunk_path,
    rollout_seed,
    todo_chunks,
    write_gzip,
)

PREFIX = "gnubg-"
SETTINGS = "judge-gnubg.json"
JUDGE = "gnubg 0-ply cubeless rollouts (its pruning nets, one-sided bearoff truncation)"
COLLECTED = ("key", "position", "dice", "count", "class", "tags", "phase")


def gnubg_seed(seed: int, key: str) -> int:
    return rollout_seed(seed, key) % 2**31


def judge_rows(rows: list[dict], settings: dict, timeout: float = 7200) -> list[dict]:
    """Both choices of each row rolled out by gnubg, as the first judge's rows."""
    money = match_id(MatchState(dice=(0, 0)))
    items = []
    for row in rows:
        seed = gnubg_seed(settings["seed"], row["key"])
        items += [(row[name]["after"], money, seed) for name in ("ours", "theirs")]
    results = gnubg_cubeless_rollouts(
        items, settings["games"], varredn=settings["varredn"], plies=settings["plies"], timeout=timeout
    )
    if results is None:
        raise DiagnosisError("gnubg's rollouts gave no figures (is gnubg installed? did it time out?)")
    judged = []
    for k, row in enumerate(rows):
        ours, theirs = results[2 * k], results[2 * k + 1]
        out = {name: row[name] for name in COLLECTED}
        for name, result in (("ours", ours), ("theirs", theirs)):
            out[name] = {field: row[name][field] for field in ("move", "after", "equity0")} | {
                "rollout": -result.equity,
                "rollout_stderr": result.stderr,
            }
        judged.append(
            out
            | {
                "judge": "gnubg",
                "games": settings["games"],
                "rollout_seed": gnubg_seed(settings["seed"], row["key"]),
                "loss": out["theirs"]["rollout"] - out["ours"]["rollout"],
                "loss_stderr": math.hypot(ours.stderr, theirs.stderr),
                "cpu_seconds": round(ours.cpu_s + theirs.cpu_s, 3),
            }
        )
    return judged


def _judge_chunk(folder: Path, index: int, rows: list[dict], settings: dict) -> int:
    judged = judge_rows(rows, settings)
    write_gzip(chunk_path(folder, index, PREFIX), "".join(json.dumps(r) + "\n" for r in judged))
    return index


def judge(folder: Path, rows: list[dict], settings: dict, workers: int, progress=None) -> int:
    """Judge every gnubg chunk not yet written (each chunk one gnubg process); the
    number judged now."""
    if not gnubg_available():
        raise DiagnosisError("the second judge needs GNU Backgammon (apt install gnubg)")
    check_settings(folder, settings, SETTINGS)
    todo = todo_chunks(folder, rows, settings["chunk"], PREFIX)
    done = 0
    with ThreadPoolExecutor(max(1, workers)) as pool:
        for _ in pool.map(lambda task: _judge_chunk(folder, *task, settings), todo):
            done += 1
            if progress:
                progress(done, len(todo))
    return done


def agreement(first: list[dict], second: list[dict]) -> dict:
    """How two judges' losses compare on the decisions both judged: each one's loss a
    differing decision (weighted by how often it came up), their paired difference
    with its standard error, and how often they name the same better choice where
    both are sure (the loss beyond two of its standard errors)."""
    by_key = {r["key"]: r for r in second}
    pairs = [(r, by_key[r["key"]]) for r in first if r["key"] in by_key]
    if len(pairs) < 2:
        return {"decisions": len(pairs)}
    weights = [a["count"] for a, _ in pairs]
    total = sum(weights)

    def weighted_mean(values):
        return sum(w * v for w, v in zip(weights, values)) / total

    a_loss = [a["loss"] for a, _ in pairs]
    b_loss = [b["loss"] for _, b in pairs]
    diff = [x - y for x, y in zip(a_loss, b_loss)]
    mean_diff = weighted_mean(diff)
    var = sum(w * (d - mean_diff) ** 2 for w, d in zip(weights, diff)) / total
    effective = total**2 / sum(w * w for w in weights)
    sure = [(a, b) for a, b in pairs if abs(a["loss"]) > 2 * a["loss_stderr"] and abs(b["loss"]) > 2 * b["loss_stderr"]]
    same_sign = sum(1 for a, b in sure if (a["loss"] > 0) == (b["loss"] > 0))
    mean_a, mean_b = weighted_mean(a_loss), weighted_mean(b_loss)
    cov = weighted_mean([(x - mean_a) * (y - mean_b) for x, y in zip(a_loss, b_loss)])
    sd_a = math.sqrt(weighted_mean([(x - mean_a) ** 2 for x in a_loss]))
    sd_b = math.sqrt(weighted_mean([(y - mean_b) ** 2 for y in b_loss]))
    return {
        "decisions": len(pairs),
        "first_x1000": 1000 * mean_a,
        "second_x1000": 1000 * mean_b,
        "difference_x1000": 1000 * mean_diff,
        "difference_stderr_x1000": 1000 * math.sqrt(var / max(effective - 1, 1)),
        "correlation": cov / (sd_a * sd_b) if sd_a > 0 and sd_b > 0 else None,
        "both_sure": len(sure),
        "both_sure_same_choice": same_sign,
    }
