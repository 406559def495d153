"""The console during an outage: one line when it starts, one when its kind changes, one when
the server answers again, never one a retry; and what each failure is called."""

from __future__ import annotations

import io
import socket

import pytest

from fibsbot.client.reach import CLOSED, LOOKUP, LOST, NO_ANSWER, NO_WELCOME, REFUSED, NoWelcome, classify
from fibsbot.console import Console

SERVER = dict(host="fibs.com", port=4321)


def console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console("bot", out, timestamps=False, colours=False), out


def lines(out: io.StringIO) -> list[str]:
    return [line.split("] ", 1)[1] for line in out.getvalue().splitlines()]


def failed(c: Console, kind: str, error: str) -> None:
    c.on_session("connecting", SERVER)
    c.on_session("connection_lost", dict(error=error, kind=kind, retry_max_s=30.0, **SERVER))
    c.on_session("reconnecting", dict(in_s=29.5, attempt=9))


def test_an_outage_is_said_when_it_starts_changes_and_ends_not_at_each_retry():
    c, out = console()
    for _ in range(5):
        failed(c, LOOKUP, "cannot resolve fibs.com: temporary failure in name resolution")
    for _ in range(5):
        failed(c, REFUSED, "connection refused")
    c.on_session("connected", SERVER)
    c.on_session("logged_in", dict(user="bot"))
    c.on_session("connection_lost", dict(error="connection reset by peer", kind=LOST, retry_max_s=30.0, **SERVER))
    failed(c, NO_ANSWER, "no answer")
    failed(c, NO_ANSWER, "no answer")
    c.on_session("connected", SERVER)
    c.on_session("logged_in", dict(user="bot"))
    retry = "retrying every 30 s at most until it answers"
    assert lines(out) == [
        "connecting to fibs.com:4321",
        f"server fibs.com:4321 unreachable (cannot resolve fibs.com: temporary failure in name resolution): {retry}",
        f"server fibs.com:4321 unreachable (connection refused): {retry}",
        "connected to fibs.com:4321",
        "logged in as bot",
        "connection lost: connection reset by peer; reconnecting",
        f"server fibs.com:4321 unreachable (no answer): {retry}",
        "connected to fibs.com:4321",
        "logged in as bot",
    ]
    assert out.getvalue().count("[warning  ]") == 4


def test_a_server_that_answers_and_never_welcomes_is_said_once():
    c, out = console()
    for _ in range(4):
        failed(c, NO_WELCOME, "waited 30 s")
        c.on_session("connected", SERVER)  # each retry connects again: not news
    assert lines(out) == [
        "connecting to fibs.com:4321",
        "server fibs.com:4321 accepts connections but sends no welcome (waited 30 s): "
        "retrying every 30 s at most until it answers",
    ]


@pytest.mark.parametrize(
    "exc, connected, logged_in, kind, reason",
    [
        (socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution"), False, False, LOOKUP,
         "cannot resolve fibs.com: temporary failure in name resolution"),
        (socket.gaierror(socket.EAI_NONAME, "Name or service not known"), False, False, LOOKUP,
         "cannot resolve fibs.com: name or service not known"),
        (ConnectionRefusedError(111, "Connect call failed ('1.2.3.4', 4321)"), False, False, REFUSED,
         "connection refused"),
        (TimeoutError(), False, False, NO_ANSWER, "no answer"),
        (OSError(101, "Network is unreachable"), False, False, "unreachable", "network is unreachable"),
        (NoWelcome("waited 30 s"), True, False, NO_WELCOME, "waited 30 s"),
        (ConnectionError("the server closed the connection"), True, False, CLOSED, "the server closed the connection"),
        (ConnectionResetError(104, "Connection reset by peer"), True, True, LOST, "connection reset by peer"),
    ],
)  # fmt: skip
def test_each_failure_has_its_kind_and_words(exc, connected, logged_in, kind, reason):
    assert classify(exc, "fibs.com", connected=connected, logged_in=logged_in) == (kind, reason)
