"""Training queue: rows round-trip, labelling, WAL, and nothing committed is lost to SIGKILL."""

from __future__ import annotations

import datetime as dt
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest
from pydantic import ValidationError

from engine.rules.ids import MatchState, match_id, position_id
from engine.rules.position import Position
from fibsbot.records.queue import Disagreement, QueueError, TrainingQueue

OPENING_ID = position_id(Position.initial().board)
MATCH_ID = match_id(MatchState(dice=(3, 1), match_length=5, score=(1, 2)))


def sample(n: int = 0, **changes) -> Disagreement:
    fields = dict(
        position_id=OPENING_ID,
        match_id=MATCH_ID,
        dice=(3, 1),
        kind="move",
        choice_ply0="24/21 6/5",
        choice_search="8/5 6/5",
        equity_ply0=-0.012 * n,
        equity_search=0.105,
        ply=2,
        net_version="default@abc123",
        match_ref="m.mat",
        game_number=1,
        move_number=n + 1,
    )
    fields.update(changes)
    return Disagreement(**fields)


def test_rows_round_trip_in_order(tmp_path):
    with TrainingQueue(tmp_path / "q.sqlite") as queue:
        ids = [queue.add(sample(n)) for n in range(5)]
        cube = queue.add(sample(9, dice=None, kind="cube", choice_ply0="no double", choice_search="double, take"))
        assert ids == sorted(ids) and queue.count() == 6
        rows = list(queue.iter_unlabelled(batch=2))  # several batches
    assert [row.id for row in rows] == ids + [cube]
    first = rows[0]
    assert first.dice == (3, 1) and first.kind == "move" and first.choice_search == "8/5 6/5"
    assert first.position_id == OPENING_ID and first.match_id == MATCH_ID and not first.labelled
    assert first.created_at.tzinfo is not None
    assert abs(first.created_at - dt.datetime.now(dt.UTC)) < dt.timedelta(minutes=1)
    assert rows[-1].dice is None and rows[-1].kind == "cube" and rows[-1].choice_ply0 == "no double"
    assert rows[3].equity_ply0 == pytest.approx(-0.036)


def test_labelling_removes_rows_from_the_unlabelled_stream(tmp_path):
    with TrainingQueue(tmp_path / "q.sqlite") as queue:
        ids = [queue.add(sample(n)) for n in range(4)]
        assert queue.mark_labelled(ids[1:3], label='{"equity": 0.1}') == 2
        assert queue.count(labelled=True) == 2 and queue.count(labelled=False) == 2
        assert [row.id for row in queue.iter_unlabelled()] == [ids[0], ids[3]]
        row = queue.get(ids[1])
        assert row.labelled and row.label == '{"equity": 0.1}'
        assert queue.get(10_000) is None


def test_the_file_is_in_wal_mode_and_readable_by_plain_sqlite(tmp_path):
    path = tmp_path / "q.sqlite"
    with TrainingQueue(path) as queue:
        queue.add(sample())
        # a second connection (a trainer) reads while the queue is open
        other = sqlite3.connect(path)
        assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert other.execute("SELECT choice_search FROM disagreements").fetchall() == [("8/5 6/5",)]
        other.close()
    with TrainingQueue(path) as reopened:  # reopening keeps the rows and the schema
        assert reopened.count() == 1 and reopened.integrity_ok()


@pytest.mark.parametrize(
    "changes",
    [dict(kind="chequer"), dict(dice=(0, 3)), dict(ply=-1), dict(position_id="short"), dict(net_version="")],
)
def test_bad_rows_are_refused(changes):
    with pytest.raises(ValidationError):
        sample(**changes)


def test_a_file_that_is_not_a_queue_is_reported(tmp_path):
    path = tmp_path / "q.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(QueueError, match="not a usable training queue"):
        TrainingQueue(path)
    newer = tmp_path / "newer.sqlite"
    db = sqlite3.connect(newer)
    db.execute("PRAGMA user_version=99")
    db.close()
    with pytest.raises(QueueError, match="newer"):
        TrainingQueue(newer)


_WRITER = textwrap.dedent(
    """
    import sys
    from fibsbot.records.queue import TrainingQueue
    from tests.test_queue import sample
    queue = TrainingQueue(sys.argv[1])
    n = 0
    while True:
        row_id = queue.add(sample(n % 50))
        print(row_id, flush=True)  # printed only after the commit returned
        n += 1
    """
)


def test_sigkill_loses_no_committed_row(tmp_path):
    path = tmp_path / "q.sqlite"
    writer = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(path)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=os.getcwd(),
        env=dict(os.environ, PYTHONPATH=os.getcwd()),
    )
    committed = []
    deadline = time.monotonic() + 20
    try:
        while len(committed) < 40 and time.monotonic() < deadline:
            line = writer.stdout.readline()
            if not line:
                break
            committed.append(int(line))
        assert len(committed) >= 40, "the writer did not get going"
    finally:
        os.kill(writer.pid, signal.SIGKILL)  # no cleanup, no close: mid-transaction most likely
        writer.wait()
        writer.stdout.close()
    assert writer.returncode == -signal.SIGKILL
    with TrainingQueue(path) as queue:
        assert queue.integrity_ok()
        stored = {row.id for row in queue.iter_unlabelled()}
        assert set(committed) <= stored
        assert len(stored) >= len(committed)
        queue.add(sample())  # and it takes new rows after the crash
        assert queue.count() == len(stored) + 1


def test_rows_of_games_a_match_file_left_out_lose_their_place_and_no_other_row_does(tmp_path):
    with TrainingQueue(tmp_path / "q.sqlite") as queue:
        kept = queue.add(sample(0, game_number=1))
        left_out = [queue.add(sample(1, game_number=2)), queue.add(sample(2, game_number=2))]
        other_match = queue.add(sample(3, game_number=2, match_ref="other.mat"))
        assert queue.unplace("m.mat", [1, 3]) == 2
        assert [(queue.get(i).game_number, queue.get(i).move_number) for i in left_out] == [(None, None)] * 2
        assert queue.get(kept).game_number == 1 and queue.get(other_match).game_number == 2
        assert queue.unplace("m.mat", [1, 3]) == 0  # again: nothing more to change
        assert queue.unplace("m.mat", []) == 1 and queue.get(kept).move_number is None  # every game left out
