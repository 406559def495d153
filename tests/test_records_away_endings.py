"""What happened while the bot was away, rebuilt from what the server shows, or left out with why.

The harness cases were found by a seeded sweep over the cut points of
``tests.interrupt_harness`` matches, the fixtures in a fault run: before the fix each
lost moves (its game fitted no history and was dropped, its last move and result never
reached the ``.mat``, or a journal in step was doubted by dances that could not happen).
"""

from __future__ import annotations

from fibsbot.protocol.board import parse_board_line
from fibsbot.records.inference import ROLLS
from fibsbot.records.journal import MatchJournal
from fibsbot.records.resync import AMBIGUOUS, UNRECOVERABLE, conclude, reconcile
from fibsbot.records.resync import UNSEEN_DANCES as UNSEEN_DANCES_REASON
from tests.interrupt_harness import InterruptedMatch
from tests.resume_fixtures import DANCE_PAIRS, IN_STEP, ONE_MOVE_OR_MORE, UNSEEN_DANCES
from tests.test_records_interrupted import log_lines


def played(tmp_path, seed: int, cuts: tuple[int, ...], lag: int) -> tuple[InterruptedMatch, list[dict]]:
    match = InterruptedMatch(tmp_path, seed=seed, length=3, cuts=cuts, lag=lag)
    match.play()
    assert match.kills == len(cuts)
    lines = [
        line
        for line in log_lines(tmp_path / "events.jsonl")
        if line["event"] in ("record_resumed", "record_concluded", "game_left_out")
    ]
    return match, lines


def test_the_opponents_drop_of_our_double_while_we_were_away_ends_the_game_in_the_record(tmp_path):
    # we doubled (journaled, sent), the kill came, the opponent dropped; the resumed board is between games
    match, lines = played(tmp_path, seed=0, cuts=(56,), lag=1)
    first = match.match.history[0]
    assert first["actions"][-2:] == [("double", 1), ("drop", 0)]  # the bot sits in seat 1
    audit = match.audit()
    assert (audit.moves_lost, audit.moves_wrong, audit.games_left_out) == (0, 0, 0), audit
    assert [line["state"] for line in lines] == ["inferred"]


def test_a_game_that_ended_and_the_next_that_began_while_we_were_away_are_both_rebuilt(tmp_path):
    # as above, and killed again before the resumed board: the next board is of the next game,
    # whose opening (ours, shown by the board's dice) the bot never saw either
    match, lines = played(tmp_path, seed=0, cuts=(56, 73), lag=1)
    audit = match.audit()
    assert (audit.moves_lost, audit.moves_wrong, audit.games_left_out) == (0, 0, 0), audit
    assert [line["state"] for line in lines if line["event"] == "record_resumed"] == ["inferred"]


def test_a_match_won_by_the_opponents_last_roll_while_we_were_away_gets_its_last_move_and_result(tmp_path):
    # the opponent's roll was journaled, then the kill; its move bore off the last checker and won
    # the match, so no saved match is listed when the bot comes back
    match, lines = played(tmp_path, seed=4, cuts=(294,), lag=1)
    audit = match.audit()
    assert (audit.moves_lost, audit.moves_wrong, audit.games_left_out) == (0, 0, 0), audit
    assert [(line["event"], line["state"]) for line in lines] == [("record_concluded", "ended")]
    journal = MatchJournal.load(next((tmp_path / "matches").glob("*.journal.json")))
    assert journal.status == "finished" and journal.recorder.is_over


def test_a_match_gone_from_the_server_ended_by_the_opponents_drop_of_our_double(tmp_path):
    journal = MatchJournal.create(tmp_path, "fibsbot", "oppo", 3)
    for action in (
        ["game", 2, 0, False],
        ["opening", 0, 3, 1],
        ["move", 0, 3, 1, [[8, 5], [6, 5]]],
        ["roll", 1, 4, 2],
        ["move", 1, 4, 2, [[8, 4], [6, 4]]],
        ["double", 0],
    ):
        journal.record(*action)
    actions, note = conclude(journal)
    assert note == "ended" and actions[-1] == ["drop", 1]
    journal.rewrite(actions)
    assert journal.recorder.is_over and journal.recorder.score == (3, 0)


def test_a_match_gone_from_the_server_that_no_end_explains_leaves_the_game_out(tmp_path):
    journal = MatchJournal.create(tmp_path, "fibsbot", "oppo", 3)
    for action in (["game", 0, 0, False], ["opening", 0, 3, 1], ["move", 0, 3, 1, [[8, 5], [6, 5]]]):
        journal.record(*action)
    actions, note = conclude(journal)
    assert note == "left_out" and actions[-1][0] == "leave_out" and actions[-1][1] != AMBIGUOUS


def test_an_unseen_roll_that_every_roll_explains_ends_the_match_with_one_roll_that_fits(tmp_path):
    # 1-point match; the opponent, to roll, has two checkers left on its 1 point: any roll bears
    # them off to the same final position (set on the replayed state: no short game reaches it)
    journal = MatchJournal.create(tmp_path, "fibsbot", "oppo", 1)
    for action in (["game", 0, 0, False], ["opening", 0, 3, 1], ["move", 0, 3, 1, [[8, 5], [6, 5]]]):
        journal.record(*action)
    board = journal.state.recorder.games[-1].board
    board[1][:] = 0
    board[1][0] = 2
    actions, note = conclude(journal)
    assert note == "ended" and actions[-3][:2] == ["move", 1] and actions[-1][:2] == ["win", 1]
    assert actions[-2] == ["roll_guessed", 1, *actions[-3][2:4], [list(roll) for roll in ROLLS]]


def _resumed(tmp_path, fixture: dict, extra: list | None = None) -> tuple[list, str]:
    journal = MatchJournal.create(tmp_path, "fibsbot", "sparring", fixture["length"])
    journal.rewrite(fixture["actions"] + (extra or []))
    return reconcile(journal, parse_board_line(fixture["board"]))


def test_a_journal_in_step_is_not_doubted_by_dances_of_ours_that_no_roll_of_ours_allowed(tmp_path):
    # we may double, so the server waits for our roll: a dance of ours (and theirs after it,
    # which would give the same board) cannot have happened unless our roll was requested
    actions, note = _resumed(tmp_path / "a", IN_STEP)
    assert note == "in_step" and actions == IN_STEP["actions"]
    actions, note = _resumed(tmp_path / "b", IN_STEP, [["rolling", 0]])  # requested, then the kill
    assert note == "left_out" and actions[-1] == ["leave_out", AMBIGUOUS]


def test_more_turns_than_the_search_follows_while_the_server_rolls_for_us_are_unseen_dances(tmp_path):
    # the opponent owns the cube: the server rolled for us, we danced, and the opponent went on
    actions, note = _resumed(tmp_path, UNSEEN_DANCES)
    assert note == "left_out" and actions[-1] == ["leave_out", UNSEEN_DANCES_REASON]
    assert UNSEEN_DANCES_REASON in UNRECOVERABLE


def test_a_history_in_which_the_opponent_moved_after_an_unseen_dance_of_ours_is_not_guessed(tmp_path):
    # the Crawford game: the server rolled for us, we danced, the opponent moved, and again; a history
    # of two such pairs fits the board, but so does one of three (which the server played): the
    # moves between are unknown, so the game is left out instead of recorded wrongly
    actions, note = _resumed(tmp_path, DANCE_PAIRS)
    assert note == "left_out" and actions[-1] == ["leave_out", UNSEEN_DANCES_REASON]
    assert actions[:-1] == DANCE_PAIRS["actions"]


def test_one_move_of_the_opponent_while_the_server_rolls_for_us_and_we_sit_on_the_bar_is_not_guessed(tmp_path):
    # our dance was journaled; the server then rolled for us while the bot was away: one move
    # of the opponent fits the board, and so did the three turns the server really played
    actions, note = _resumed(tmp_path, ONE_MOVE_OR_MORE)
    assert note == "left_out" and actions[-1] == ["leave_out", UNSEEN_DANCES_REASON]
    assert actions[:-1] == ONE_MOVE_OR_MORE["actions"]
