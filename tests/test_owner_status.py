"""`fibsbot status`: what it reads from a data directory, and its one-line errors."""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys

import pytest

from fibsbot.owner.index import MatchIndex
from fibsbot.owner.live import OwnerRecords
from fibsbot.owner.readers import daemon_state
from tests.owner_fixture import make_data_dir, record_match
from tests.test_cli import run_cli


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    return make_data_dir(tmp_path_factory.mktemp("data"), matches=3)


def status_json(path) -> dict:
    code, out, err = run_cli(["status", "--data-dir", str(path), "--json"])
    assert code == 0, err
    return json.loads(out)


def test_totals_match_the_recorded_matches(data_dir):
    from fibsbot.records.journal import MatchJournal

    journals = [json.loads(p.read_text()) for p in (data_dir / "matches").glob("*.journal.json")]
    finals = [
        MatchJournal(data_dir / "matches" / "x.journal.json", j["header"], j["actions"]).recorder.score
        for j in journals
    ]
    status = status_json(data_dir)
    totals = status["totals"]
    assert totals["matches"] == 3 == totals["won"] + totals["lost"]
    assert totals["won"] == sum(a > b for a, b in finals)
    assert (totals["points_won"], totals["points_lost"]) == (sum(a for a, _ in finals), sum(b for _, b in finals))
    assert totals["by_length"]["3"]["matches"] == 3
    assert status["queue"] == {"labelled": 2, "waiting": 3}
    assert status["rating"]["rating"] == 1507.25 and status["rating"]["change"] == pytest.approx(7.25)
    assert status["rating"]["experience_gained"] == 6
    assert status["daemon"]["running"] is False and status["daemon"]["stopped"]
    net = status["net"]
    assert net["source"] == "promoted" and net["ppg"] == 0.47 and net["benchmark_error"] == 5.9
    assert net["version"] == sorted(p.name for p in (data_dir / "nets" / "versions").iterdir())[-1]
    assert status["last_retrain"]["promoted"] is False and status["last_retrain"]["error_after"] == 5.95


def test_rating_lines_are_written_only_when_they_change(data_dir):
    lines = (data_dir / "owner" / "ratings.jsonl").read_text().splitlines()
    assert [json.loads(x)["rating"] for x in lines] == [1500.0, 1512.5, 1507.25]


def test_without_a_promoted_net_the_shipped_one_plays(tmp_path):
    make_data_dir(tmp_path, matches=1, with_owner_files=False)
    net = status_json(tmp_path)["net"]
    assert net["source"] == "shipped" and net["version"] == "default" and "ppg" in net


def test_the_index_is_reused_and_follows_a_match_in_progress(tmp_path):
    make_data_dir(tmp_path, matches=2, with_owner_files=False)
    index = MatchIndex(tmp_path)
    first = index.summaries()
    assert index.path.exists() and index.summaries() == first
    record_match(tmp_path / "matches", random.Random(3), 5, finish=False)
    status = status_json(tmp_path)
    assert status["unfinished"] == 1 and status["totals"]["matches"] == 2
    assert status["current_match"] is None  # no daemon plays it
    from tests.test_owner_accounts import daemon_process, started_owner

    with daemon_process() as child:
        owner = started_owner(tmp_path, child.pid)
        owner._follow_match("sparring", 5)
        owner._write_state()
        current = status_json(tmp_path)["current_match"]
    assert current["opponent"] == "sparring" and current["length"] == 5 and current["cube"] in (1, 2, 4)


def test_a_running_daemon_is_seen_with_its_uptime(tmp_path):
    make_data_dir(tmp_path, matches=1, with_owner_files=False)
    # a process whose command line names fibsbot stands in for the daemon
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "fibsbot"])
    try:
        owner = OwnerRecords(tmp_path, "fibsbot")
        owner.started(server="fibs.com", port=4321, agent="net:default@2")
        owner.state["pid"] = child.pid
        owner._write_state()
        state = daemon_state(tmp_path)
        assert state["running"] and state["uptime_s"] >= 0
        code, out, _ = run_cli(["status", "--data-dir", str(tmp_path)])
        assert code == 0 and f"running, pid {child.pid}" in out and "fibs.com:4321" in out
    finally:
        child.kill()
        child.wait()
    assert daemon_state(tmp_path)["running"] is False


def test_empty_corrupt_and_locked_data_get_one_line(tmp_path):
    code, out, err = run_cli(["status", "--data-dir", str(tmp_path)])
    assert code == 2 and "no records yet" in err and err.count("\n") == 1
    (tmp_path / "queue.sqlite").write_bytes(b"this is not a database" * 100)
    code, out, err = run_cli(["status", "--data-dir", str(tmp_path)])
    assert code == 2 and "queue" in err and err.count("\n") == 1 and "Traceback" not in err
    locked_dir = tmp_path / "locked"
    make_data_dir(locked_dir, matches=1, with_owner_files=False)
    holder = sqlite3.connect(locked_dir / "queue.sqlite", isolation_level=None)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        code, out, err = run_cli(["status", "--data-dir", str(locked_dir)])
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert code == 2 and "locked" in err and err.count("\n") == 1


@pytest.mark.parametrize("command", ["status", "analyse", "report"])
def test_help(command):
    code, out, _ = run_cli([command, "--help"])
    assert code == 0 and "usage: fibsbot " + command in out


def test_status_shows_a_retrained_nets_real_life_error_and_the_gates_figures(tmp_path):
    from engine.eval.evaluator import Evaluator
    from fibsbot.owner.live import record_retrain
    from fibsbot.owner.status import collect_status, format_status
    from nets.player import resolve_net_path
    from nets.store import NetStore

    real = {"positions": 300, "incumbent_error": 4.2, "candidate_error": 3.9, "difference": -0.3, "stderr": 0.08}
    duel = {"games": 10000, "ppg": 0.004, "stderr": 0.006}
    NetStore(tmp_path / "nets").promote(
        Evaluator.load(resolve_net_path("default")),
        strength={"real_life_benchmark": {**real, "version": 2}, "head_to_head_vs_incumbent": duel},
    )
    record_retrain(
        tmp_path,
        {
            "labeller": "bgsage@3",
            "promoted": True,
            "version": "v1",
            "training_positions": 5000,
            "real_life_benchmark": real,
            "head_to_head": duel,
            "reason": "promoted",
        },
    )
    status = collect_status(tmp_path)
    assert status["net"]["real_life_error"] == 3.9 and status["net"]["real_life_version"] == 2
    assert status["last_retrain"]["real_life_after"] == 3.9 and status["last_retrain"]["labeller"] == "bgsage@3"
    text = format_status(status)
    assert "real-life benchmark v2 error 3.90 (-0.30 +/- 0.08 vs the net it replaced)" in text
    assert "labels by bgsage@3, real-life benchmark (300 decisions) error 4.20 -> 3.90 +/- 0.08" in text
    assert "head to head +0.004 +/- 0.006 ppg" in text
