#!/usr/bin/env python3
"""The cube error of each variant of ``cube_rollout.py``'s rows by the referee's
equities (x1000 EMG a decision), paired against gnubg 2-ply's on the same rows:
2-ply or the 2-/3-ply mean, each without the rollout and with its correction where
the rollout's cubeless equity differs from the 2-ply's by more than z standard errors.

    python scripts/trials/cube_rollout_report.py rows.jsonl
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.cube.decision import DOUBLE_DROP, DOUBLE_TAKE, decide  # noqa: E402
from engine.rules.ids import parse_xgid  # noqa: E402
from scripts.cube_referee import cube_error  # noqa: E402


def cubeless(p: list[float]) -> float:
    return 2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4]


def referee(row: dict) -> tuple[float, float, float]:
    ref = row["referee"]
    return ref["no_double"], ref["double_take"], ref["double_pass"]


def main() -> None:
    rows = [json.loads(line) for line in Path(sys.argv[1]).open()]
    gnubg = [
        cube_error(referee(r), r["gnubg"]["action"] in (DOUBLE_TAKE, DOUBLE_DROP), r["gnubg"]["take"]) for r in rows
    ]
    print(
        f"{len(rows)} positions, {sum('jr' in r for r in rows)} rolled out;",
        f"gnubg 2-ply {1000 * sum(gnubg) / len(rows):.3f}",
    )
    for base in ("2-ply", "2/3-ply mean"):
        for z in (None, 0, 2, 4, 6):
            errors, corrected = [], 0
            for row in rows:
                _, state = parse_xgid(row["xgid"])
                e2, e3 = row["e2"], row["e3"]
                eq = dict(e2) if base == "2-ply" else {k: 0.5 * (e2[k] + e3[k]) for k in e2}
                if z is not None and "jr" in row and abs(cubeless(row["pr"]) - cubeless(row["p2"])) > z * row["se"]:
                    for k in ("no_double", "double_take"):
                        eq[k] += row["jr"][k] - row["j2"][k]
                    corrected += 1
                d = decide(eq, state, can_win_gammon=row["p0"][1] > 0, cube_life=row["life"])
                errors.append(cube_error(referee(row), d.double, d.take))
            diff = [a - b for a, b in zip(errors, gnubg)]
            mean = sum(diff) / len(diff)
            se = math.sqrt(sum((x - mean) ** 2 for x in diff) / (len(diff) - 1) / len(diff))
            label = "no rollout" if z is None else f"rollout where |d| > {z} se ({corrected} corrected)"
            print(
                f"{base:13s} {label:40s} {1000 * sum(errors) / len(rows):.3f}",
                f"  minus gnubg {1000 * mean:+.3f} +/- {1000 * se:.3f}",
            )


if __name__ == "__main__":
    main()
