"""The Crawford game in a match record: the recorder's own reckoning, a double a server let
through, a Crawford game the file does not hold, and both readers (analyse's and gnubg's)."""

from __future__ import annotations

import pytest

from fibsbot.owner.matread import MatFileError, parse_mat, read_mat
from fibsbot.owner.replay import replay_turns
from fibsbot.records.matfile import MatchRecorder
from tests.gnubg_cli import require_gnubg
from tests.test_matfile import gnubg_read_match

PLAYERS = ("fibsbot", "oppo")


def opening(recorder: MatchRecorder) -> None:
    recorder.roll_and_move(0, (3, 1), [(8, 5), (6, 5)])
    recorder.roll_and_move(1, (6, 4), [(24, 18), (13, 9)])


def first_game_to_4_1(tmp_path) -> MatchRecorder:
    """A 5-point match resumed at 3-1 (the server's score) whose game we win: 4-1."""
    recorder = MatchRecorder(tmp_path / "m.mat", PLAYERS, 5)
    recorder.start_game(score=(3, 1), crawford=False)
    opening(recorder)
    recorder.win(0, 1)
    return recorder


def analysed(recorder: MatchRecorder) -> list:
    """What ``fibsbot analyse`` reads of the file: every turn, or a MatFileError."""
    recorder.flush()
    return list(replay_turns(read_mat(recorder.path)))


def test_the_crawford_game_is_the_records_reckoning_not_the_servers(tmp_path):
    recorder = first_game_to_4_1(tmp_path)
    recorder.start_game(crawford=False)  # a reloaded board with its Crawford field unset
    assert recorder.games[-1].crawford and recorder.crawford_game_at((4, 1)) is True
    recorder.win(1, 1)
    recorder.start_game(crawford=True)  # a server that lost the Crawford game calls the next one so
    assert not recorder.games[-1].crawford and recorder.crawford_game_at((4, 2)) is False


def test_an_opponents_double_in_the_crawford_game_is_kept_and_both_readers_read_the_file(tmp_path):
    recorder = first_game_to_4_1(tmp_path)
    recorder.start_game(crawford=False)
    opening(recorder)
    recorder.double(1)  # oppo doubles in the Crawford game; the server passes it on
    recorder.take(0)
    recorder.roll_and_move(0, (2, 1), [(13, 11), (6, 5)])
    recorder.win(1, 2)  # 4-3: the next game is after the Crawford game
    recorder.start_game(crawford=True)
    opening(recorder)
    recorder.double(1)  # legal now: oppo trails, the Crawford game is over
    recorder.drop(0)
    text = recorder.text()
    assert '; [Server rule breach "Game 2: oppo doubled to 2 in the Crawford game, which the server allowed"]' in (
        text.splitlines()
    )
    assert "CrawfordGame" not in text  # the file's first game at 4-away is the Crawford game
    turns = analysed(recorder)
    kinds = [(turn.game, turn.kind, turn.player) for turn in turns if turn.kind != "move"]
    assert kinds == [(2, "double", 1), (2, "take", 0), (3, "double", 1), (3, "drop", 0)]
    crawford_double = next(turn for turn in turns if turn.kind == "double")
    assert crawford_double.state.crawford and crawford_double.state.score == (4, 1)
    assert recorder.score == (4, 4)


def test_a_left_out_crawford_game_is_named_so_the_next_games_double_reads(tmp_path):
    recorder = first_game_to_4_1(tmp_path)
    recorder.start_game(crawford=True)
    opening(recorder)
    recorder.leave_out_game("more than one history fits")
    recorder.start_game(score=(4, 2), crawford=True)  # the server calls it the Crawford game
    assert not recorder.games[-1].crawford
    opening(recorder)
    recorder.double(1)
    recorder.take(0)
    recorder.win(0, 2)
    assert '; [CrawfordGame "none"]' in recorder.text().splitlines()
    match = parse_mat(recorder.text())
    assert [game.crawford for game in match.games] == [False, False]
    assert [turn.kind for turn in analysed(recorder)].count("double") == 1
    unnamed = recorder.text().replace('; [CrawfordGame "none"]\n', "")
    with pytest.raises(MatFileError, match="may not double here"):  # how the file read without it
        list(replay_turns(parse_mat(unnamed)))


def test_an_unseen_crawford_game_makes_the_next_game_one_after_it(tmp_path):
    recorder = first_game_to_4_1(tmp_path)
    recorder.skip_unseen_game((4, 1), "its beginning was never seen")
    recorder.start_game(score=(4, 3), crawford=True)
    assert not recorder.games[-1].crawford
    assert '; [CrawfordGame "none"]' in recorder.text().splitlines()


def test_a_pointless_double_at_double_match_point_is_legal_and_reads(tmp_path):
    recorder = MatchRecorder(tmp_path / "m.mat", PLAYERS, 5)
    recorder.start_game(score=(4, 4), crawford=False)
    opening(recorder)
    recorder.double(0)  # the cube is dead, but a server takes it and the rules allow it
    recorder.take(1)
    recorder.win(0, 2)
    assert [turn.kind for turn in analysed(recorder) if turn.kind != "move"] == ["double", "take"]


def test_a_record_that_begins_at_4_away_asks_the_server_once(tmp_path):
    recorder = MatchRecorder(tmp_path / "m.mat", PLAYERS, 5)
    assert recorder.crawford_game_at((4, 1)) is None  # nothing before it: the record cannot tell
    recorder.start_game(score=(4, 1), crawford=True)
    assert recorder.crawford_game_at((4, 1)) is True and recorder.crawford_game_at((4, 2)) is False


def test_a_header_that_names_a_game_short_of_the_length_is_refused(tmp_path):
    recorder = first_game_to_4_1(tmp_path)
    text = recorder.text().replace(" 5 point match", '; [CrawfordGame "1"]\n\n 5 point match')
    with pytest.raises(MatFileError, match='CrawfordGame "1" names no game'):
        parse_mat(text)


def test_gnubg_imports_the_crawford_files_without_a_warning(tmp_path):
    require_gnubg()
    breach = first_game_to_4_1(tmp_path / "breach")
    breach.start_game(crawford=False)
    opening(breach)
    breach.double(1)
    breach.take(0)
    breach.win(1, 2)
    left_out = first_game_to_4_1(tmp_path / "left_out")
    left_out.start_game(crawford=True)
    opening(left_out)
    left_out.leave_out_game("more than one history fits")
    left_out.start_game(score=(4, 2))
    opening(left_out)
    left_out.double(1)
    left_out.take(0)
    left_out.win(0, 2)
    comments = []
    for recorder in (breach, left_out):
        recorder.flush()
        match, output = gnubg_read_match(recorder.path, recorder.path.parent)
        assert "WARNING" not in output and "Unrecognised" not in output, output[-2000:]
        assert [record["action"] for record in match["games"][1]["game"]][-3:] == ["double", "take", "resign"]
        comments.append(match["match-info"].get("comment", ""))
    assert "Server rule breach" in comments[0] and "CrawfordGame" in comments[1]
