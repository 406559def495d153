"""A data directory written by an earlier release is read and carried on; a newer one is refused.

``tests/fixtures/datadir-0.1.0/data`` is what release 0.1.0 left (its README says how it
was written): two finished arena matches, a match saved in the middle of a game with
decisions queued, two promoted nets, a stopped daemon's state, a retrain round, and rating
lines from before they named their account.  Each test works on a copy.  A part marked
newer than this code reads is refused in one line, with exit 2, and left as it was.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from fibsbot.arena.audit import Audit, audit_match, guessed_moves, unrecoverable_games
from fibsbot.records.journal import FINISHED, PLAYING, SUFFIX, MatchJournal
from fibsbot.records.queue import TrainingQueue
from tests.interrupt_harness import BOT, InterruptedMatch, as_gnubg_match
from tests.test_cli import run_cli
from tests.test_records_interrupted import log_lines

RELEASE = Path(__file__).resolve().parent / "fixtures" / "datadir-0.1.0"
SAVED_SEED, SAVED_CUT = 3, 150  # how make.py left the saved match


@pytest.fixture
def data(tmp_path) -> Path:
    copy = tmp_path / "data"
    shutil.copytree(RELEASE / "data", copy, symlinks=True)  # nets/current is a link
    return copy


def journals(data: Path, status: str) -> list[Path]:
    return [p for p in sorted((data / "matches").glob(f"*{SUFFIX}")) if json.loads(p.read_text())["status"] == status]


def test_status_reads_every_part_of_the_release_data_dir(data):
    code, out, err = run_cli(["status", "--data-dir", str(data), "--json"])
    assert code == 0, err
    status = json.loads(out)
    assert status["daemon"]["user"] == "fibsbot" and "format" not in status["daemon"]
    assert status["unfinished"] == 1 and len(status["saved_matches"]) == 1
    arena = [a for a in status["other_accounts"] if a["server"] == "fibsbot arena (local server)"]
    assert arena and arena[0]["matches"] == 2 and arena[0]["rating"] == 1500.49
    assert status["unnamed_rating_lines"] == 2  # the lines from before they named their account
    current = (data / "nets" / "current").readlink().name
    assert status["net"]["source"] == "promoted" and status["net"]["version"] == current
    assert status["queue"] == {"labelled": 0, "waiting": 5}
    assert len(status["retrain_rounds"]) == 1 and status["last_retrain"]["positions"] == 96
    code, out, err = run_cli(["status", "--data-dir", str(data)])
    assert code == 0 and "saved match: vs sparring" in out, err


def test_analyse_adds_to_the_release_queue_and_keeps_its_analysis(data):
    (finished, *_) = journals(data, FINISHED)
    mat = data / "matches" / json.loads(finished.read_text())["header"]["mat"]
    code, out, err = run_cli(["analyse", str(mat), "--ply", "0", "--queue", "--json"])
    assert code == 0, err
    queued = json.loads(out)["queued"]
    assert queued > 0
    with TrainingQueue(data / "queue.sqlite") as queue:
        assert queue.count() == 5 + queued and queue.count(labelled=False) == 5 + queued
    assert (data / "owner" / "analysis" / f"{mat.stem}.json").exists()


def test_what_a_retrain_reads_of_the_release_data_dir_and_a_roll_back(data):
    """A retrain's inputs, read as a round reads them (a round itself takes minutes: the
    service's command line runs one in tests/test_retrain_service_run.py), and the store's
    pointer moved by the command line and back."""
    from fibsbot.cli.retrain import nothing_to_learn
    from nets.store import NetStore
    from nets.train.retrain import RetrainConfig, TrainingSet, incumbent_spec, judged_positions, queue_positions

    assert nothing_to_learn(data) is None
    spec, store = incumbent_spec(RetrainConfig(data))
    assert spec == str(data / "nets" / "current" / "net.npz")
    training = TrainingSet(data / "training" / "set.npz")
    assert len(training.boards) == 96 == judged_positions(data, len(training.boards))
    with TrainingQueue(data / "queue.sqlite") as queue:
        rows = list(queue.iter_unlabelled())
        assert len(rows) == 5 and len(queue_positions(rows)) >= 5
        assert queue.mark_labelled([rows[0].id], "{}") == 1  # as a promoting round marks them
    first, second = store.versions()
    assert store.current_version() == second
    for version in (first, second):
        code, out, err = run_cli(["retrain", "--data-dir", str(data), "--roll-back", version])
        assert code == 0 and version in out, err
        assert NetStore(data / "nets").current_version() == version


def test_the_match_the_release_left_saved_is_resumed_and_finished_in_its_own_record(data, tmp_path):
    """The server holds the saved match: the same seeded match is played again up to the same
    kill, by the same moves the release's bot made (so the server's match is the one the
    release's journal records), and the bot comes back with the release's data directory."""
    (saved,) = journals(data, PLAYING)
    release_actions = json.loads(saved.read_text())["actions"]
    match = InterruptedMatch(tmp_path / "replay", seed=SAVED_SEED, length=3, cuts=(SAVED_CUT,))
    match.play_to_cut()
    (replayed,) = (tmp_path / "replay" / "matches").glob(f"*{SUFFIX}")
    assert MatchJournal.load(replayed).actions == release_actions

    match.data_dir, match.queue = data, TrainingQueue(data / "queue.sqlite")
    match.play()  # the bot logs in again, its records read from the release's data directory
    match.queue.close()
    assert match.match in match.harness.core.finished
    assert journals(data, PLAYING) == [] and saved in journals(data, FINISHED)
    journal = MatchJournal.load(saved)
    assert journal.actions[: len(release_actions) - 1] == release_actions[:-1] and journal.recorder.is_over
    audit = Audit()
    actions = journal.actions
    audit_match(
        match.match,
        match.match.seat_of(BOT),
        as_gnubg_match(actions),
        audit,
        saved.name,
        unrecoverable_games(actions),
        guessed_moves(actions),
    )
    assert (audit.moves_lost, audit.moves_wrong, audit.games_left_out) == (0, 0, 0), audit.problems
    events = [line["event"] for line in log_lines(data / "events.jsonl")]
    assert "record_resumed" in events and "record_skipped" not in events
    with sqlite3.connect(data / "queue.sqlite") as db:
        refs = {ref for (ref,) in db.execute("SELECT match_ref FROM disagreements")}
    assert refs == {journal.mat_path.name}  # the release's rows and the resumed match's name one record


def _newer_queue(data: Path) -> Path:
    db = sqlite3.connect(data / "queue.sqlite")
    db.execute("PRAGMA user_version=2")
    db.close()  # the last connection to close moves the WAL into the file
    return data / "queue.sqlite"


def _newer_journal(data: Path) -> Path:
    (path,) = journals(data, PLAYING)
    content = json.loads(path.read_text())
    content["header"]["version"] = 2
    path.write_text(json.dumps(content))
    return path


def _newer_json(relative: str):
    def mark(data: Path) -> Path:
        path = data / relative
        content = json.loads(path.read_text()) if path.exists() else {}
        path.write_text(json.dumps({**content, "format": 2}))
        return path

    return mark


def _newer_line(relative: str):
    def mark(data: Path) -> Path:
        path = data / relative
        with path.open("a") as out:
            out.write(json.dumps({"format": 2, "time": "2027-01-01T00:00:00+00:00", "rating": 1, "user": "x"}) + "\n")
        return path

    return mark


NEWER = {
    "queue": _newer_queue,
    "journal": _newer_journal,
    "store": _newer_json("nets/store.json"),
    "daemon": _newer_json("owner/daemon.json"),
    "ratings": _newer_line("owner/ratings.jsonl"),
    "retrains": _newer_line("training/retrains.jsonl"),
}


def assert_refused(code: int, err: str, path: Path) -> None:
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert str(path) in err and "in format 2, newer than this fibsbot reads (up to 1)" in err, err


@pytest.mark.parametrize("part", NEWER)
def test_a_part_a_newer_release_wrote_is_refused_in_one_line_and_left_alone(data, part, monkeypatch):
    path = NEWER[part](data)
    before = path.read_bytes()
    code, _out, err = run_cli(["status", "--data-dir", str(data)])
    assert_refused(code, err, path)
    # the daemon refuses before it writes anything (its state, a rating line, a journal)
    for name, value in {
        "FIBSBOT_DATA_DIR": str(data),
        "FIBSBOT_SERVER__USER": "fibsbot",
        "FIBSBOT_PASSWORD": "pw",
        "FIBSBOT_SERVER__HOST": "127.0.0.1",
        "FIBSBOT_SERVER__PORT": "9",
    }.items():
        monkeypatch.setenv(name, value)
    code, _out, err = run_cli(["run"])
    assert_refused(code, err, path)
    assert path.read_bytes() == before


def test_the_status_index_of_another_journal_format_is_rebuilt_and_a_newer_journal_refused(data):
    """``owner/index.json`` caches the journals' summaries by size and time: one kept by a release
    of another journal format is read again from the journals, so a newer one is never taken
    from the cache unchecked (here the same size and time, as the cache would take it)."""
    assert run_cli(["status", "--data-dir", str(data)])[0] == 0
    index = data / "owner" / "index.json"
    assert json.loads(index.read_text())["journal_format"] == 1
    (path,) = journals(data, PLAYING)
    stat = path.stat()
    path.write_text(path.read_text().replace('"version":1,', '"version":2,', 1))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size
    assert run_cli(["status", "--data-dir", str(data)])[0] == 0  # the cache of this journal format holds it
    index.write_text(index.read_text().replace('"journal_format":1', '"journal_format":2'))
    code, _out, err = run_cli(["status", "--data-dir", str(data)])
    assert_refused(code, err, path)


def test_a_newer_queue_is_refused_by_the_code_that_writes_to_it(data):
    path = _newer_queue(data)
    mat = next((data / "matches").glob("*.mat"))
    code, _out, err = run_cli(["analyse", str(mat), "--ply", "0", "--queue"])
    assert code == 2 and len(err.strip().splitlines()) == 1 and "newer than this fibsbot reads" in err, err
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 2  # not migrated down
    db.close()


def test_a_promotion_says_the_store_format_and_a_store_without_one_is_the_first(data):
    from engine.eval.evaluator import Evaluator
    from engine.eval.net import Net
    from nets.store import FORMAT, NetStore, store_format

    assert not (data / "nets" / "store.json").exists() and store_format(data / "nets") == 1
    NetStore(data / "nets").promote(Evaluator(Net.create("gnubg5", "contact", 4), Net.create("gnubg5", "race", 4)))
    assert json.loads((data / "nets" / "store.json").read_text()) == {"format": FORMAT}
    assert len(NetStore(data / "nets").versions()) == 3
