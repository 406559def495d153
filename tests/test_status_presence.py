"""`fibsbot status` on a saved match: waiting for the opponent or for the daemon, as the daemon
last saw the opponent (their who, login and logout lines); and the version on a line of its own."""

from __future__ import annotations

import datetime as dt
import json
import random
import signal

from fibsbot.owner.live import OwnerRecords
from fibsbot.owner.presence import clock_time, waiting_text
from fibsbot.owner.status import format_status
from tests.match_bot import Bot
from tests.owner_fixture import record_match
from tests.test_cli import run_cli
from tests.test_owner_accounts import daemon_process, started_owner
from tests.test_owner_status import status_json

WHO_OPPO = "5 oppo - - 1 0 1500.00 120 0 1700000000 127.0.0.1 - -"
WHO_OPPO_PLAYING = "5 oppo fibsbot - 0 0 1500.00 120 0 1700000000 127.0.0.1 - -"
JOINED = "** Player oppo has joined you for a 5 point match.\r\n"
SAVED_HEADER = "  opponent          matchlength   score (your points first)"


def play(bot: Bot, owner: OwnerRecords, text: str) -> None:
    """One read of server text: the driver, then the owner's records, event by event (as the client)."""
    bot.driver.begin_read()
    for event in bot.parser.feed(text):
        bot._run(bot.driver.handle(event), False)
        owner.on_event(event, bot.driver.snapshot())
    bot._run(bot.driver.end_read(), False)


def opponents(data_dir) -> dict:
    return json.loads((data_dir / "owner" / "daemon.json").read_text()).get("opponents", {})


def saved_line(out: str) -> str:
    [line] = [line for line in out.splitlines() if line.startswith("saved match: vs oppo")]
    return line.split(": ", 2)[2]


def test_a_killed_daemon_waits_for_itself_while_its_opponent_is_logged_in(tmp_path):
    record_match(tmp_path / "matches", random.Random(3), 5, finish=False, opponent="oppo")
    with daemon_process() as child:
        owner = started_owner(tmp_path, child.pid)
        bot = Bot()
        play(bot, owner, WHO_OPPO + "\r\n6\r\n")  # the login's who burst: oppo is no opponent yet
        assert opponents(tmp_path) == {}
        play(bot, owner, JOINED + WHO_OPPO_PLAYING + "\r\n")
        assert opponents(tmp_path)["oppo"]["online"] is True
        child.send_signal(signal.SIGKILL)
        child.wait()
    code, out, _ = run_cli(["status", "--data-dir", str(tmp_path)])
    assert code == 0 and "stopped without a clean stop" in out
    assert saved_line(out) == (
        "saved; oppo was logged in when the daemon stopped, waiting for the daemon "
        "(not running: it resumes the match once it runs again)"
    )


def test_an_opponent_who_dropped_is_waited_for_with_the_time_they_left(tmp_path):
    record_match(tmp_path / "matches", random.Random(3), 5, finish=False, opponent="oppo")
    with daemon_process() as child:
        owner = started_owner(tmp_path, child.pid)
        bot = Bot()
        play(bot, owner, JOINED)
        play(bot, owner, "8 oppo oppo drops connection.\r\n")  # and no "The game was saved."
        gone = opponents(tmp_path)["oppo"]
        assert gone["online"] is False
        at = clock_time(gone["since"])
        code, out, _ = run_cli(["status", "--data-dir", str(tmp_path)])
        assert saved_line(out) == f"saved, waiting for oppo (logged out at {at})"
        assert status_json(tmp_path)["saved_matches"][0]["presence"] == gone
        child.send_signal(signal.SIGKILL)
        child.wait()
    code, out, _ = run_cli(["status", "--data-dir", str(tmp_path)])
    assert saved_line(out) == (
        f"saved, waiting for oppo (logged out at {at}) and for the daemon "
        "(not running: it resumes the match when both are back)"
    )


def test_logins_listings_and_a_lost_connection(tmp_path):
    owner = OwnerRecords(tmp_path, "fibsbot")
    owner.started(server="127.0.0.1", port=4321, agent="net:default@2")
    bot = Bot()
    play(bot, owner, JOINED)
    play(bot, owner, "8 oppo oppo logs out.\r\n")
    since = opponents(tmp_path)["oppo"]["since"]
    # a later login's listing: oppo is still away (no star), dave is on the server
    listing = [
        SAVED_HEADER,
        "  oppo                    5                0 -  1",
        " *dave                    3                1 -  1",
    ]
    play(bot, owner, "\r\n".join(listing) + "\r\n")
    seen = opponents(tmp_path)
    assert seen["oppo"] == {"online": False, "since": since} and seen["dave"]["online"] is True
    play(bot, owner, "7 oppo oppo logs in.\r\n" + WHO_OPPO + "\r\n")
    assert opponents(tmp_path)["oppo"]["online"] is True
    play(bot, owner, SAVED_HEADER + "\r\n  dave                    3                1 -  1\r\n> ")
    assert set(opponents(tmp_path)) == {"dave"}  # oppo's match is no longer listed: forgotten
    owner.on_session("connection_lost", {"error": "reset by peer"})
    assert opponents(tmp_path) == {}


def test_the_waiting_texts():
    online = {"online": True, "since": "2025-03-01T09:30:00+00:00"}
    at = clock_time(online["since"])
    assert waiting_text("alice", None, daemon_running=True, refusing=False) == "saved, waiting for alice"
    assert (
        waiting_text("alice", online, daemon_running=True, refusing=True)
        == f"saved, waiting for alice (logged in since {at}, refusing games)"
    )
    assert waiting_text("alice", None, daemon_running=False, refusing=False) == (
        "saved, waiting for alice and for the daemon (not running: it resumes the match when both are back)"
    )


def test_clock_times_are_local_with_the_date_when_not_today():
    when = dt.datetime(2025, 3, 1, 9, 30, tzinfo=dt.UTC)
    local = when.astimezone()
    assert clock_time(when.isoformat(), today=local.date()) == local.strftime("%H:%M")
    assert clock_time(when.isoformat(), today=local.date() + dt.timedelta(days=1)) == local.strftime("%Y-%m-%d %H:%M")
    assert clock_time(None) == "?"


def test_status_shows_the_version_as_fibsbot_version_says_it(tmp_path):
    record_match(tmp_path / "matches", random.Random(3), 3)
    _, version, _ = run_cli(["--version"])
    code, out, _ = run_cli(["status", "--data-dir", str(tmp_path)])
    assert code == 0 and out.splitlines()[0] == version.strip() and version.startswith("fibsbot ")
    assert out.splitlines()[1] == f"data directory: {tmp_path}"
    status = status_json(tmp_path)
    assert status["version"] == version.strip()
    assert format_status(status).splitlines()[0] == version.strip()
