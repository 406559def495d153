"""`fibsbot analyse`: errors, marks, rates and luck from our engine; counts checked against gnubg's."""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import tempfile

import pytest

from engine.rules.moves import legal_moves
from engine.rules.position import Position
from fibsbot.owner.analysis import Analyser
from fibsbot.owner.analysis_io import load_analyses, queue_errors
from fibsbot.owner.matread import read_mat
from fibsbot.owner.stats import luck_mark, skill_mark
from nets.player import load_agent
from tests.gnubg_cli import GNUBG, require_gnubg
from tests.owner_fixture import make_data_dir, record_match
from tests.test_cli import run_cli

AGENT = load_agent("net:default", ply=0)


def best_at_0ply(board, d1, d2, state, rng):
    return AGENT.choose_move(board, d1, d2, state).steps


@pytest.fixture(scope="module")
def matches(tmp_path_factory):
    folder = tmp_path_factory.mktemp("data") / "matches"
    rng = random.Random(11)
    return [read_mat(record_match(folder, rng, 3, best_at_0ply).mat_path) for _ in range(2)]


def test_the_engine_finds_no_error_in_its_own_moves_and_some_in_random_ones(matches):
    for match in matches:
        analysis = Analyser(AGENT, 0).analyse(match)
        ours, theirs = analysis.stats
        assert ours.chequer_error == pytest.approx(0.0, abs=1e-6)
        assert theirs.chequer_error > 0.1 and sum(theirs.move_marks.values()) > 0
        for d in analysis.decisions:
            assert d.loss >= 0 and d.mark == (skill_mark(d.loss) if d.unforced or d.kind != "move" else "")
            if d.kind == "move":
                assert d.luck_mark == luck_mark(d.luck)


def test_counts_follow_the_rules(matches):
    match = matches[0]
    analysis = Analyser(AGENT, 0).analyse(match)
    moves = [d for d in analysis.decisions if d.kind == "move"]
    written = [a for g in match.games for a in g.actions if a.kind == "move"]
    assert len(moves) == len(written)
    for k in (0, 1):
        stats = analysis.stats[k]
        assert stats.moves == sum(a.player == k for a in written) == stats.rolls
        assert stats.unforced == sum(d.unforced for d in moves if d.player == k)
    forced = [d for d in moves if not d.unforced]
    for d in forced:
        from engine.rules.ids import board_from_position_id

        assert len(legal_moves(Position(board_from_position_id(d.position_id)), *d.dice)) == 1
    overall = analysis.stats[1]
    assert overall.overall_rate == pytest.approx(
        1000 * (overall.chequer_error + overall.cube_error) / (overall.unforced + overall.close_cube)
    )


def _gnubg_counts(path) -> dict:
    commands = [
        "set player 0 human",
        "set player 1 human",
        f"import mat {path}",
        "set analysis chequerplay evaluation plies 0",
        "set analysis cubedecision evaluation plies 0",
        "analyse match",
        "show statistics match",
    ]
    with tempfile.NamedTemporaryFile("w", suffix=".gnubg") as script:
        script.write("\n".join(commands) + "\n")
        script.flush()
        out = subprocess.run(
            [str(GNUBG), "-t", "-q", "-r", "-c", script.name],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout
    counts = {}
    for line in out.splitlines():
        for label in ("Total moves", "Unforced moves", "Total cube decisions"):
            if line.startswith(label):
                counts[label] = [int(x) for x in line.split()[-2:]]
    return counts


def test_moves_and_cube_decisions_are_counted_as_gnubg_counts_them(matches):
    require_gnubg()
    for match in matches:
        stats = Analyser(AGENT, 0).analyse(match).stats
        counts = _gnubg_counts(match.path)
        assert counts["Total moves"] == [s.moves for s in stats]
        assert counts["Unforced moves"] == [s.unforced for s in stats]
        assert counts["Total cube decisions"] == [s.cube_decisions for s in stats]


def test_queue_takes_marked_decisions_once(tmp_path):
    data_dir = make_data_dir(tmp_path, matches=1, with_owner_files=False)
    mat = next((data_dir / "matches").glob("*.mat"))
    code, out, err = run_cli(["analyse", str(mat), "--ply", "0", "--queue", "--json"])
    assert code == 0, err
    result = json.loads(out)
    marked = sum(1 for d in result["decisions"] if d["mark"])
    assert result["queued"] == marked > 0
    db = sqlite3.connect(data_dir / "queue.sqlite")
    rows = db.execute(
        "SELECT kind, choice_ply0, choice_search, match_ref FROM disagreements WHERE net_version LIKE 'analyse:%'"
    ).fetchall()
    assert len(rows) == marked and all(r[3] == mat.name and r[1] != r[2] for r in rows)
    assert queue_errors(data_dir / "queue.sqlite", Analyser(AGENT, 0).analyse(read_mat(mat))) == 0
    assert mat.name in load_analyses(data_dir)  # kept for the report


def test_bad_input_gets_one_line(tmp_path):
    broken = tmp_path / "broken.mat"
    broken.write_text(" 3 point match\n\n Game 1\n a : 0                          b : 0\n  1) 31: 13/8\n")
    for argv in (["analyse", str(broken)], ["analyse", str(tmp_path / "missing.mat")]):
        code, out, err = run_cli(argv + ["--ply", "0"])
        assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err
