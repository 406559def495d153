"""scripts/referee/compare_looks.py: players' errors and paired differences from the rolled-out pool."""

from __future__ import annotations

import math

import pytest

from scripts.referee import compare_looks as script


def test_errors_are_against_the_pools_best_and_differences_need_no_best():
    rows = [
        {  # a and ref agree: nothing rolled out, every error zero
            "picks": {"a": 0, "ref": 0},
            "games": 0,
            "means": [0.0],
            "covariance": [[0.0]],
        },
        {  # a chose candidate 1, the reference candidate 0, which the rollout puts 0.02 ahead
            "picks": {"a": 1, "ref": 0},
            "games": 100,
            "means": [0.50, 0.48],
            "covariance": [[1e-4, 0.6e-4], [0.6e-4, 1e-4]],
        },
    ]
    summary = script.summarise(rows, "ref")
    a, ref = summary["players"]["a"], summary["players"]["ref"]
    assert summary["decisions"] == 2 and summary["rolled_out"] == 1
    assert a["error_x1000"] == pytest.approx(1000 * 0.02 / 2) and ref["error_x1000"] == 0.0
    # var(ref - a) = 1e-4 + 1e-4 - 2 * 0.6e-4 over the two decisions
    assert a["error_stderr_x1000"] == pytest.approx(1000 * math.sqrt(0.8e-4) / 2)
    assert a["minus_ref_x1000"] == pytest.approx(1000 * 0.02 / 2)
    assert a["minus_ref_stderr_x1000"] == pytest.approx(a["error_stderr_x1000"])
    assert ref["minus_ref_x1000"] == 0.0


def test_unknown_looks_are_refused():
    from scripts.referee.looks import look_agent

    with pytest.raises(ValueError, match="unknown look"):
        look_agent("4ply", evaluator=None)
