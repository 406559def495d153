"""The summary of ``play_vs_gnubg.py``'s matches: win rate and each side's error rates, and its report."""

from __future__ import annotations

import math
from dataclasses import asdict

from scripts.gnubg_match.gnubg_output import SIDES
from scripts.gnubg_match.session import Config


def binomial(successes: int, n: int) -> tuple[float | None, float | None]:
    if n == 0:
        return None, None
    rate = successes / n
    return rate, math.sqrt(rate * (1 - rate) / n)


def pooled_rate(errors: list[float], decisions: list[int]) -> tuple[float | None, float | None]:
    """All errors over all decisions (x1000), as gnubg would rate the matches as one, and the
    standard error of that ratio with the match as the unit of sampling."""
    total, n = sum(decisions), len(errors)
    if total == 0:
        return None, None
    ratio = sum(errors) / total
    if n < 2:
        return 1000 * ratio, None
    spread = sum((e - ratio * d) ** 2 for e, d in zip(errors, decisions)) * n / (n - 1)
    return 1000 * ratio, 1000 * math.sqrt(spread) / total


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def summarise(config: Config, matches: list[dict]) -> dict:
    wins = sum(m["winner"] == "ours" for m in matches)
    rate, rate_se = binomial(wins, len(matches))
    sides = {}
    for side in SIDES:
        figures = [m["analysis"][side] for m in matches]
        chequer = pooled_rate([f["chequer_error_total_emg"] for f in figures], [f["unforced_moves"] for f in figures])
        cube = pooled_rate([f["cube_error_total_emg"] for f in figures], [f["cube_decisions"] for f in figures])
        counts = ("unforced_moves", "chequer_errors", "cube_decisions", "cube_errors")
        sides[side] = {
            "chequer_error_memg": chequer[0],
            "chequer_error_se": chequer[1],
            "cube_error_memg": cube[0],
            "cube_error_se": cube[1],
            **{key: sum(f[key] for f in figures) for key in counts},
        }
    return {
        "config": asdict(config),
        "matches": len(matches),
        "wins": wins,
        "win_rate": rate,
        "win_rate_se": rate_se,
        "points_for": sum(m["score"]["ours"] for m in matches),
        "points_against": sum(m["score"]["gnubg"] for m in matches),
        "sides": sides,
        **{f"{key}_per_match": _mean([m[key] for m in matches]) for key in ("wall_s", "play_s", "analysis_s")},
    }


def _pm(value: float | None, se: float | None, digits: int = 2) -> str:
    text = "-" if value is None else f"{value:.{digits}f}"
    return text + (f" ± {se:.{digits}f}" if se is not None else "")


def report(summary: dict) -> str:
    c, n = summary["config"], summary["matches"]
    lines = [
        f"gnubg 1.07 {c['gnubg_plies']}-ply vs {c['player']}: {n} {c['length']}-point matches "
        f"(seed {c['seed']}), analysed by gnubg at {c['analysis_plies']}-ply"
    ]
    if n:
        rate = 100 * summary["win_rate"], 100 * summary["win_rate_se"]
        lines += [
            f"  our wins: {summary['wins']}/{n} = {_pm(*rate, digits=1)}%",
            f"  points: ours {summary['points_for']}, gnubg {summary['points_against']}",
            f"  wall time per match: {summary['wall_s_per_match']:.1f} s "
            f"(play {summary['play_s_per_match']:.1f} s, analysis {summary['analysis_s_per_match']:.1f} s)",
            "  error rate, mEMG a decision (± standard error over matches):",
            f"    {'':6} {'chequer':>14} {'cube':>14}   unforced moves (errors), cube decisions (errors)",
        ]
        for side, s in summary["sides"].items():
            lines.append(
                f"    {side:6} {_pm(s['chequer_error_memg'], s['chequer_error_se']):>14} "
                f"{_pm(s['cube_error_memg'], s['cube_error_se']):>14}   {s['unforced_moves']} "
                f"({s['chequer_errors']}), {s['cube_decisions']} ({s['cube_errors']})"
            )
    if summary.get("failed"):
        lines.append(f"  {summary['failed']} match(es) failed (see above); a rerun retries them")
    return "\n".join(lines)
