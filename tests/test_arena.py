"""`fibsbot arena` end to end: local server, two bots, records gnubg can read."""

from __future__ import annotations

import json
import re
import sqlite3

from fibsbot.arena.play import run_arena
from fibsbot.cli import main
from tests.gnubg_cli import require_gnubg
from tests.test_matfile import gnubg_read_match


async def test_arena_plays_whole_matches_and_keeps_every_record(tmp_path):
    result = await run_arena(length=3, matches=2, opponent="pubeval", ply=1, data_dir=tmp_path, seed=11,
                             warmup=False)  # the 1-ply search from the first move (see test_warmup)
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
