"""A daemon's records hold no memory per match it finished: a year of matches (18,000 at
50 a day) must leave it the size it had after the first few hundred."""

from __future__ import annotations

from fibsbot.records.observer import MatchRecords
from tests.records_script import USER, ScriptedMatch, event_logger


def _won_by_resignation(match: ScriptedMatch) -> None:
    match.joined()
    match.new_game(5, 2)
    match.we_move(5, 2, ((13, 8), (13, 11)))
    match.lines(
        "oppo wants to resign. You will win 1 point. Type 'accept' or 'reject'.",
        "You accept and win 1 point.",
        "You win the 1 point match 1-0 .",
    )


def test_the_records_count_every_finished_match_and_keep_only_the_last_files(tmp_path):
    match = ScriptedMatch(tmp_path, length=1)
    match.records = MatchRecords(
        tmp_path / "matches",
        match.queue,
        user=USER,
        net_version="n",
        event_log=event_logger(tmp_path / "events.jsonl"),
        keep_finished=2,
    )
    for _ in range(3):
        _won_by_resignation(match)
    assert match.records.finished_count == 3
    assert len(match.records.finished) == 2
    assert len(list((tmp_path / "matches").glob("*.mat"))) == 3  # the files stay on disk, of course
