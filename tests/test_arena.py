"""`fibsbot arena` end to end: local server, two bots, records gnubg can read."""

from __future__ import annotations

import io
import json
import re
import sqlite3
import sys

import pytest

from fibsbot.arena import play
from fibsbot.arena.play import print_result, run_arena
from fibsbot.cli import main
from tests.gnubg_cli import require_gnubg
from tests.test_cli import assert_one_line_error, run_cli
from tests.test_matfile import gnubg_read_match


async def test_arena_plays_whole_matches_and_keeps_every_record(tmp_path):
    result = await run_arena(
        length=3, matches=2, opponent="pubeval", ply=1, data_dir=tmp_path, seed=11, warmup=False
    )  # the 1-ply search from the first move (see test_warmup)
    assert result.stuck == 0 and result.won + result.lost == 2
    assert result.errors == []  # no refused command, no unreadable board
    for ours, theirs in result.scores:
        assert max(ours, theirs) >= 3 and min(ours, theirs) < 3
    assert len(result.match_files) == 2
    # a 1-ply bot disagrees with its own 0-ply now and then: those positions are queued
    with sqlite3.connect(tmp_path / "queue.sqlite") as db:
        rows = db.execute("SELECT position_id, match_id, kind, ply FROM disagreements").fetchall()
    assert len(rows) == result.queued > 0 and all(r[3] == 1 for r in rows)
    log_lines = [json.loads(line) for line in (tmp_path / "log").glob("*.jsonl").__next__().read_text().splitlines()]
    events = {line["event"] for line in log_lines}
    assert {"recv", "send", "decision", "match_start", "match_end"} <= events
    assert not [line for line in log_lines if line["event"] == "record_skipped"]


async def test_arena_match_files_import_into_gnubg(tmp_path):
    require_gnubg()
    result = await run_arena(length=3, matches=1, opponent="pubeval", ply=0, data_dir=tmp_path, seed=4)
    mat = tmp_path / "matches" / result.match_files[0].rsplit("/", 1)[-1]
    text = mat.read_text()
    match, output = gnubg_read_match(mat, tmp_path)
    assert "WARNING" not in output and "Unrecognised" not in output, output[-2000:]
    # every roll written (a move or a dance, "52:") is one gnubg move record
    rolls = len(re.findall(r"\b[1-6][1-6]:", text))
    moves = sum(r["action"] == "move" for g in match["games"] for r in g["game"])
    assert len(match["games"]) == text.count(" Game ") and moves == rolls > 10
    winner_points = sum(g["info"]["points-won"] for g in match["games"])
    assert winner_points == sum(result.scores[0])


def test_arena_command_prints_where_the_records_are(tmp_path, capsys):
    assert main(["arena", "--matches", "1", "--ply", "0", "--data-dir", str(tmp_path), "--seed", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["matches"] == 1 and out["stuck"] == 0 and out["queue_path"].endswith("queue.sqlite")
    assert len(out["match_files"]) == 1 and out["log_path"].endswith(".jsonl")


def stand_in_warmup(seconds: float):
    """``start_warmup`` with a child that takes ``seconds`` and then writes the marker,
    as the real warm-up does, without compiling anything."""
    from fibsbot.warmup import SearchWarmup, marker_path

    def start(agent, logger=None, enabled=True):
        code = f"import sys, time; time.sleep({seconds}); open(sys.argv[1], 'w').write('{{}}')"
        warm = SearchWarmup(agent.name, command=[sys.executable, "-c", code, str(marker_path())], logger=logger).start()
        agent.search_ready = warm
        started.append(warm)
        return warm

    started: list = []
    return start, started


@pytest.fixture
def marker_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))  # the warm-up's marker only


async def test_a_search_still_compiling_is_counted_and_its_pid_named(tmp_path, monkeypatch, marker_dir):
    start, started = stand_in_warmup(300)
    monkeypatch.setattr(play, "start_warmup", start)
    try:
        result = await run_arena(length=1, matches=1, opponent="pubeval", ply=2, data_dir=tmp_path / "data", seed=3)
        child = started[0].proc
        assert result.decisions > 0 and result.decisions_before_search == result.decisions
        assert result.warmup_pid == child.pid and child.poll() is None
    finally:
        started[0].proc.kill()  # our own stand-in, by its handle
        started[0].proc.wait()
    out = io.StringIO()
    print_result(result, out)
    text = out.getvalue()
    assert (
        f"(net 2-ply; {result.decisions} of {result.decisions} decisions at 0-ply while the search compiled)"
        in text.splitlines()[0]
    )
    assert f"still compiling in the background (pid {child.pid}" in text


async def test_waiting_for_the_search_takes_no_decision_before_it(tmp_path, monkeypatch, marker_dir):
    start, started = stand_in_warmup(1.0)
    monkeypatch.setattr(play, "start_warmup", start)
    said: list[str] = []
    result = await run_arena(
        length=1,
        matches=1,
        opponent="pubeval",
        ply=1,
        data_dir=tmp_path / "data",
        seed=3,
        progress=said.append,
        wait_for_search=True,
    )
    assert started[0].outcome == "warmed" and said[0].startswith("waiting for the 1-ply search")
    assert result.decisions > 0 and result.decisions_before_search == 0 and result.warmup_pid is None
    out = io.StringIO()
    print_result(result, out)
    assert "(net 1-ply)" in out.getvalue() and "still compiling" not in out.getvalue()
    assert result.peak_rss_mb >= max(result.rss_mb)


def test_the_peak_memory_is_never_below_the_memory_now():
    now = round(play._memory_mb(), 1)
    assert play._peak_mb([]) >= now and play._peak_mb([now + 100]) >= now + 100  # as figures after matches


def test_an_unknown_opponent_lists_only_the_nets_that_can_play():
    code, _, err = run_cli(["arena", "--opponent", "bogus"])
    assert_one_line_error(code, err)
    assert "shipped: " in err and ".prune" not in err and ".race" not in err
