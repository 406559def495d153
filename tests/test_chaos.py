"""The fault test, short: matches on the local server under dropped connections, SIGKILLed
daemons and opponents who log out as they win; the records must hold every move played,
except in a game the bot could not follow and says so.  ``fibsbot arena --chaos
--matches 200`` runs the long version."""

from __future__ import annotations

from fibsbot.arena.chaos import run_chaos
from tests.gnubg_cli import require_gnubg


async def test_matches_under_faults_lose_no_move_unsaid_and_leave_none_stuck(tmp_path):
    require_gnubg()
    result = await run_chaos(matches=8, length=3, data_dir=tmp_path, seed=12, ply=1, fault_rate=0.5)
    audit = result.audit
    assert result.drops + result.kills >= 3 and result.restarts == result.kills and result.daemon_exits == 0
    assert result.stuck == 0 and result.finished + result.resumable == 8
    assert result.records == 8 and audit.problems == []
    assert audit.moves_played > 300 and audit.moves_wrong == 0
    # the moves missing are those of games left out, each with a log line; of those, the ones
    # the bot could not reconstruct are counted apart, and only the others count as lost
    assert audit.moves_recorded + audit.moves_left_out == audit.moves_played
    assert audit.moves_lost == audit.moves_left_out - audit.moves_unrecoverable
    left_out_lines = (tmp_path / "log" / "fibsbot.jsonl").read_text().count('"event": "game_left_out"')
    assert left_out_lines >= audit.games_left_out
    assert audit.queue_rows > 0 and audit.queue_rows_dangling == 0 and result.observer_failures == 0
