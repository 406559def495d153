"""The result of a match is the server's final score, in the records, the owner's index and
``fibsbot status``, even when the record had to leave the deciding game out."""

from __future__ import annotations

from fibsbot.arena.audit import gnubg_matches
from fibsbot.owner.index import MatchIndex
from fibsbot.owner.matread import read_mat
from fibsbot.owner.replay import replay_turns
from fibsbot.owner.status import collect_status, format_status
from tests.gnubg_cli import require_gnubg
from tests.records_script import ScriptedMatch


def resumed_in_a_game_left_out(tmp_path) -> ScriptedMatch:
    """A 7-point match: game 1 won 2 points by their resignation, game 2 (at 2-0) lost to a kill
    (two turns the bot never saw) and resumed, so that the record leaves it out."""
    match = ScriptedMatch(tmp_path, length=7)
    match.joined()
    match.new_game(5, 2)
    match.we_move(5, 2, ((13, 8), (13, 11)))
    match.they_move(3, 1, ((8, 5), (6, 5)))
    match.lines(
        "oppo wants to resign. You will win 2 points. Type 'accept' or 'reject'.", "You accept and win 2 points."
    )
    match.score = [2, 0]
    match.new_game(6, 1)
    match.we_move(6, 1, ((13, 7), (8, 7)))
    match.kill()
    match.moved_unseen(1, ((24, 20), (13, 7)))
    match.moved_unseen(0, ((24, 20), (20, 15)))  # two turns: no history the bot can follow
    match.resumed(turn="oppo", on_roll="them")
    return match


def won_8_0_with_the_last_game_left_out(tmp_path) -> ScriptedMatch:
    """The game left out is won for 6 points and the match; the server says so in its own words."""
    match = resumed_in_a_game_left_out(tmp_path)
    match.lines(
        "You win the game and get 6 points. Congratulations!",
        "You win the 7 point match 8-0 .",
        "End of match, score 8-0.",
    )
    return match


def test_the_match_result_and_the_owners_totals_are_the_servers_final_score(tmp_path):
    match = won_8_0_with_the_last_game_left_out(tmp_path)
    assert [line["reason"] for line in match.events("game_left_out")] == ["no journal state fits the server's board"]
    [end] = match.events("match_end")  # the game end already brings the server's score to 8
    assert end["scores"] == [8, 0] and end["we_won"] is True
    assert match.records.finished and match.records.journal is None

    [summary] = MatchIndex(tmp_path).summaries()
    assert summary.finished and summary.won and summary.score == (8, 0)
    totals = collect_status(tmp_path)["totals"]
    assert (totals["matches"], totals["won"], totals["points_won"], totals["points_lost"]) == (1, 1, 8, 0)
    assert "points 8 won, 0 lost" in format_status(collect_status(tmp_path))


def test_a_mat_that_leaves_the_deciding_game_out_says_so_and_keeps_each_games_true_score(tmp_path):
    match = won_8_0_with_the_last_game_left_out(tmp_path)
    mat = match.records.finished[0]
    text = mat.read_text()
    header = text[: text.index(" 7 point match")]
    assert "; A game at 2-0 is left out: no journal state fits the server's board" in header
    assert "; The match ended 8-0 (the server's score); the games recorded here end at 2-0" in header
    read = read_mat(mat)  # as fibsbot analyse reads it
    assert [(g.number, g.score, g.winner, g.points) for g in read.games] == [(1, (0, 0), 0, 2)]
    assert len(list(replay_turns(read))) == 2


def test_gnubg_reads_the_recorded_game_at_its_score_and_the_servers_result_in_the_comment(tmp_path):
    require_gnubg()
    match = won_8_0_with_the_last_game_left_out(tmp_path)
    mat = match.records.finished[0]
    read = gnubg_matches([mat])[str(mat)]
    assert [(g["info"]["score-X"], g["info"]["score-O"]) for g in read["games"]] == [(0, 0)]
    assert "The match ended 8-0" in read["match-info"]["comment"]


def test_a_match_won_in_a_game_left_out_ends_at_the_servers_score_without_a_match_end_line(tmp_path):
    """The daemon is stopped a moment after the last game: only the game-end line arrives.  The
    record left that game out, so the server's score before it, plus the points, ends the match."""
    match = resumed_in_a_game_left_out(tmp_path)
    match.lines("You win the game and get 6 points. Congratulations!")
    assert len(match.events("game_left_out")) == 1
    [end] = match.events("match_end")
    assert end["scores"] == [8, 0] and end["announced"] is False and end["we_won"] is True
    assert match.records.finished and match.records.journal is None
    [summary] = MatchIndex(tmp_path).summaries()
    assert summary.finished and summary.won and summary.score == (8, 0)
