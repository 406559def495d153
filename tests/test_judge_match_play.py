"""scripts/referee/judge_match_play.py: the summary's maths, the cube's error accounting, and a live run."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from engine.cube.cubeful import view_may_double
from engine.cube.met import CubeView
from scripts.referee.decisions import (
    CUBE_SCENARIOS,
    MATCH_CHECKER_SCENARIOS,
    MONEY_CHECKER_SCENARIOS,
    checker_decisions,
)
from scripts.referee.gnubg_answers import gnubg_available, top_move_text
from scripts.referee.judging import GNUBG_2PLY, GNUBG_NN_2PLY, OUR_2PLY, TABLE, cube_errors
from scripts.referee.summary import summarise
from tests.gnubg_cli import require_gnubg


def checker_row(play: str, index: int, errors: dict[str, float], stderr: float = 0.01, ply: int = 2) -> dict:
    return {
        "kind": "checker",
        "play": play,
        "index": index,
        "errors": errors,
        "error_stderr": {name: stderr if value else 0.0 for name, value in errors.items()},
        "table_ply": ply,
    }


def test_summary_means_stderrs_and_ratio():
    table = [0.0, 0.02, 0.0, 0.04]
    gnubg = [0.01, 0.03, 0.0, 0.06]
    rows = [
        checker_row("match", i, {TABLE: t, OUR_2PLY: 0.0, GNUBG_2PLY: g, GNUBG_NN_2PLY: 0.0}, ply=3 if i else 2)
        for i, (t, g) in enumerate(zip(table, gnubg))
    ]
    rows.append(checker_row("money", 0, {TABLE: 0.01, OUR_2PLY: 0.02, GNUBG_NN_2PLY: 0.0}))
    summary = summarise(rows)
    match = summary["groups"]["match checker"]
    assert match["decisions"] == 4
    entry = match["players"][TABLE]
    assert entry["error_x1000"] == pytest.approx(15.0)
    assert entry["stderr_x1000"] == pytest.approx(1000 * np.std(table, ddof=1) / 2)
    # the judge's own noise: two errors of standard error 0.01 over 4 decisions
    assert entry["judge_stderr_x1000"] == pytest.approx(1000 * math.sqrt(2 * 0.01**2) / 4)
    assert entry["wrong"] == 2
    versus = match["table_vs_gnubg2"]
    assert versus["ratio"] == pytest.approx(0.015 / 0.025)
    assert versus["difference_x1000"] == pytest.approx(-10.0)
    diffs = np.subtract(table, gnubg)
    assert versus["difference_stderr_x1000"] == pytest.approx(1000 * np.std(diffs, ddof=1) / 2)
    target = match["table_minus_0.8_gnubg2_x1000"]
    assert target["mean"] == pytest.approx(1000 * (0.015 - 0.8 * 0.025))
    assert match["table_deeper_share"] == pytest.approx(0.75)
    # money play: no gnubg 1.07 answer there, so no ratio to it, one to our 2-ply
    money = summary["groups"]["money checker"]
    assert GNUBG_2PLY not in money["players"]
    assert money["table_vs_gnubg2"] is None
    assert "match cube" not in summary["groups"]


def test_cube_errors_charge_the_doubler_and_the_taker():
    stderr = {"no_double": 0.01, "double_take": 0.02, "double_take_minus_no_double": 0.005}
    # a take: double/take 0.9 beats no double 0.8
    take = {"no_double": 0.8, "double_take": 0.9, "double_drop": 1.0}
    right = cube_errors(take, stderr, double=True, take=True)
    assert right["error"] == 0.0 and right["stderr"] == 0.0
    no_double = cube_errors(take, stderr, double=False, take=True)
    assert no_double["double"] == pytest.approx(0.1) and no_double["stderr"] == pytest.approx(0.005)
    dropped = cube_errors(take, stderr, double=True, take=False)
    assert dropped["take"] == pytest.approx(0.1) and dropped["double"] == 0.0
    assert dropped["stderr"] == pytest.approx(0.02)
    # too good: no double 1.2 beats double/drop 1.0; doubling cashes and gives up 0.2
    too_good = {"no_double": 1.2, "double_take": 1.5, "double_drop": 1.0}
    cashed = cube_errors(too_good, stderr, double=True, take=False)
    assert cashed["double"] == pytest.approx(0.2) and cashed["stderr"] == pytest.approx(0.01)
    both = cube_errors(too_good, stderr, double=True, take=True)
    assert both["error"] == pytest.approx(0.2 + 0.5)
    assert both["stderr"] == pytest.approx(math.hypot(0.01, 0.02))


def test_scenarios_are_valid_and_cube_ones_let_the_roller_double():
    for scenario in MATCH_CHECKER_SCENARIOS + MONEY_CHECKER_SCENARIOS + CUBE_SCENARIOS:
        state = scenario.state((3, 1))
        assert state.jacoby is False
    assert all(view_may_double(CubeView.of(s.state())) for s in CUBE_SCENARIOS)
    labels = " ".join(s.label for s in MATCH_CHECKER_SCENARIOS)
    assert "post-Crawford" in labels and " Crawford" in labels


def test_decisions_are_prefix_stable():
    few = checker_decisions(2, 1, seed=5)
    more = checker_decisions(3, 2, seed=5)
    assert [d.xgid for d in few[:2]] == [d.xgid for d in more[:2]]
    assert few[2].xgid == more[3].xgid  # the first money decision


def test_top_move_of_a_hint_listing():
    listing = (
        "    1. Cubeful 2-ply    24/23 13/9                   Eq.: +0.074\n"
        "    2. Cubeful 2-ply    13/9 6/5                     Eq.: +0.056 (-0.017)\n"
    )
    assert top_move_text(listing) == "24/23 13/9"
    assert top_move_text("There are no legal moves.") is None


def test_live_decisions_end_to_end_and_resume(tmp_path, capsys):
    from scripts.referee.judge_match_play import main

    out = tmp_path / "referee.jsonl"
    args = ["--decisions", "1", "--money-decisions", "0", "--cube-decisions", "1"]
    args += ["--seed", "7", "--games", "36", "--out", str(out), "--json"]
    with_gnubg = gnubg_available()
    if not with_gnubg:
        args.append("--no-gnubg")
    assert main(args) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["kind"] for r in rows) == ["checker", "cube"]
    checker = next(r for r in rows if r["kind"] == "checker")
    cube = next(r for r in rows if r["kind"] == "cube")
    assert {TABLE, OUR_2PLY, GNUBG_NN_2PLY} <= set(checker["errors"])
    assert min(checker["errors"].values()) >= 0.0
    assert max(c["equity"] for c in checker["candidates"]) == pytest.approx(
        checker["candidates"][checker["picks"][TABLE]]["equity"] + checker["errors"][TABLE]
    )
    assert set(cube["rollout"]["equities"]) == {"no_double", "double_take", "double_drop"}
    summary = json.loads(capsys.readouterr().out)
    assert summary["groups"]["match checker"]["decisions"] == 1
    # a rerun finds both decisions judged and judges nothing
    assert main(args) == 0
    assert len(out.read_text().splitlines()) == 2
    if with_gnubg:
        assert GNUBG_2PLY in checker["errors"] and GNUBG_2PLY in cube["errors"]
    else:
        require_gnubg()  # reports the skipped gnubg part
