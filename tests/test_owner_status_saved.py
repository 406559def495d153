"""`fibsbot status`: a saved match is not the current one once the daemon has finished another."""

from __future__ import annotations

import os
import random
import time

from tests.owner_fixture import make_data_dir, record_match
from tests.test_cli import run_cli
from tests.test_owner_accounts import daemon_process, started_owner
from tests.test_owner_status import status_json


def age(journal, seconds: float) -> None:
    """As if the journal's last action were ``seconds`` ago."""
    then = time.time() - seconds
    os.utime(journal, (then, then))


def test_a_match_left_unfinished_before_another_finished_is_saved_waiting_for_its_opponent(tmp_path):
    make_data_dir(tmp_path, matches=1, with_owner_files=False)
    alice = record_match(tmp_path / "matches", random.Random(3), 5, finish=False, opponent="alice")
    age(alice.path, 3600)  # the daemon played on after alice left
    status = status_json(tmp_path)
    assert status["current_match"] is None and status["unfinished"] == 1
    [saved] = status["saved_matches"]
    assert saved["opponent"] == "alice" and saved["length"] == 5
    code, out, _ = run_cli(["status", "--data-dir", str(tmp_path)])
    assert code == 0 and "current match" not in out
    score = f"{saved['score'][0]}-{saved['score'][1]}"
    assert f"saved match: vs alice, 5-point, score {score}: saved, waiting for alice" in out


def test_the_newest_match_in_progress_stays_current_beside_older_saved_ones(tmp_path):
    make_data_dir(tmp_path, matches=1, with_owner_files=False)
    names = ["alice", "bob", "carol", "dave", "erin", "frank"]
    for k, name in enumerate(names):
        journal = record_match(tmp_path / "matches", random.Random(k), 3, finish=False, opponent=name)
        age(journal.path, 7200 - k)  # all saved before the finished match
        time.sleep(0.01)  # journal names carry the start time: keep them in order
    bob = record_match(tmp_path / "matches", random.Random(9), 7, finish=False, opponent="bob")
    with daemon_process() as child:  # the daemon plays bob's newer match
        owner = started_owner(tmp_path, child.pid)
        owner._follow_match("bob", 7)
        owner._write_state()
        status = status_json(tmp_path)
        code, out, _ = run_cli(["status", "--data-dir", str(tmp_path)])
    assert status["current_match"]["opponent"] == "bob" and status["current_match"]["length"] == 7
    assert [m["opponent"] for m in status["saved_matches"]] == names[::-1]
    assert "current match: vs bob, 7-point" in out and "saved, waiting for frank" in out
    assert "saved, waiting for alice" not in out and "and 1 more saved match\n" in out
    assert bob.path.exists()
