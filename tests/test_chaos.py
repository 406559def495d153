"""The fault test, short: matches on the local server under dropped connections, SIGKILLed
daemons, opponents who log out as they win and tell echoes glued to the next line; the
records must hold every move played, except in a game the bot could not follow and says
so.  ``fibsbot arena --chaos --matches 200`` runs the long version."""

from __future__ import annotations

from fibsbot.arena.audit import Audit, audit_result, read_as_analyse_does
from fibsbot.arena.chaos import run_chaos
from tests.gnubg_cli import require_gnubg


async def test_matches_under_faults_lose_no_move_unsaid_and_leave_none_stuck(tmp_path):
    require_gnubg()
    result = await run_chaos(matches=8, length=3, data_dir=tmp_path, seed=12, ply=1, fault_rate=0.5)
    audit = result.audit
    assert result.drops + result.kills >= 3 and result.restarts == result.kills and result.daemon_exits == 0
    assert result.stuck == 0 and result.finished + result.resumable == 8
    # the server glued the echo of the daemon's tells to the next line, as a foreign server did
    # (issue 36): every match played still has its record, and no queue row points at no match
    assert result.chats >= 8 and result.echoes_glued > 0
    assert result.records == 8 and audit.problems == []
    assert audit.moves_played > 300 and audit.moves_wrong == 0
    # the moves missing are those of games left out, each with a log line; of those, the ones
    # the bot could not reconstruct are counted apart, and only the others count as lost
    assert audit.moves_recorded + audit.moves_left_out == audit.moves_played
    assert audit.moves_lost == audit.moves_left_out - audit.moves_unrecoverable
    left_out_lines = (tmp_path / "log" / "fibsbot.jsonl").read_text().count('"event": "game_left_out"')
    assert left_out_lines >= audit.games_left_out
    assert audit.queue_rows > 0 and audit.queue_rows_dangling == 0 and result.observer_failures == 0
    # every match file is read by fibsbot analyse's reader, every queue row that names a game and line
    # finds its position there, and every finished match's result in the records is the server's score
    assert audit.mats_unreadable == 0 and audit.queue_rows_misplaced == 0
    assert audit.results_checked == result.finished and audit.result_mismatches == 0


class _Finished:  # the server's record of a match that ended 3-1, our seat 1
    is_over = True
    scores = [1, 3]


def test_the_audit_counts_match_files_analyse_cannot_read_and_results_unlike_the_servers(tmp_path):
    unreadable = tmp_path / "broken.mat"
    unreadable.write_text(" 3 point match\n\n Game 1\n a : 0   b : 0\n  1) 31: 24/18\n")  # not a move of 31
    audit = Audit()
    assert read_as_analyse_does(unreadable, audit) is None and audit.mats_unreadable == 1
    won = [["game", 0, 0, False], ["win", 1, 1], ["game", 0, 1, False], ["win", 0, 3]]
    audit_result(_Finished, 1, won, audit, "m1", claimed=True)
    audit_result(_Finished, 1, won + [["end", 3, 1]], audit, "m2", claimed=True)
    audit_result(_Finished, 1, won[:2] + [["game", 0, 1, False], ["leave_out", "x"]], audit, "m3", claimed=False)
    assert (audit.results_checked, audit.result_mismatches, audit.results_unknown) == (3, 0, 1)
    audit_result(_Finished, 1, won[:2], audit, "m4", claimed=True)
    assert audit.result_mismatches == 1 and "m4: the server's final score is 3-1" in audit.problems[-1]
