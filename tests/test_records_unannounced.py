"""A match whose start or resume line never reached the records still gets one (issue 36, defect 7b).

On a foreign server the match start came glued to the echo of the bot's tell and was lost: the
bot played ten matches to the end and wrote no ``match_start``, no journal and no ``.mat``, its
queue rows pointed at no match, and a resumed one got an empty ``.mat``.  The parser now finds
that start (``tests/test_clip_chat_glue.py``); the records no longer depend on it: the first
board of a game in progress begins the record, and after a restart continues the journal.
"""

from __future__ import annotations

import functools
import json

from fibsbot.arena.audit import Audit, audit_result
from fibsbot.protocol.match.driver import MatchDriver
from fibsbot.protocol.parser import ClipParser, MatchResumed, MatchStart
from fibsbot.records.events import event_logger
from fibsbot.records.journal import FINISHED, MatchJournal
from fibsbot.records.observer import MatchRecords
from tests.fibs_samples import OPENING_X_DOWN, with_fields
from tests.interrupt_harness import BOT, InterruptedMatch
from tests.test_match_crawford_reload import LENGTH, kill_in_the_crawford_game

HELP = (
    "Hi, I am fibsbotx, a backgammon bot (a program, not a person). I play 1 to 9 point matches. "
    "Type 'invite fibsbotx 5' to play me. Commands: tell fibsbotx help."
)
# what the foreign server sent, and the lines after it
GLUED_START = f"16 oppo {HELP}** You are now playing a 3 point match with oppo"
OPENING = with_fields(OPENING_X_DOWN.replace("bob", "oppo"), f3=3)  # ours to play 6-2 at 0-0


def log_lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def feed_without_starts(records: MatchRecords, driver: MatchDriver, text: str) -> None:
    """Feed the events of ``text`` but its match start and resume, as if those lines were lost."""
    for event in ClipParser().feed(text):
        if isinstance(event, (MatchStart, MatchResumed)):
            continue
        driver.handle(event)
        records.on_event(event, driver.snapshot())


def test_a_match_whose_start_line_was_lost_is_recorded_from_its_first_board(tmp_path):
    log_path = tmp_path / "events.jsonl"
    records = MatchRecords(
        tmp_path / "matches", None, user="fibsbotx", net_version="n", event_log=event_logger(log_path)
    )
    driver = MatchDriver()
    lines = [
        "login: 1 fibsbotx 1700000000 host",
        GLUED_START,
        "Starting a new game with oppo.",
        "You rolled 6, oppo rolled 2",
        "It's your turn to move.",
        OPENING,
    ]
    feed_without_starts(records, driver, "\r\n".join(lines) + "\r\n")
    assert driver.in_match and records.journal is not None
    assert records.journal.header["opponent"] == "oppo" and records.journal.header["length"] == 3
    assert records.journal.actions == [["game", 0, 0, False], ["opening", 0, 6, 2]]
    assert records.journal.mat_path.exists()
    (start,) = [line for line in log_lines(log_path) if line["event"] == "match_start"]
    assert start["opponent"] == "oppo" and start["announced"] is False
    assert "match_start_unseen" in [line["event"] for line in log_lines(log_path)]


def test_a_board_of_a_match_already_recorded_begins_nothing(tmp_path):
    records = MatchRecords(tmp_path / "matches", None, user="fibsbotx", net_version="n")
    driver = MatchDriver()
    text = "\r\n".join(["login: 1 fibsbotx 1700000000 host", GLUED_START, "Starting a new game with oppo.", OPENING])
    for event in ClipParser().feed(text + "\r\n" + OPENING + "\r\n"):
        driver.handle(event)
        records.on_event(event, driver.snapshot())
    assert len(list((tmp_path / "matches").glob("*.journal.json"))) == 1


class LinesLost(InterruptedMatch):
    """Every match start and resume line to the bot is lost, and the bot is killed mid-game."""

    def _handle(self, event) -> None:
        if isinstance(event, (MatchStart, MatchResumed)):
            self.handled += 1
            self.seen.append(event)
            return
        super()._handle(event)


def test_a_match_played_without_its_start_and_resume_lines_is_recorded_whole(tmp_path):
    def in_the_second_game(im: InterruptedMatch) -> bool:
        match = im.match
        return match is not None and len(match.history) >= 2 and len(match.history[-1]["actions"]) >= 5

    im = LinesLost(tmp_path, seed=3, length=5, double_rate=0.0, kill_when=in_the_second_game)
    im.play()
    assert im.kills == 1 and im.match.is_over
    audit = im.audit()
    assert audit.games_left_out == 0 and audit.moves_lost == 0 and audit.moves_wrong == 0, audit
    (journal_path,) = (tmp_path / "matches").glob("*.journal.json")
    journal = MatchJournal.load(journal_path)
    assert journal.status == FINISHED
    result = Audit()
    audit_result(im.match, im.match.seat_of(BOT), journal.actions, result, journal_path.name, claimed=True)
    assert result.result_mismatches == 0 and result.problems == []
    events = [line["event"] for line in log_lines(tmp_path / "events.jsonl")]
    assert events.count("match_start") == 1 and events.count("match_resumed") == 1
    assert events.count("match_end") == 1 and "record_skipped" not in events


def test_a_match_reloaded_in_its_crawford_game_without_a_resume_line_keeps_the_rule(tmp_path):
    # the server forgets the Crawford game on reload (its board says post-Crawford and it takes
    # doubles); with the resume line lost, only the journal on disk can tell the driver, at the
    # first board, before the records have opened it
    im = LinesLost(
        tmp_path,
        seed=5,
        length=LENGTH,
        double_rate=0.0,
        server={"crawford_lost_on_reload": True},
        kill_when=functools.partial(kill_in_the_crawford_game, moves_in=3),
    )
    im.play()
    assert im.kills == 1 and im.match.is_over
    crawford = next(game for game in im.match.history if LENGTH - 1 in game["score"])
    doubles = [action[1] for action in crawford["actions"] if action[0] == "double"]
    assert doubles and im.match.seat_of(BOT) not in doubles  # the opponent doubled; we never did
    audit = im.audit()
    assert audit.games_left_out == 0 and audit.moves_wrong == 0, audit


def test_a_new_match_with_the_same_opponent_whose_start_was_lost_gets_its_own_record(tmp_path):
    records = MatchRecords(tmp_path / "matches", None, user="fibsbotx", net_version="n")
    driver = MatchDriver()
    first = ["login: 1 fibsbotx 1700000000 host", GLUED_START, "Starting a new game with oppo.", OPENING]
    feed_without_starts(records, driver, "\r\n".join(first) + "\r\n")
    # the first match's end never came either; a new game at 0-0 can only be another match's
    second = ["Starting a new game with oppo.", "You rolled 6, oppo rolled 2", OPENING]
    feed_without_starts(records, driver, "\r\n".join(second) + "\r\n")
    journals = sorted((tmp_path / "matches").glob("*.journal.json"))
    assert len(journals) == 2 and records.journal.path == journals[-1]
    assert records.journal.actions == [["game", 0, 0, False], ["opening", 0, 6, 2]]
