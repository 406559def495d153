"""`fibsbot status` and the report: one account's records, and a match in play only while one is.

The cases are the issue's: the quick start's arena (``fibsbot``) and the daemon (``mybot``)
in one data directory; a daemon SIGKILLed with a match in play; a match saved when the
opponent logged out; a saved match whose opponent refuses the invitation to resume it.
"""

from __future__ import annotations

import io
import json
import random
import signal
import subprocess
import sys
from contextlib import contextmanager

from fibsbot.console import Console
from fibsbot.owner.live import OwnerRecords
from fibsbot.owner.readers import daemon_state
from fibsbot.records.journal import MatchJournal
from tests.match_bot import START, Bot
from tests.owner_fixture import record_match
from tests.test_cli import run_cli
from tests.test_owner_status import status_json

ARENA = "fibsbot arena (local server)"
FIBS = "fibs.com:4321"
WHO_BOB_READY = "5 bob - - 1 0 1500.00 120 0 1700000000 127.0.0.1 - -"


def two_accounts(data_dir) -> None:
    """The arena's account, then the daemon's, as the issue ran them: a match and rating lines each."""
    arena = OwnerRecords(data_dir, "fibsbot", server=ARENA)
    for rating, experience in ((1500.0, 0), (1517.19, 8)):
        arena.rating(rating, experience)
    one_point_match(data_dir, "fibsbot", "sparring", ARENA, won=False)
    daemon = OwnerRecords(data_dir, "mybot")
    daemon.started(server="fibs.com", port=4321, agent="net:default@2")
    for rating, experience in ((1500.0, 0), (1503.5, 3)):
        daemon.rating(rating, experience)
    daemon.stopped()
    one_point_match(data_dir, "mybot", "alice", FIBS, won=True)


def one_point_match(data_dir, user: str, opponent: str, site: str, won: bool) -> None:
    journal = MatchJournal.create(data_dir / "matches", user, opponent, 1, site=site)
    journal.record("game", 0, 0, False)
    journal.record("win", 0 if won else 1, 1)
    journal.record("end", int(won), int(not won))
    journal.finish()


def test_the_daemons_account_is_shown_and_the_arenas_kept_apart(tmp_path):
    two_accounts(tmp_path)
    rows = [json.loads(x) for x in (tmp_path / "owner" / "ratings.jsonl").read_text().splitlines()]
    # the daemon's first line is written although the arena's last line was another account's
    assert [(r["user"], r["server"], r["rating"]) for r in rows] == [
        ("fibsbot", ARENA, 1500.0),
        ("fibsbot", ARENA, 1517.19),
        ("mybot", FIBS, 1500.0),
        ("mybot", FIBS, 1503.5),
    ]
    status = status_json(tmp_path)
    assert status["account"] == {"user": "mybot", "server": FIBS}
    assert status["rating"]["rating"] == 1503.5 and status["rating"]["change"] == 3.5
    assert status["rating"]["experience_gained"] == 3
    assert status["totals"]["matches"] == 1 and status["totals"]["won"] == 1
    [other] = status["other_accounts"]
    assert (other["user"], other["server"], other["matches"], other["rating"]) == ("fibsbot", ARENA, 1, 1517.19)
    code, out, _ = run_cli(["status", "--data-dir", str(tmp_path)])
    assert code == 0 and "account: mybot on fibs.com:4321" in out
    assert "(+3.50 and 3 experience since" in out and "+17.19" not in out
    kept_apart = "other accounts here, kept out of the figures above: fibsbot on fibsbot arena (local server)"
    assert f"{kept_apart}: 1 finished match, rating 1517.19" in out
    # the report's rating picture draws the daemon's account alone
    from fibsbot.owner.status import account_records

    assert [r["rating"] for r in account_records(tmp_path).ratings] == [1500.0, 1503.5]


def test_rating_lines_from_before_they_named_their_account_are_in_no_accounts_figures(tmp_path):
    (tmp_path / "owner").mkdir()
    old = [{"time": "2025-01-01T12:06:29+00:00", "rating": 1446.81, "experience": 0}]
    (tmp_path / "owner" / "ratings.jsonl").write_text("".join(json.dumps(r) + "\n" for r in old))
    OwnerRecords(tmp_path, "mybot", server=FIBS).rating(1500.0, 0)
    status = status_json(tmp_path)
    assert status["rating"]["rating"] == 1500.0 and status["rating"]["change"] == 0
    assert status["unnamed_rating_lines"] == 1
    code, out, _ = run_cli(["status", "--data-dir", str(tmp_path)])
    assert "1 rating line from before lines named their account" in out


@contextmanager
def daemon_process():
    """A process whose command line names fibsbot stands in for the daemon."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", "fibsbot"])
    try:
        yield child
    finally:
        child.kill()
        child.wait()


def started_owner(data_dir, pid: int) -> OwnerRecords:
    owner = OwnerRecords(data_dir, "fibsbot")
    owner.started(server="127.0.0.1", port=4321, agent="net:default@2")
    owner.state["pid"] = pid
    owner._write_state()
    return owner


def play(bot: Bot, observers: list, text: str) -> None:
    """Feed the driver server text, showing each event to the observers as the client does."""
    for event in bot.parser.feed(text):
        bot._run(bot.driver.handle(event), True)
        snapshot = bot.driver.snapshot()
        for observer in observers:
            observer.on_event(event, snapshot)


def test_a_match_in_play_is_current_only_while_the_daemon_lives(tmp_path):
    record_match(tmp_path / "matches", random.Random(2), 3)
    record_match(tmp_path / "matches", random.Random(3), 5, finish=False, opponent="bob")
    with daemon_process() as child:
        owner = started_owner(tmp_path, child.pid)
        play(Bot(), [owner], START)
        assert json.loads((tmp_path / "owner" / "daemon.json").read_text())["match"]["opponent"] == "bob"
        assert status_json(tmp_path)["current_match"]["opponent"] == "bob"
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert daemon_state(tmp_path)["running"] is False
    status = status_json(tmp_path)
    assert status["current_match"] is None and [m["opponent"] for m in status["saved_matches"]] == ["bob"]
    code, out, _ = run_cli(["status", "--data-dir", str(tmp_path)])
    assert code == 0 and "current match" not in out and "stopped without a clean stop" in out
    # bob was playing us when the daemon died: it waits for the daemon alone
    assert "saved; bob was logged in when the daemon stopped, waiting for the daemon (not running" in out
    assert "last match: " in out


def test_a_match_saved_when_its_opponent_logged_out_and_refusing_games_reach_status_and_console(tmp_path):
    record_match(tmp_path / "matches", random.Random(3), 5, finish=False, opponent="bob")
    out = io.StringIO()
    console = Console("fibsbot", out, timestamps=False, colours=False)
    with daemon_process() as child:
        owner = started_owner(tmp_path, child.pid)
        bot = Bot()
        play(bot, [owner, console], START)
        play(bot, [owner, console], "8 bob bob logs out.\r\n")  # the server saves the match
        status = status_json(tmp_path)
        assert status["current_match"] is None
        [saved] = status["saved_matches"]
        assert saved["opponent"] == "bob" and not saved["refusing"]
        # bob is back, not ready: the invitation to resume is refused, twice
        play(bot, [owner, console], "7 bob bob logs in.\r\n** bob is refusing games.\r\n** bob is refusing games.\r\n")
        code, text, _ = run_cli(["status", "--data-dir", str(tmp_path)])
        assert "current match" not in text and "saved, waiting for bob (logged in since " in text
        assert ", refusing games)" in text
        assert status_json(tmp_path)["saved_matches"][0]["refusing"]
        told = [line for line in out.getvalue().splitlines() if "refusing games" in line]
        assert told == ["[info     ] bob is refusing games: our saved match with bob waits until they are ready"]
        play(bot, [owner, console], WHO_BOB_READY + "\r\n")  # ready again: invited again
        assert not status_json(tmp_path)["saved_matches"][0]["refusing"]


def test_a_lost_connection_leaves_no_match_in_play(tmp_path):
    record_match(tmp_path / "matches", random.Random(3), 5, finish=False, opponent="bob")
    with daemon_process() as child:
        owner = started_owner(tmp_path, child.pid)
        play(Bot(), [owner], START)
        owner.on_session("connection_lost", {"error": "reset by peer"})
        assert status_json(tmp_path)["current_match"] is None
