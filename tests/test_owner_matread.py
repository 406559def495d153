"""Reading .mat files back: our recorder's files, gnubg's and FIBS's layouts, and broken files."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fibsbot.owner.matread import MatFileError, parse_mat, read_mat
from fibsbot.owner.replay import replay_turns
from tests.owner_fixture import record_match

GNUBG_STYLE = """; [Player 1 "alice"]
; [Player 2 "bob"]

 3 point match

 Game 1
 alice : 0                      bob : 0
  1)                             31: 8/5 6/5
  2) 64: 24/18 13/9               Doubles => 2
  3)  Takes                      55: 13/8 13/8 8/3 8/3
  4) 66:                          21: 6/5 24/22
  5)  Doubles => 4                 Drops
      Wins 2 points
"""


def test_reads_left_right_entries_cube_actions_and_the_winner():
    match = parse_mat(GNUBG_STYLE)
    assert match.length == 3 and match.players == ("alice", "bob")
    actions = [(a.kind, a.player, a.dice, a.text, a.value) for a in match.games[0].actions]
    assert actions == [
        ("move", 1, (3, 1), "8/5 6/5", 0),
        ("move", 0, (6, 4), "24/18 13/9", 0),
        ("double", 1, None, "", 2),
        ("take", 0, None, "", 0),
        ("move", 1, (5, 5), "13/8 13/8 8/3 8/3", 0),
        ("move", 0, (6, 6), "", 0),
        ("move", 1, (2, 1), "6/5 24/22", 0),
        ("double", 0, None, "", 4),
        ("drop", 1, None, "", 0),
        ("win", 0, None, "", 2),
    ]
    assert match.final_score == (2, 0)


def test_a_dance_that_could_have_moved_is_an_error_naming_the_line():
    match = parse_mat(GNUBG_STYLE)  # 66 from the opening position can be played
    with pytest.raises(MatFileError, match=r"match:11: no move written for 66"):
        list(replay_turns(match))


@pytest.mark.parametrize(
    "text, message",
    [
        ("hello\n", "no ' N point match' line"),
        (" 3 point match\n Game 1\n alice : 0\n", "expected 'NAME : SCORE"),
        (
            " 3 point match\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5   42: 8/4 6/4   11: 6/5\n",
            "more than two entries",
        ),
        (" 3 point match\n Game 1\n a : 0   b : 0\n  1) Doubles => x\n", "expected 'Doubles => N'"),
    ],
)
def test_unreadable_files_get_one_line_errors(text, message):
    with pytest.raises(MatFileError, match=message) as info:
        parse_mat(text)
    assert "\n" not in str(info.value)


def test_an_illegal_move_is_reported_with_its_line(tmp_path):
    path = tmp_path / "bad.mat"
    path.write_text(" 1 point match\n\n Game 1\n a : 0                          b : 0\n  1) 51: 24/19 6/5\n")
    with pytest.raises(MatFileError, match=r"bad.mat:5: "):
        list(replay_turns(read_mat(path)))


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), length=st.integers(1, 3))
def test_our_records_read_back_move_for_move(tmp_path_factory, seed, length):
    folder = tmp_path_factory.mktemp("mat")
    journal = record_match(folder, random.Random(seed), length)
    written = [a for a in journal.actions if a[0] in ("move", "double", "take", "drop", "win")]
    match = read_mat(journal.mat_path)
    assert match.final_score == journal.recorder.score
    turns = list(replay_turns(match))
    moves = [(t.player, tuple(sorted(t.dice, reverse=True))) for t in turns if t.kind == "move"]
    assert moves == [(a[1], tuple(sorted(a[2:4], reverse=True))) for a in written if a[0] == "move"]
    played = [sorted(map(tuple, a[4])) for a in written if a[0] == "move"]
    assert [sorted(t.steps) for t in turns if t.kind == "move"] == played
    assert sum(t.kind == "double" for t in turns) == sum(a[0] == "double" for a in written)
