"""The `fibsbot` command line: help, answers, machine-readable output, and errors
that are one line with exit code 2, never a traceback."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fibsbot.cli import COMMANDS, main

OPENING = "4HPwATDgc/ABMA"


def run_cli(argv: list[str], stdin: str | None = None) -> tuple[int, str, str]:
    """Run ``main`` capturing output; argparse's own exits become return codes."""
    out, err = io.StringIO(), io.StringIO()
    saved_stdin = sys.stdin
    if stdin is not None:
        sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exc:
                code = exc.code
    finally:
        sys.stdin = saved_stdin
    return code, out.getvalue(), err.getvalue()


def assert_one_line_error(code: int, err: str) -> None:
    assert code == 2
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert "error:" in err


# ------------------------------------------------------------------ help


def test_top_level_help_lists_every_command():
    code, out, _ = run_cli(["--help"])
    assert code == 0
    for name in ("duel", "moves", "bench"):
        assert name in out


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_subcommand_help_explains_itself(name):
    code, out, _ = run_cli([name, "--help"])
    assert code == 0
    help_text = COMMANDS[name][0]
    assert help_text in " ".join(out.split())
    assert "--" in out  # documents its options


# ------------------------------------------------------------------ moves


def test_moves_lists_the_16_results_of_the_opening_31():
    code, out, _ = run_cli(["moves", "--position-id", OPENING, "--dice", "3", "1"])
    assert code == 0
    lines = out.strip().splitlines()
    assert len(lines) == 16
    ids = [line.split()[0] for line in lines]
    assert len(set(ids)) == 16 and all(len(i) == 14 for i in ids)
    assert any(line.split(None, 1)[1] == "8/5 6/5" for line in lines)


def test_moves_reports_a_blocked_roll():
    from engine.rules.ids import position_id
    from tests.board_builder import make_board, opponent_holds

    board = make_board({25: 1, 13: 5}, opponent_holds(19, 20, 21, 22, 23, 24))
    code, out, _ = run_cli(["moves", "--position-id", position_id(board), "--dice", "6", "6"])
    assert code == 0
    assert out.strip().endswith("(no legal move)")


def test_batch_answers_one_line_per_request_sorted():
    code, out, _ = run_cli(["moves", "--batch", "-"], stdin=f"{OPENING} 3 1\n\n{OPENING} 6 6\n")
    assert code == 0
    lines = out.strip().splitlines()
    assert len(lines) == 2
    head, results = lines[0].split(": ")
    assert head == f"{OPENING} 3 1"
    ids = results.split()
    assert len(ids) == 16 and ids == sorted(ids)
    assert lines[1].startswith(f"{OPENING} 6 6: ")


def test_batch_reads_a_file():
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write(f"{OPENING} 2 1\n")
    code, out, _ = run_cli(["moves", "--batch", f.name])
    Path(f.name).unlink()
    assert code == 0 and out.startswith(f"{OPENING} 2 1: ")


@pytest.mark.parametrize(
    "argv, stdin",
    [
        (["moves", "--position-id", "4HPwATDgc/ABM", "--dice", "3", "1"], None),  # 13 characters
        (["moves", "--position-id", "4HPwATDgc/AB!A", "--dice", "3", "1"], None),  # not base64
        (["moves", "--position-id", "//////////////", "--dice", "3", "1"], None),  # too many checkers
        (["moves", "--position-id", OPENING, "--dice", "0", "1"], None),
        (["moves", "--position-id", OPENING, "--dice", "3", "7"], None),
        (["moves", "--position-id", OPENING], None),
        (["moves", "--batch", "-"], "this is not a request\n"),
        (["moves", "--batch", "-"], f"{OPENING} 3\n"),
        (["moves", "--batch", "-"], f"{OPENING} 3 7\n"),
        (["moves", "--batch", "-"], "4HPwATDgc/ABMQ 3 1\n"),
        (["moves", "--batch", "/nonexistent/requests.txt"], None),
        (["duel", "--a", "nobody", "--games", "4"], None),
        (["duel", "--a", "random:x", "--games", "4"], None),
        (["duel", "--games", "1"], None),
    ],
)
def test_bad_input_is_a_one_line_error_with_code_2(argv, stdin):
    code, _, err = run_cli(argv, stdin)
    assert_one_line_error(code, err)


def test_a_bad_batch_line_names_its_line_number():
    code, out, err = run_cli(["moves", "--batch", "-"], stdin=f"{OPENING} 3 1\n{OPENING} 3 x\n")
    assert_one_line_error(code, err)
    assert "line 2" in err
    assert out.startswith(f"{OPENING} 3 1: ")  # answers before the bad line stand


def test_batch_input_that_is_not_utf8_is_a_one_line_error():
    with tempfile.NamedTemporaryFile("wb", suffix=".txt", delete=False) as f:
        f.write(b"\xff\xfe garbage\n")
    code, _, err = run_cli(["moves", "--batch", f.name])
    Path(f.name).unlink()
    assert_one_line_error(code, err)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=60))
def test_any_batch_line_is_answered_or_refused_cleanly(line):
    code, _, err = run_cli(["moves", "--batch", "-"], stdin=line + "\n")
    assert code in (0, 2)
    if code == 2:
        assert_one_line_error(code, err)


# ------------------------------------------------------------------ duel and bench


def test_duel_json_has_the_documented_keys():
    code, out, _ = run_cli(["duel", "--a", "pubeval", "--b", "random", "--games", "20", "--json"])
    assert code == 0
    result = json.loads(out)
    for key in ("ppg", "stderr", "games", "win_rate", "games_per_s"):
        assert key in result
    assert result["games"] == 20


def test_duel_text_summary():
    code, out, _ = run_cli(["duel", "--games", "10"])
    assert code == 0 and "ppg for pubeval" in out


def test_an_odd_number_of_games_is_rounded_up_to_whole_pairs_and_says_so():
    code, out, err = run_cli(["duel", "--games", "3"])
    assert code == 0 and "3 games rounded up to 4" in err
    assert out.startswith("pubeval vs random: 4 games (duplicate dice)")


def test_duel_reports_the_time_before_the_first_game_apart_from_games_per_s():
    code, out, _ = run_cli(["duel", "--games", "10"])
    assert code == 0
    rate, setup = out.splitlines()[-2:]
    assert rate.strip().endswith("s of play)") and "games/s" in rate
    assert (
        setup.strip().split()[1:]
        == "s before the first game: loading the players and compiling the duel loop "
        "(compiled again on every run; not in games/s)".split()
    )
    code, out, _ = run_cli(["duel", "--games", "10", "--json"])
    result = json.loads(out)
    assert code == 0 and result["setup_s"] >= 0 and "games_per_s" in result


def test_bench_help_lists_every_benchmark_by_name():
    import importlib
    import pkgutil

    import fibsbot.bench
    from fibsbot.bench.speed import BENCHMARKS

    for module in pkgutil.iter_modules(fibsbot.bench.__path__):  # each registers its benchmarks on import
        importlib.import_module(f"fibsbot.bench.{module.name}")

    code, out, _ = run_cli(["bench", "--help"])
    listed = " ".join(out.split()).split("run only these benchmarks: ")[1].split(" (default")[0]
    assert code == 0 and sorted(listed.split(", ")) == sorted(BENCHMARKS)


def test_bench_json_movegen():
    code, out, _ = run_cli(["bench", "--json", "--only", "movegen"])
    assert code == 0
    result = json.loads(out)
    assert result["movegen_positions_per_s"] > 0


# ------------------------------------------------------------------ the installed script


def _console_script() -> str:
    beside_python = Path(sys.executable).parent / "fibsbot"
    found = str(beside_python) if beside_python.exists() else shutil.which("fibsbot")
    if found is None:
        pytest.skip("the fibsbot console script is not installed (pip install -e .)")
    return found


def test_console_script_runs_and_fails_cleanly():
    script = _console_script()
    ok = subprocess.run(
        [script, "moves", "--position-id", OPENING, "--dice", "3", "1"], capture_output=True, text=True, timeout=120
    )
    assert ok.returncode == 0 and len(ok.stdout.strip().splitlines()) == 16
    bad = subprocess.run(
        [script, "moves", "--position-id", "nonsense", "--dice", "3", "1"], capture_output=True, text=True, timeout=120
    )
    assert_one_line_error(bad.returncode, bad.stderr)
