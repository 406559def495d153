"""The table level on the command line and in the settings: ``hint`` shows its answer as
the bot plays it and refuses options it would ignore, ``external`` and ``arena`` take
``--workers``, and the daemon plays the table level unless told otherwise."""

from __future__ import annotations

import json

import pytest

from fibsbot.config import load_settings
from tests.test_cli_bad_input import OPENING, assert_one_line_naming, run_cli


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        ("--dice 3 1 --limit -3", "--limit -3: show at least 1 move"),
        ("--dice 3 1 --limit 0", "--limit 0: show at least 1 move"),
        ("--dice 3 1 --player net:default@0 --ply 1", "--player net:default@0 names the net and the level"),
        ("--player net:default@table --ply 2", "give it without --ply"),
        ("--dice 3 1 --player net:default@2 --net default", "give it without --net"),
    ],
    ids=["limit-negative", "limit-zero", "player-and-ply", "player-and-ply-cube", "player-and-net"],
)
def test_hint_refuses_options_it_would_ignore(options, problem):
    code, out, err = run_cli(["hint", "--position-id", OPENING, *options.split()])
    assert_one_line_naming(code, err, problem)
    assert out == ""


def test_hint_shows_the_table_levels_deeper_looks_with_their_ply():
    # the opening 6-4: three moves within a few hundredths at 2-ply
    code, out, err = run_cli(["hint", "--position-id", OPENING, "--dice", "6", "4", "--player", "net:default@table"])
    assert code == 0, err
    lines = out.splitlines()
    assert "3-ply" in lines[4] and "3-ply" in lines[5]  # the best two at least: a close decision's promise
    assert "a ply deeper (3-ply)" in out
    code, out, err = run_cli(["hint", "--position-id", OPENING, "--player", "net:default@table", "--json"])
    answer = json.loads(out)
    assert code == 0 and answer["ply"] == 3 and answer["level"] == "table"
    code, out, _ = run_cli(["hint", "--position-id", OPENING, "--player", "net:default@table"])
    assert "table-level cubeful equities (the mean of 2-ply and 3-ply)" in out


@pytest.mark.parametrize(
    "argv",
    [["external", "--listen", "127.0.0.1:0", "--workers", "0"], ["arena", "--workers", "-1"]],
    ids=["external", "arena"],
)
def test_workers_below_one_are_refused(argv, tmp_path):
    code, out, err = run_cli([*argv, *(["--data-dir", str(tmp_path / "arena")] if argv[0] == "arena" else [])])
    assert_one_line_naming(code, err, "at least 1 thread")
    assert not (tmp_path / "arena").exists()


def test_the_daemon_plays_the_table_level_unless_told_otherwise(tmp_path, monkeypatch):
    for name in ("FIBSBOT_PLAY__PLY", "FIBSBOT_PLAY__LEVEL", "FIBSBOT_PLAY__THINK"):
        monkeypatch.delenv(name, raising=False)
    config = tmp_path / "fibsbot.toml"
    config.write_text("[play]\n", encoding="utf-8")
    assert load_settings(config).play.agent_spec == "net:default@table"
    config.write_text("[play]\nply = 2\n", encoding="utf-8")
    assert load_settings(config).play.agent_spec == "net:default@2"  # an explicit depth still wins
