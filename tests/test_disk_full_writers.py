"""Each writer of the data directory on a full disk: nothing written is lost or corrupted,
nothing reaches the caller, and what waited is written once there is room."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys

import pytest

from fibsbot.client.policy import DISK_FULL, Policy, PolicySettings
from fibsbot.owner.disk import FULL_BELOW, disk_line, disk_usage
from fibsbot.protocol.events import Invitation
from fibsbot.records.journal import MatchJournal
from fibsbot.records.logfiles import RotatingLog
from fibsbot.records.matfile import MatchRecorder
from fibsbot.records.queue import Disagreement, TrainingQueue
from fibsbot.records.space import DISK, fill, no_space, unable
from nets import logfiles


@pytest.fixture(autouse=True)
def fresh_disk_state(tmp_path):
    DISK.reset()
    DISK.watch(tmp_path)
    yield
    DISK.reset()


def _row(n: int) -> Disagreement:
    return Disagreement(
        position_id="4HPwATDgc/ABMA",
        match_id="cAkAAAAAAAAA",
        dice=(3, 1),
        kind="move",
        choice_ply0=f"8/5 6/5 #{n}",
        choice_search="24/21 6/5",
        equity_ply0=0.1,
        equity_search=0.2,
        ply=2,
        net_version="n",
        created_at=dt.datetime(2024, 1, 1, tzinfo=dt.UTC),
    )


def test_the_log_keeps_lines_in_memory_while_full_and_writes_them_in_order_after(tmp_path):
    log = RotatingLog(tmp_path / "log" / "fibsbot.jsonl", max_bytes=10**7)
    log.write('{"n": 0}\n')
    with fill():
        for n in range(1, 4):
            log.write(f'{{"n": {n}}}\n')  # never raises
        assert DISK.full and log.waiting == 3
        assert (tmp_path / "log" / "fibsbot.jsonl").read_text() == '{"n": 0}\n'
    assert DISK.recover()
    assert [json.loads(line)["n"] for line in logfiles.read_lines(tmp_path / "log" / "fibsbot.jsonl")] == [0, 1, 2, 3]


_LIMITED = """
import resource, signal, sys
from pathlib import Path
from fibsbot.records.logfiles import RotatingLog
from fibsbot.records.space import DISK
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails with EFBIG instead of killing
resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))  # the file system of this process is full at 1000 bytes
log = RotatingLog(Path(sys.argv[1]), max_bytes=10**7)
for n in range(40):
    log.write('{"n": %d, "pad": "%s"}\\n' % (n, "x" * 30))
print(DISK.full, log.waiting)
"""


def test_a_write_cut_short_by_a_real_size_limit_leaves_no_half_line(tmp_path):
    path = tmp_path / "fibsbot.jsonl"
    done = subprocess.run(
        [sys.executable, "-c", _LIMITED, str(path)], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.split() == ["True", str(40 - len(path.read_text().splitlines()))]
    text = path.read_text()
    assert text.endswith("\n") and len(text) <= 1000
    assert [json.loads(line)["n"] for line in text.splitlines()] == list(range(len(text.splitlines())))


def test_the_journal_and_mat_stay_as_written_and_catch_up_when_space_returns(tmp_path):
    journal = MatchJournal.create(tmp_path / "matches", "bot", "them", 3)
    journal.record("game", 0, 0, False)
    journal.record("opening", 0, 3, 1)
    saved = journal.path.read_text(), journal.mat_path.read_text()
    with fill():
        journal.record("move", 0, 3, 1, [[8, 5], [6, 5]])  # never raises
        journal.record("roll", 1, 6, 4)
        assert (journal.path.read_text(), journal.mat_path.read_text()) == saved
        assert DISK.full and not DISK.recover()
    assert DISK.recover() and not DISK.full
    on_disk = json.loads(journal.path.read_text())
    assert on_disk["actions"] == journal.actions and "8/5 6/5" in journal.mat_path.read_text()


def test_a_finished_game_of_a_plain_recorder_is_written_later(tmp_path):
    recorder = MatchRecorder(tmp_path / "m.mat", ("bot", "them"), 1)
    recorder.start_game()
    with fill():
        recorder.win(0, 1)  # the autosave fails for want of space, silently
        assert not recorder.path.exists() and DISK.full
    assert DISK.recover()
    assert "Wins 1 point" in recorder.path.read_text()


def test_the_queue_on_a_really_full_database_keeps_rows_in_memory(tmp_path):
    queue = TrainingQueue(tmp_path / "queue.sqlite")
    first = queue.add(_row(0))
    assert first is not None
    pages = queue._db.execute("PRAGMA page_count").fetchone()[0]
    queue._db.execute(f"PRAGMA max_page_count={pages}")  # SQLite's own "database or disk is full"
    ids = [queue.add(_row(n)) for n in range(1, 200)]
    assert None in ids and DISK.full and queue.waiting_in_memory > 0
    assert queue.integrity_ok()
    stored = queue.count()
    queue._db.execute("PRAGMA max_page_count=1073741823")
    assert DISK.recover()
    assert queue.count() == 200 > stored and queue.waiting_in_memory == 0
    texts = [row.choice_ply0 for row in queue.iter_unlabelled()]
    assert texts == [f"8/5 6/5 #{n}" for n in range(200)]  # in the order they came


def test_sqlite_full_is_recognised():
    import sqlite3

    assert no_space(sqlite3.OperationalError("database or disk is full"))
    assert not no_space(sqlite3.OperationalError("no such table: x"))


def test_the_queue_is_bounded_labelled_rows_first(tmp_path):
    queue = TrainingQueue(tmp_path / "queue.sqlite", max_rows=100)
    for n in range(60):
        queue.add(_row(n))
    queue.mark_labelled(list(range(1, 31)), label="retrain v1")  # the first 30: in a training set already
    for n in range(60, 150):
        queue.add(_row(n))
        assert queue.count() <= 100
    left = [row.choice_ply0 for row in queue.iter_unlabelled()]
    assert queue.count(labelled=True) == 0  # the labelled went before any waiting row
    assert left[-1] == "8/5 6/5 #149" and len(left) == queue.count()
    assert queue.integrity_ok()


def test_invitations_are_refused_with_a_tell_while_the_disk_is_full(tmp_path):
    policy = Policy(PolicySettings(user="bot"), unable=unable)
    invitation = Invitation(player="alice", length=3, resume=False)
    with fill():
        DISK.failed("the match record x.mat", OSError(28, "No space left on device"))
        verdict = policy.on_invitation(invitation, busy=False, now=0.0)
        assert not verdict.accept and verdict.reason == DISK_FULL
        assert verdict.commands and "disk is full" in verdict.commands[0].text
    verdict = policy.on_invitation(invitation, busy=False, now=100.0)  # space back: found by asking
    assert verdict.accept


def test_status_says_the_disk_is_full_and_shows_the_log_against_its_cap(tmp_path):
    (tmp_path / "log").mkdir()
    (tmp_path / "log" / "fibsbot.jsonl").write_text("x" * 5000)

    class Usage:
        free = FULL_BELOW - 1

    disk = disk_usage(tmp_path, {"log_max_mb": 3}, usage=lambda path: Usage())
    assert disk["parts"]["log"] == 5000 and disk["log_cap_bytes"] == 3 * 1024 * 1024 and disk["full"]
    line = disk_line(disk)
    assert "of its 3.0 MB cap" in line and "FULL" in line and "refuses new invitations" in line
