"""Bad input the commands once took silently, and the answers a user needs: the rollout's
limits, a retrain with nothing to learn from, ``fibsbot --version``."""

from __future__ import annotations

import json
from importlib.metadata import version

import pytest

from tests.test_cli import run_cli

OPENING = "4HPwATDgc/ABMA"


@pytest.mark.parametrize(
    "flags, problem",
    [
        (["--max-turns", "-2"], "--max-turns must be 0"),
        (["--prune", "0"], "--prune K needs K of 1 or more"),
        (["--prune", "-3"], "--prune K needs K of 1 or more"),
        (["--cubeful", "--max-turns", "-1"], "--max-turns must be 0"),
    ],
)
def test_a_rollout_limit_out_of_range_is_one_line_and_exit_2(flags, problem):
    code, out, err = run_cli(["rollout", "--position-id", OPENING, "--games", "1", *flags])
    assert code == 2 and out == "" and problem in err and err.count("\n") == 1 and "Traceback" not in err


def test_a_retrain_of_an_empty_data_dir_says_there_is_nothing_to_learn_and_does_nothing(tmp_path):
    code, out, err = run_cli(["retrain", "--data-dir", str(tmp_path), "--selfplay-games", "1"])
    assert code == 0, err
    assert out.startswith(f"nothing to learn from in {tmp_path}") and out.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing labelled, trained or written
    code, out, err = run_cli(["retrain", "--data-dir", str(tmp_path), "--json"])
    assert code == 0 and json.loads(out)["positions_labelled"] == 0


def test_a_retrain_with_a_logged_decision_is_not_turned_away(tmp_path):
    from fibsbot.cli.retrain import nothing_to_learn

    (tmp_path / "log").mkdir()
    line = {"event": "decision", "kind": "move", "position_id": OPENING, "dice": [3, 1]}
    (tmp_path / "log" / "fibsbot.jsonl").write_text(json.dumps(line) + "\n")
    assert nothing_to_learn(tmp_path) is None


def test_a_retrain_whose_decisions_are_all_in_rotated_segments_is_not_turned_away(tmp_path):
    import gzip

    from fibsbot.cli.retrain import nothing_to_learn

    (tmp_path / "log").mkdir()
    line = {"event": "decision", "kind": "move", "position_id": OPENING, "dice": [3, 1]}
    with gzip.open(tmp_path / "log" / "fibsbot.000001.jsonl.gz", "wt") as segment:
        segment.write(json.dumps(line) + "\n")
    (tmp_path / "log" / "fibsbot.jsonl").write_text(json.dumps({"event": "recv", "line": "x"}) + "\n")
    assert nothing_to_learn(tmp_path) is None


def test_version_prints_the_packages_version():
    code, out, err = run_cli(["--version"])
    assert code == 0 and out == f"fibsbot {version('fibsbot')}\n" and err == ""
