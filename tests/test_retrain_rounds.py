"""Retrain rounds: every `fibsbot retrain` kept in DIR/training/retrains.jsonl, a failed one
too, and shown by `fibsbot status` with the gate's figures and their error bars."""

from __future__ import annotations

import json

import pytest

from fibsbot.owner.live import record_retrain
from fibsbot.owner.rounds import RECENT_ROUNDS, retrain_rounds
from fibsbot.owner.status import collect_status, format_status
from nets.train.retrain import RetrainReport
from tests.owner_fixture import make_data_dir
from tests.test_cli import run_cli

# round two of docs/learning-loop.md, as `fibsbot retrain` reported it
GATE_REASON = (
    "real-life benchmark (300 decisions): error 7.471 -> 7.230, difference -0.240 +- 0.275; head to head "
    "+0.0021 +- 0.0054 ppg over 20000 games: not better by more than its standard error, kept the incumbent"
)
REFUSED = {
    "started": "2026-11-27T09:00:00+00:00",
    "labeller": "bgsage@3",
    "queue_rows": 3574,
    "positions_labelled": 44039,
    "training_positions": 44039,
    "real_life_benchmark": {
        "positions": 300,
        "incumbent_error": 7.4709,
        "candidate_error": 7.2304,
        "difference": -0.2405,
        "stderr": 0.2752,
        "version": 1,
        "labeller": "rollout:36/324+vr+prune",
    },
    "head_to_head": {"games": 20000, "ppg": 0.0021, "stderr": 0.0054},
    "vs_gnubg": {
        "games": 20000,
        "incumbent": {"opponent": "gnubg0", "games": 20000, "ppg": -0.0094, "stderr": 0.0086},
        "candidate": {"opponent": "gnubg0", "games": 20000, "ppg": -0.0022, "stderr": 0.0086},
    },
    "shipped_benchmark": {
        "positions": 6000,
        "incumbent_error": 3.462,
        "candidate_error": 3.454,
        "difference": -0.008,
        "stderr": 0.073,
    },
    "promoted": False,
    "version": None,
    "candidate": "/var/lib/fibsbot/training/candidate/net",  # a path since candidates are kept
    "reason": GATE_REASON,
    "seconds": 4545.0,
}
NOTHING_NEW = {
    "labeller": "bgsage@3",
    "positions_labelled": 0,
    "training_positions": 44039,
    "promoted": False,
    "reason": "nothing new to learn from since the last retrain: kept the incumbent",
    "seconds": 13.0,
}


def test_each_round_shows_when_what_it_labelled_the_gates_figures_and_the_verdict(tmp_path):
    make_data_dir(tmp_path, matches=1, with_owner_files=False)
    record_retrain(tmp_path, REFUSED)
    record_retrain(tmp_path, NOTHING_NEW)
    status = collect_status(tmp_path)  # a refused candidate's path where figures once were: no crash
    first, second = status["retrain_rounds"]
    assert first["round"] == 1 and first["positions_labelled"] == 44039 and first["started"] == REFUSED["started"]
    assert first["real_life_benchmark"]["stderr"] == 0.2752 and first["head_to_head"]["stderr"] == 0.0054
    assert first["vs_gnubg"] == {"games": 20000, "incumbent_ppg": -0.0094, "candidate_ppg": -0.0022, "stderr": 0.0086}
    assert not first["promoted"] and second["positions_labelled"] == 0
    text = format_status(status)
    assert "retrain rounds: 2" in text
    # the last retrain measured nothing: it says why instead of a row of dashes
    assert "44039 positions, nothing new to learn from since the last retrain" in text and "- -> -" not in text
    line = next(x for x in text.splitlines() if x.startswith("  1. "))
    assert "76 min: 44039 positions labelled by bgsage@3 (44039 in the set)" in line
    assert "real-life benchmark v1 (300 decisions) 7.471 -> 7.230, -0.240 +/- 0.275" in line
    assert "head to head +0.0021 +/- 0.0054 ppg (20000 games)" in line
    assert "vs gnubg 0-ply -0.0094 -> -0.0022 +/- 0.0086 ppg" in line
    assert "shipped benchmark 3.462 -> 3.454, -0.008 +/- 0.073" in line
    assert line.endswith("not promoted: not better by more than its standard error, kept the incumbent")
    second_line = next(x for x in text.splitlines() if x.startswith("  2. "))
    assert second_line.endswith(
        "13 s: 0 positions labelled by bgsage@3 (44039 in the set); "
        "not promoted: nothing new to learn from since the last retrain: kept the incumbent"
    )


def test_a_promoted_round_a_withheld_one_and_a_round_from_before_the_real_life_gate(tmp_path):
    promoted = {**REFUSED, "promoted": True, "version": "20261127-101500", "reason": "...: promoted"}
    withheld = {**REFUSED, "reason": GATE_REASON.split(": not better")[0] + ": promoted (not promoted: --no-promote)"}
    earlier = {
        "training_positions": 1234,
        "incumbent": {"error": 5.9, "ppg": 0.455},
        "candidate": {"error": 5.95, "ppg": 0.45},
        "promoted": False,
        "reason": "benchmark error 5.9 -> 5.95",
    }
    make_data_dir(tmp_path, matches=1, with_owner_files=False)
    for report in (promoted, withheld, earlier):
        record_retrain(tmp_path, report)
    lines = [x for x in format_status(collect_status(tmp_path)).splitlines() if x.startswith("  ")]
    rounds = [x for x in lines if x.lstrip()[:2] in ("1.", "2.", "3.")]
    assert rounds[0].endswith("promoted as 20261127-101500")
    assert rounds[1].endswith("not promoted (--no-promote), though the gate passed it")
    assert "benchmark error 5.90 -> 5.95, ppg vs pubeval +0.455 -> +0.450" in rounds[2]


def test_status_lists_the_latest_rounds_and_json_every_one(tmp_path):
    make_data_dir(tmp_path, matches=1, with_owner_files=False)
    for _ in range(RECENT_ROUNDS + 3):
        record_retrain(tmp_path, NOTHING_NEW)
    code, out, err = run_cli(["status", "--data-dir", str(tmp_path), "--json"])
    assert code == 0, err
    assert [r["round"] for r in json.loads(out)["retrain_rounds"]] == list(range(1, RECENT_ROUNDS + 4))
    code, out, err = run_cli(["status", "--data-dir", str(tmp_path)])
    assert f"retrain rounds: {RECENT_ROUNDS + 3} (the last {RECENT_ROUNDS} below" in out
    assert "  4. " in out and "  3. " not in out


def test_no_retrain_yet_adds_no_rounds_section():
    assert retrain_rounds([]) == []


@pytest.fixture
def arena_like_dir(tmp_path):
    data_dir = make_data_dir(tmp_path / "data", matches=1, with_owner_files=False)
    (data_dir / "log").mkdir()
    return data_dir


def test_a_retrain_that_fails_is_a_round_too_and_status_says_why(arena_like_dir, monkeypatch):
    import nets.train.retrain

    def broken(config, progress, open_queue):
        raise RuntimeError("bgsage crashed")

    monkeypatch.setattr(nets.train.retrain, "retrain", broken)
    with pytest.raises(RuntimeError):
        run_cli(["retrain", "--data-dir", str(arena_like_dir)])
    (line,) = (arena_like_dir / "training" / "retrains.jsonl").read_text().splitlines()
    record = json.loads(line)
    assert record["failed"] == "RuntimeError: bgsage crashed" and record["started"] and record["finished"]
    status = collect_status(arena_like_dir)
    assert status["last_retrain"] is None  # a failed round is no retrain's result
    assert "  1. " in format_status(status) and "failed: RuntimeError: bgsage crashed" in format_status(status)


def test_a_finished_retrain_is_kept_with_when_it_started(arena_like_dir, monkeypatch):
    import nets.train.retrain

    monkeypatch.setattr(
        nets.train.retrain,
        "retrain",
        lambda config, progress, open_queue: RetrainReport(labeller="bgsage@3", reason=NOTHING_NEW["reason"]),
    )
    for _ in range(2):
        code, _out, err = run_cli(["retrain", "--data-dir", str(arena_like_dir), "--json"])
        assert code == 0, err
    records = [json.loads(x) for x in (arena_like_dir / "training" / "retrains.jsonl").read_text().splitlines()]
    assert len(records) == 2 and all(r["started"] <= r["finished"] and r["labeller"] == "bgsage@3" for r in records)
    assert [r["round"] for r in collect_status(arena_like_dir)["retrain_rounds"]] == [1, 2]
