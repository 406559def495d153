"""The referee's summary: each player's mean error x1000 a decision, with its standard errors.

Four groups: match checker, money checker, match cube, money cube (and all cube
decisions together).  A player's standard error is that of its mean over the
decisions (positions vary, and each error carries the rollout's noise); the judge's
standard error is the rollout noise alone, sqrt(sum of each error's squared
standard error) / decisions.  The table level is set against gnubg 1.07's 2-ply and
our plain 2-ply on the decisions both answered: the ratio of their means (its
standard error by the delta method) and the paired difference, and in match
checker play the issue's target, table - 0.8 x gnubg.
"""

from __future__ import annotations

import math

import numpy as np

from scripts.referee.judging import CHECKER_PLAYERS, CUBE_PLAYERS, GNUBG_2PLY, OUR_2PLY, TABLE

GROUPS = (
    ("match checker", "checker", ("match",)),
    ("money checker", "checker", ("money",)),
    ("match cube", "cube", ("match",)),
    ("money cube", "cube", ("money",)),
    ("all cube", "cube", ("match", "money")),
)
TARGET_RATIO = 0.8  # the bound on the table level's match checker error against gnubg 2-ply's


def _mean_se(values: np.ndarray) -> tuple[float, float]:
    if len(values) == 0:
        return math.nan, math.nan
    return float(values.mean()), float(values.std(ddof=1) / math.sqrt(len(values))) if len(values) > 1 else 0.0


def player_entry(rows: list[dict], name: str) -> dict | None:
    mine = [r for r in rows if name in r["errors"]]
    if not mine:
        return None
    errors = np.array([r["errors"][name] for r in mine])
    mean, se = _mean_se(errors)
    judge = math.sqrt(sum(r["error_stderr"][name] ** 2 for r in mine)) / len(mine)
    entry = {
        "decisions": len(mine),
        "error_x1000": 1000 * mean,
        "stderr_x1000": 1000 * se,
        "judge_stderr_x1000": 1000 * judge,
        "wrong": int(np.sum(errors > 0)),
    }
    for part in ("double", "take"):
        if all(f"{part}_errors" in r for r in mine):
            entry[f"{part}_error_x1000"] = 1000 * float(np.mean([r[f"{part}_errors"][name] for r in mine]))
    return entry


def ratio(rows: list[dict], top: str, bottom: str) -> dict | None:
    """mean(top) / mean(bottom) and mean(top - bottom), on the decisions both answered."""
    both = [r for r in rows if top in r["errors"] and bottom in r["errors"]]
    if len(both) < 2:
        return None
    a = np.array([r["errors"][top] for r in both])
    b = np.array([r["errors"][bottom] for r in both])
    n = len(both)
    diff_mean, diff_se = _mean_se(a - b)
    out = {"decisions": n, "difference_x1000": 1000 * diff_mean, "difference_stderr_x1000": 1000 * diff_se}
    if b.mean() > 0:
        r = float(a.mean() / b.mean())
        cov = np.cov(a, b, ddof=1) / n
        var = r * r * (cov[0, 0] / a.mean() ** 2 + cov[1, 1] / b.mean() ** 2 - 2 * cov[0, 1] / (a.mean() * b.mean()))
        out["ratio"], out["ratio_stderr"] = r, math.sqrt(max(var, 0.0)) if a.mean() > 0 else float("nan")
    return out


def summarise(rows: list[dict]) -> dict:
    out: dict = {"decisions": len(rows), "groups": {}}
    for label, kind, plays in GROUPS:
        group = [r for r in rows if r["kind"] == kind and r["play"] in plays]
        if not group:
            continue
        players = CHECKER_PLAYERS if kind == "checker" else CUBE_PLAYERS
        others = sorted({name for r in group for name in r["errors"]} - set(players))
        players = (*players, *others)  # players judged for a trial (--also)
        entry = {
            "decisions": len(group),
            "players": {name: e for name in players if (e := player_entry(group, name)) is not None},
            "table_vs_gnubg2": ratio(group, TABLE, GNUBG_2PLY),
            "table_vs_our_2ply": ratio(group, TABLE, OUR_2PLY),
            "table_deeper_share": float(np.mean([r["table_ply"] > 2 for r in group])),
        }
        if label == "match checker":
            both = [r for r in group if GNUBG_2PLY in r["errors"]]
            if len(both) > 1:
                diff = np.array([r["errors"][TABLE] - TARGET_RATIO * r["errors"][GNUBG_2PLY] for r in both])
                mean, se = _mean_se(diff)
                entry[f"table_minus_{TARGET_RATIO}_gnubg2_x1000"] = {"mean": 1000 * mean, "stderr": 1000 * se}
        out["groups"][label] = entry
    return out


def format_summary(summary: dict) -> str:
    lines = [f"{summary['decisions']} decisions judged by cubeful rollouts (error x1000 a decision)"]
    if "seed" in summary:
        lines[0] += f"; seed {summary['seed']}, {'/'.join(map(str, summary['games']))} games a rollout"
    for label, group in summary["groups"].items():
        deeper = group["table_deeper_share"]
        lines.append(
            f"\n{label}: {group['decisions']} decisions (the table level decided deeper than 2-ply at {deeper:.0%})"
        )
        lines.append(f"  {'player':24s} {'error':>8s} {'+-':>7s} {'judge+-':>8s} {'wrong':>6s}")
        for name, e in group["players"].items():
            parts = ""
            if "double_error_x1000" in e:
                parts = f"   double {e['double_error_x1000']:.2f}, take {e['take_error_x1000']:.2f}"
            lines.append(
                f"  {name:24s} {e['error_x1000']:8.2f} {e['stderr_x1000']:7.2f} "
                f"{e['judge_stderr_x1000']:8.2f} {e['wrong']:6d}{parts}"
            )
        for key, other in (("table_vs_gnubg2", "gnubg 2-ply"), ("table_vs_our_2ply", "our 2-ply")):
            if (c := group.get(key)) is None:
                continue
            text = f"  table level - {other}: {c['difference_x1000']:+.2f} +- {c['difference_stderr_x1000']:.2f}"
            if "ratio" in c:
                text += f"; ratio {c['ratio']:.2f} +- {c['ratio_stderr']:.2f}"
            lines.append(text)
        target = group.get(f"table_minus_{TARGET_RATIO}_gnubg2_x1000")
        if target:
            lines.append(
                f"  table level - {TARGET_RATIO} x gnubg 2-ply: {target['mean']:+.2f} +- {target['stderr']:.2f}"
                " (the target is <= 0)"
            )
    return "\n".join(lines)
