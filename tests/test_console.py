"""The operator's console: one human line for each event that matters."""

from __future__ import annotations

import io
import re

import pytest

from fibsbot.console import Console, writes_to_journal
from fibsbot.protocol.events import (
    DoubleRejected,
    GameEnd,
    GameSaved,
    MatchEnd,
    MatchResumed,
    MatchStart,
    ResignAccepted,
    ScoreLine,
    WhoInfo,
)


def console(**options) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    options.setdefault("timestamps", False)
    options.setdefault("colours", False)
    return Console("bot", out, **options), out


def lines(out: io.StringIO) -> list[str]:
    return [line.split("] ", 1)[1] for line in out.getvalue().splitlines()]


def who(name: str, rating: float, experience: int) -> WhoInfo:
    return WhoInfo(
        name=name,
        opponent=None,
        watching=None,
        ready=True,
        away=False,
        rating=rating,
        experience=experience,
        idle=0,
        login=0,
        hostname="localhost",
        client=None,
        email=None,
    )


def test_a_match_reads_as_start_scores_and_end():
    c, out = console()
    c.on_event(MatchStart(opponent="alice", length=5, we_joined=False), None)
    c.on_event(GameEnd(winner="You", we_won=True, points=2), None)
    c.on_event(ScoreLine(length=5, players=("bot", "alice"), scores=(2, 0)), None)
    c.on_event(DoubleRejected(player="You", is_us=True, winner="alice", points=2), None)
    c.on_event(ScoreLine(length=5, players=("alice", "bot"), scores=(2, 2)), None)  # FIBS may put them first
    c.on_event(ResignAccepted(player="You", is_us=True, points=1), None)
    c.on_event(ScoreLine(length=5, players=("bot", "alice"), scores=(3, 2)), None)
    c.on_event(ResignAccepted(player="alice", is_us=False, points=3), None)
    c.on_event(MatchEnd(winner="alice", we_won=False, length=5, scores=(5, 3)), None)
    assert lines(out) == [
        "match start: a 5-point match with alice (they joined ours)",
        "score 2-0 against alice; we won the game, 2 points",
        "score 2-2 against alice; we dropped their double, they won 2 points",
        "score 3-2 against alice; they resigned, we won 1 point",
        "match lost 3-5 against alice (we resigned, they won 3 points)",
    ]


def test_resumed_and_saved_matches_and_unlimited_ones():
    c, out = console()
    c.on_event(MatchResumed(opponent="carol", we_joined=True, length=7, points={"bot": 4, "carol": 1}), None)
    c.on_event(GameSaved(player="carol", reason="dropped"), None)
    c.on_event(MatchStart(opponent="dave", length=None, we_joined=True), None)
    c.on_event(GameEnd(winner="dave", we_won=False, points=1), None)
    c.on_event(DoubleRejected(player="dave", is_us=False, winner="You", points=4), None)
    c.on_event(ScoreLine(length=None, players=("bot", "dave"), scores=(4, 1)), None)
    c.on_event(GameSaved(player="You", reason="logged_out"), None)
    assert lines(out) == [
        "match resumed with carol at 4-1 (a 7-point match)",
        "match with carol saved (carol dropped the connection): it goes on when both are back",
        "match start: an unlimited match with dave (we joined their invitation)",
        "score 4-1 against dave; they dropped our double, we won 4 points",
        "match with dave saved (we logged out): it goes on when both are back",
    ]


def test_the_rating_is_told_when_it_changes_and_only_ours():
    c, out = console()
    for event in (who("bot", 1500, 0), who("bot", 1500, 0), who("alice", 1600, 9), who("bot", 1517.32, 3)):
        c.on_event(event, None)
    assert lines(out) == ["rating 1500.00, experience 0", "rating 1517.32 (+17.32), experience 3"]


@pytest.mark.parametrize(
    ("details", "said"),
    [
        (dict(length=3, resume=False, accept=True, reason="length"), "to a 3-point match: accepted"),
        (dict(length=None, resume=True, accept=True, reason="resume"), "to resume our saved match: accepted"),
        (dict(length=15, resume=False, accept=False, reason="length"), "refused (it plays 1 to 11 points)"),
        (dict(length=3, resume=False, accept=False, reason="busy"), "refused (playing another match)"),
        (dict(length=None, resume=False, accept=False, reason="unlimited"), "refused (unlimited matches are off)"),
        (dict(length=3, resume=False, accept=False, reason="denied"), "refused (on the deny list)"),
    ],
)
def test_invitations_say_the_verdict_and_why(details, said):
    c, out = console()
    c.on_session("invitation", dict(player="alice", lengths=(1, 11), **details))
    [line] = lines(out)
    assert line.startswith("invitation from alice ") and line.endswith(said)


def test_the_session_connecting_refusals_once_reconnects_and_quiet():
    c, out = console()
    c.on_session("connecting", dict(host="fibs.com", port=4321))
    refused = dict(user="bot", host="fibs.com", port=4321, refusals=1, limit=3)
    c.on_session("login_refused", refused)
    c.on_session("login_refused", {**refused, "refusals": 2})
    c.on_session("connection_lost", dict(error="the server closed the connection"))
    c.on_session("reconnecting", dict(in_s=1.96, attempt=2))  # in the JSON log only
    c.on_session("logged_in", dict(user="bot"))
    c.on_session("something_new", dict(x=1))  # unknown reports are ignored, not an error
    assert lines(out) == [
        "connecting to fibs.com:4321",
        "login refused: fibs.com:4321 does not accept user bot with this password; stopping after 3 refusals in a row",
        "connection lost: the server closed the connection; reconnecting",
        "logged in as bot",
    ]
    assert "[warning  ] login refused" in out.getvalue()
    quiet, quiet_out = console(quiet=True)
    quiet.on_session("connecting", dict(host="fibs.com", port=4321))
    quiet.on_session("login_refused", {**refused, "limit": None})
    assert lines(quiet_out) == [
        "login refused: fibs.com:4321 does not accept user bot with this password; retrying with backoff"
    ]


def test_lines_look_like_structlogs_console_renderer():
    c, out = console(timestamps=True)
    c.say("logged in as bot")
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \[info     \] logged in as bot\n", out.getvalue())
    coloured, coloured_out = console(colours=True)
    coloured.say("careful", "warning")
    assert coloured_out.getvalue() == "[\x1b[33mwarning  \x1b[0m] careful\n"


def test_the_journal_is_recognised_by_its_device_and_inode(tmp_path, monkeypatch):
    import os

    path = tmp_path / "stream"
    with path.open("w") as stream:
        info = os.fstat(stream.fileno())
        monkeypatch.setenv("JOURNAL_STREAM", f"{info.st_dev}:{info.st_ino}")
        assert writes_to_journal(stream) and Console("bot", stream).timestamps is False
        monkeypatch.setenv("JOURNAL_STREAM", f"{info.st_dev}:{info.st_ino + 1}")
        assert not writes_to_journal(stream)
    assert not writes_to_journal(io.StringIO())  # no file behind it
