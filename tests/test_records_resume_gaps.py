"""What a kill loses is found again when the match resumes: every cut point of seeded matches.

The matches are played on the server core with no clock (``tests.interrupt_harness``),
so each cut falls exactly where it is put: before the lines of a game's end, between
our roll and the server's report that we cannot move, at any event at all.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field

from fibsbot.arena.audit import Audit, audit_match, unrecoverable_games
from fibsbot.protocol.board import parse_board_line
from fibsbot.protocol.events import Board, CantMove, GameEnd, OpponentMoves, YouRoll
from fibsbot.protocol.match.driver import MatchDriver
from fibsbot.protocol.match.outputs import Send
from fibsbot.protocol.match.state import make_request
from fibsbot.records.events import event_logger
from fibsbot.records.journal import MatchJournal
from fibsbot.records.observer import MatchRecords
from fibsbot.records.queue import TrainingQueue
from fibsbot.records.resync import reconcile
from tests.fibs_samples import MID_X_DOWN, with_fields
from tests.interrupt_harness import InterruptedMatch, as_gnubg_match
from tests.test_records_interrupted import OPENING, board_for, feed, log_lines

SEED, LENGTH, DOUBLES = 2, 5, 0.02  # two games, a few cube actions, dances of both sides


def uncut_events(tmp_path) -> list:
    match = InterruptedMatch(tmp_path / "uncut", seed=SEED, length=LENGTH, double_rate=DOUBLES)
    match.play()
    assert match.audit().moves_lost == 0 and len(match.match.history) >= 2
    return match.seen


def cut_at(tmp_path, cut: int, **options) -> tuple[InterruptedMatch, Audit]:
    match = InterruptedMatch(
        tmp_path / f"cut-{cut}", seed=SEED, length=LENGTH, double_rate=DOUBLES, cuts=(cut,), **options
    )
    match.play()
    assert match.kills == 1
    return match, match.audit()


def left_out_lines(match: InterruptedMatch) -> list[dict]:
    return [line for line in log_lines(match.data_dir / "events.jsonl") if line["event"] == "game_left_out"]


def test_a_game_that_ended_while_the_bot_was_away_is_recorded_with_its_last_move_and_result(tmp_path):
    seen = uncut_events(tmp_path)
    end = next(i for i, event in enumerate(seen) if isinstance(event, GameEnd))
    last_board = max(i for i in range(end) if isinstance(seen[i], Board))
    last_move = max(i for i in range(end) if isinstance(seen[i], OpponentMoves))
    # before the opponent's last move line, before the final board, before the result
    for cut in sorted({last_move, last_board, end}):
        match, audit = cut_at(tmp_path, cut)
        assert audit.moves_lost == 0 and audit.moves_wrong == 0 and audit.games_left_out == 0, (cut, audit)
        assert left_out_lines(match) == []


def test_our_dance_that_the_bot_never_saw_is_inferred_from_the_journaled_roll(tmp_path):
    seen = uncut_events(tmp_path)
    dances = [i for i, event in enumerate(seen) if isinstance(event, CantMove) and event.is_us]
    assert dances
    for dance in dances[:3]:
        assert isinstance(seen[dance - 2], YouRoll)
        match, audit = cut_at(tmp_path, dance - 1)  # the roll handled; the board and "You can't move" lost
        assert audit.moves_lost == 0 and audit.moves_wrong == 0 and audit.games_left_out == 0, (dance, audit)


def test_no_cut_point_loses_a_move_and_only_unknowable_games_are_left_out(tmp_path):
    seen = uncut_events(tmp_path)
    unrecoverable = 0
    for k, cut in enumerate(range(7, len(seen), 53)):
        # every other cut point, the opponent's next command still reaches the server
        # (each match costs seconds of synced writes: one lag per cut point, not both)
        lag = k % 2
        match, audit = cut_at(tmp_path / f"lag{lag}", cut, lag=lag, queue=True)
        assert audit.moves_lost == 0 and audit.moves_wrong == 0, (cut, lag, audit.problems)
        unrecoverable += audit.games_unrecoverable
        # every game left out says why, and only for a reason that the boards cannot settle
        assert len(left_out_lines(match)) == audit.games_left_out == audit.games_unrecoverable, (cut, lag)
        with sqlite3.connect(match.data_dir / "queue.sqlite") as db:
            rows = db.execute("SELECT match_ref, game_number, move_number FROM disagreements").fetchall()
        mat = next((match.data_dir / "matches").glob("*.mat")).name
        assert rows and all(ref == mat for ref, _, _ in rows)
        placed = [row for row in rows if row[1] is not None and row[2] is not None]
        assert len(placed) == len(rows) or audit.games_left_out, (cut, lag, rows)
    assert unrecoverable <= 3  # rolls never shown (a dance, two rolls to one board): rare, not the rule


def test_a_cut_between_journaling_our_action_and_sending_it_loses_nothing(tmp_path):
    seen = uncut_events(tmp_path)
    for cut in range(11, len(seen), 97):
        match, audit = cut_at(tmp_path, cut, cut_before_send=True)
        assert audit.moves_lost == 0 and audit.moves_wrong == 0, (cut, audit.problems)


def test_a_double_announced_again_after_our_take_was_journaled_is_not_recorded_twice(tmp_path):
    log_path = tmp_path / "events.jsonl"
    records = MatchRecords(
        tmp_path / "matches", None, user="fibsbot", net_version="n", event_log=event_logger(log_path)
    )
    driver = MatchDriver()
    feed(
        records,
        driver,
        "** Player oppo has joined you for a 3 point match.\r\nStarting a new game with oppo.\r\n"
        "You rolled 6, oppo rolled 2\r\nIt's your turn to move.\r\n"
        + with_fields(MID_X_DOWN.replace("bob", "oppo"), f3=3, f4=0, f5=0)
        + "\r\n",
    )
    records.journal.record("move", 0, 6, 2, [[24, 18], [13, 11]])
    feed(records, driver, "oppo doubles. Type 'accept' or 'reject'.\r\n")
    records.journal.record("take", 0)  # our answer, journaled before the resumed match repeats the double
    before = list(records.journal.actions)
    feed(records, driver, "oppo doubles. Type 'accept' or 'reject'.\r\n")
    assert records.journal.actions == before and records.journal.game_in_progress
    assert not [line for line in log_lines(log_path) if line["event"] in ("record_skipped", "game_left_out")]


@dataclass
class _CubeAnswer:
    action: str
    take: bool
    ply0_action: str
    ply: int = 1
    equities: dict = field(default_factory=dict)


def test_the_queue_row_of_a_decision_that_ends_the_game_names_its_game_and_line(tmp_path):
    queue = TrainingQueue(tmp_path / "queue.sqlite")
    records = MatchRecords(
        tmp_path / "matches", queue, user="fibsbot", net_version="n", event_log=event_logger(tmp_path / "events.jsonl")
    )
    driver = MatchDriver()
    feed(
        records,
        driver,
        "** Player oppo has joined you for a 3 point match.\r\nStarting a new game with oppo.\r\n"
        "You rolled 6, oppo rolled 2\r\nIt's your turn to move.\r\n"
        + with_fields(MID_X_DOWN.replace("bob", "oppo"), f3=3, f4=0, f5=0)
        + "\r\n",
    )
    records.journal.record("move", 0, 6, 2, [[24, 18], [13, 11]])
    records.journal.record("double", 1)
    request = make_request("take", parse_board_line(with_fields(MID_X_DOWN, f38=0, f39=0, f40=1)), 1)
    records.on_decision(request, _CubeAnswer("double, pass", take=False, ply0_action="double, take"), [Send("reject")])
    queue.close()
    assert not records.journal.game_in_progress  # the drop ended the game
    with sqlite3.connect(tmp_path / "queue.sqlite") as db:
        rows = db.execute("SELECT match_ref, game_number, move_number FROM disagreements").fetchall()
    assert rows == [(records.journal.mat_path.name, 1, 2)]


def test_the_audit_counts_a_game_the_journal_could_not_rebuild_apart_from_lost_moves(tmp_path):
    actions = [
        ["game", 0, 0, False],
        ["opening", 0, 3, 1],
        ["move", 0, 3, 1, [[8, 5], [6, 5]]],
        ["leave_out", "more than one history fits"],
        ["unseen", 1, 0, "the bot never saw the game's beginning"],
    ]
    assert unrecoverable_games(actions) == {(0, 0), (1, 0)}
    assert unrecoverable_games([["game", 0, 0, False], ["leave_out", "record failed at event Board"]]) == set()

    class Played:  # the server's record: two games, neither in the file
        history = [
            {"score": (0, 0), "actions": [("move", 0, (3, 1), ((8, 5), (6, 5)))]},
            {"score": (1, 0), "actions": [("move", 1, (4, 2), ((8, 4), (6, 4)))]},
        ]

    audit = Audit()
    audit_match(Played, 0, as_gnubg_match(actions), audit, "m", unrecoverable_games(actions[:4]))
    assert (audit.moves_played, audit.games_left_out, audit.games_unrecoverable, audit.moves_lost) == (2, 2, 1, 1)
    json.dumps(audit.__dict__)


def test_an_opening_lost_after_the_game_was_journaled_is_taken_from_the_board(tmp_path):
    journal = MatchJournal.create(tmp_path, "fibsbot", "oppo", 5)
    journal.record("game", 0, 0, False)  # the game's first board was handled; the opening roll line was lost
    board = board_for(OPENING, OPENING, on_roll="us", dice=(5, 4))
    actions, note = reconcile(journal, board)
    assert note == "inferred" and actions[1:] == [["opening", 0, 5, 4]]


def test_the_board_sent_before_our_drop_arrives_late_and_leaves_no_game_out(tmp_path):
    # the server sends "oppo doubles" and then the board; the bot answers on the first line,
    # so the board (still at the old score, the double pending) comes after our drop
    log_path = tmp_path / "events.jsonl"
    records = MatchRecords(
        tmp_path / "matches", None, user="fibsbot", net_version="n", event_log=event_logger(log_path)
    )
    driver = MatchDriver()
    start = with_fields(MID_X_DOWN.replace("bob", "oppo"), f3=3, f4=0, f5=0)
    feed(
        records,
        driver,
        "** Player oppo has joined you for a 3 point match.\r\nStarting a new game with oppo.\r\n"
        "You rolled 6, oppo rolled 2\r\nIt's your turn to move.\r\n" + start + "\r\n",
    )
    records.journal.record("move", 0, 6, 2, [[24, 18], [13, 11]])
    feed(records, driver, "oppo doubles. Type 'accept' or 'reject'.\r\n")
    records.journal.record("drop", 0)  # our answer, journaled before it is sent
    feed(records, driver, with_fields(start, f33=0, f34=0, f40=1) + "\r\n")
    assert records.journal.actions[-1] == ["drop", 0]
    assert not [line for line in log_lines(log_path) if line["event"] in ("record_skipped", "game_left_out")]
