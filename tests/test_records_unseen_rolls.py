"""A roll the bot never saw costs no game when the position shows all that matters, and the
queue rows of a game the record does leave out never come to name another game."""

from __future__ import annotations

from fibsbot.arena.audit import Audit, audit_queue
from fibsbot.owner.matread import read_mat
from tests.records_script import ScriptedMatch

SPLIT = ((24, 22), (24, 23))  # our 21: blots on their 3 and 2 points
POINT_ON_OUR_BLOT = ((8, 3), (6, 3))  # their 53 hits us on their 3 point and closes it


def on_the_bar_against_their_6_5_and_3_points(tmp_path) -> ScriptedMatch:
    """Game 1 of a 3-point match: they open 31 (making their 5 point), we split, their 53 hits;
    we are on the bar, and we have asked the server to roll."""
    match = ScriptedMatch(tmp_path, length=3)
    match.joined()
    match.new_game(1, 3)
    match.they_move(3, 1, ((8, 5), (6, 5)), rolled=False)
    match.we_roll_rather_than_double()  # a queue row: the quick look would have doubled
    match.we_roll(2, 1)
    match.we_move(2, 1, SPLIT)  # a queue row
    match.they_move(5, 3, POINT_ON_OUR_BLOT)
    match.we_roll_rather_than_double()  # journaled, sent, and then the kill
    return match


def placed_rows(match: ScriptedMatch) -> Audit:
    audit = Audit()
    audit_queue(match.data_dir / "queue.sqlite", match.data_dir / "matches", audit)
    return audit


def test_our_dance_whose_roll_never_reached_the_bot_keeps_the_game_with_a_roll_that_fits(tmp_path):
    match = on_the_bar_against_their_6_5_and_3_points(tmp_path)
    match.kill()  # "You roll 5 and 3." and "You can't move." never reach the bot; the server passes the turn
    match.resumed(turn="oppo", on_roll="them")

    assert match.events("game_left_out") == []
    journal = match.records.journal
    dancing = [[3, 3], [3, 5], [3, 6], [5, 5], [5, 6], [6, 6]]  # both dice on their closed points
    dance = journal.actions[-2]
    assert dance[:2] == ["move", 0] and dance[4] == [] and sorted(dance[2:4]) in dancing
    assert journal.actions[-1] == ["roll_guessed", 0, *dance[2:4], dancing]
    [logged] = match.events("roll_guessed")
    assert logged["fitting"] == dancing and logged["recorded"] == dance[2:4]
    text = journal.mat_path.read_text()
    header = text[: text.index(" 3 point match")]
    assert "; Game 1 move 3: fibsbot's roll was never seen; every roll of 33 53 63 55 65 66 gives a dance" in header
    game = read_mat(journal.mat_path).games[0]
    assert [(a.player, a.dice, a.text) for a in game.actions][-1] == (0, tuple(dance[2:4]), "")
    # the rows written before the kill stand where they say: the cube decisions on the line of
    # the roll they asked for, the move on its own line
    assert [row[1:3] for row in match.queue_rows()] == [(1, 2), (1, 2), (1, 3)]
    audit = placed_rows(match)
    assert (audit.queue_rows, audit.queue_rows_misplaced, audit.queue_rows_unplaced, audit.mats_unreadable) == (
        3,
        0,
        0,
        0,
    ), audit.problems


def test_their_move_that_three_rolls_explain_keeps_the_game_with_one_of_them(tmp_path):
    match = ScriptedMatch(tmp_path, length=3)
    match.joined()
    match.new_game(4, 2)  # we open 42
    match.we_move(4, 2, ((8, 4), (6, 4)))
    match.kill()
    match.moved_unseen(1, ((13, 7), (7, 6)))  # their 61 (or 52, or 43: the same checker 13 to 6)
    match.resumed(turn="fibsbot", on_roll="us")

    assert match.events("game_left_out") == []
    actions = match.records.journal.actions
    assert actions[-2][:2] == ["move", 1] and actions[-1][:2] == ["roll_guessed", 1]
    assert actions[-1][4] == [[1, 6], [2, 5], [3, 4]]
    assert "every roll of 61 52 43 gives the same board" in match.records.journal.mat_path.read_text()


def test_queue_rows_of_a_game_left_out_lose_their_place_and_never_name_the_next_game(tmp_path):
    match = on_the_bar_against_their_6_5_and_3_points(tmp_path)
    match.kill()
    # while the bot was away game 1 ended and game 2 began: no history it can follow gets there
    match.moved_unseen(1, ((13, 7), (13, 8)))
    match.score = [0, 1]
    match.resumed(turn="oppo", on_roll="them")
    assert [line["reason"] for line in match.events("game_left_out")][0] == "no journal state fits the server's board"
    match.lines("oppo wins the game and gets 1 point. Sorry.")
    match.score = [0, 2]
    match.new_game(6, 5)  # the third game (the second was never seen from its beginning), followed from its start
    match.we_move(6, 5, ((24, 18), (18, 13)))

    rows = match.queue_rows()
    # the file holds that game alone, so as its game 1 (gnubg reads games numbered 1, 2, ... only)
    assert [row[1:3] for row in rows[:3]] == [(None, None)] * 3 and rows[3][1:3] == (1, 1)
    audit = placed_rows(match)
    assert (audit.queue_rows_misplaced, audit.queue_rows_unplaced, audit.queue_rows_dangling) == (0, 3, 0), (
        audit.problems
    )
    assert [game.number for game in read_mat(match.records.journal.mat_path).games] == [1]
