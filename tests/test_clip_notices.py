"""Server lines that are neither game events nor errors: the banner, settings and toggle notices."""

from __future__ import annotations

import pytest

from fibsbot.protocol.parser import (
    Banner,
    ClipParser,
    LoginPrompt,
    Notice,
    OpeningRoll,
    ServerError,
    SettingChanged,
    ToggleChanged,
    Unknown,
    Welcome,
)

LOGGED_IN = "login: 1 bot 1306865048 host.example.com\r\n"


def after_login(text: str) -> list:
    parser = ClipParser()
    events = parser.feed(LOGGED_IN + text) + parser.flush()
    assert events[:2] == [
        LoginPrompt(attempt=1),
        Welcome(name="bot", last_login=1306865048, last_host="host.example.com"),
    ]
    return events[2:]


def test_an_opening_roll_with_a_full_stop_is_one_event():
    assert after_login("You rolled 3, oppo rolled 6.\r\n") == [OpeningRoll(opponent="oppo", our_die=3, their_die=6)]


def test_an_opening_roll_without_a_full_stop_still_parses():
    assert after_login("You rolled 6, bob rolled 2\r\n") == [OpeningRoll(opponent="bob", our_die=6, their_die=2)]


def test_the_text_before_the_first_login_prompt_is_the_banner():
    parser = ClipParser()
    banner = (
        "\r\n                         _____   ___   ____    ____\r\n"
        "                        |  ___| |_ _| | __ )  / ___|\r\n\r\n"
        "  Welcome to a FIBS-style backgammon server.  \r\n\r\nlogin: "
    )
    assert parser.feed(banner) == [
        Banner(text="_____   ___   ____    ____"),
        Banner(text="|  ___| |_ _| | __ )  / ___|"),
        Banner(text="Welcome to a FIBS-style backgammon server."),
        LoginPrompt(attempt=1),
    ]
    assert parser.feed("~nonsense after the prompt\r\n") == [Unknown(text="~nonsense after the prompt")]


def test_a_setting_answer_is_a_setting_event():
    assert after_login("Value of 'boardstyle' set to 3.\r\n") == [SettingChanged(name="boardstyle", value="3")]


@pytest.mark.parametrize(
    "line, name, value",
    [
        ("** You will hear what other players shout.", "silent", False),
        ("** You won't hear what other players shout.", "silent", True),
        ("** You're now ready to invite or join someone.", "ready", True),
        ("** You're now refusing to play with someone.", "ready", False),
        ("** Will send rawboards after rolling.", "moreboards", True),
        ("** You would like to use the Crawford rule.", "crawford", True),
        ("** You won't be notified when new users log in.", "notify", False),
    ],
)
def test_a_toggle_answer_is_a_toggle_event_not_an_error(line, name, value):
    assert after_login(line + "\r\n") == [ToggleChanged(name=name, value=value)]


@pytest.mark.parametrize(
    "line",
    [
        "** You're not playing.",
        "** Don't know how to toggle bogus",
        "** Unknown command: 'board'",
        "** This is the Crawford game. No doubling allowed.",
    ],
)
def test_real_errors_stay_errors(line):
    assert after_login(line + "\r\n") == [ServerError(message=line[3:])]


# --- issue 36, defect 8: notices that looked like errors ---------------------------------------------------

FRAME = "*" * 79  # the line of stars a foreign server framed its greeting with, twice a connection


def test_the_frame_of_stars_around_a_greeting_is_part_of_the_banner_before_the_login_prompt():
    parser = ClipParser()
    greeting = f"\r\n{FRAME}\r\n  Welcome to a FIBS clone.\r\n{FRAME}\r\n\r\nlogin: "
    assert parser.feed(greeting) == [
        Banner(text=FRAME),
        Banner(text="Welcome to a FIBS clone."),
        Banner(text=FRAME),
        LoginPrompt(attempt=1),
    ]


def test_the_frame_of_stars_after_the_login_is_a_notice_not_an_error():
    assert after_login(f"{FRAME}\r\n{FRAME}   \r\n") == [Notice(text=FRAME), Notice(text=FRAME)]
    assert after_login("*** Welcome back ***\r\n") == [Notice(text="*** Welcome back ***")]


def test_waiting_for_the_opponent_to_join_is_a_notice_not_an_error():
    assert after_login("** Please wait for oppo to join too.\r\n") == [Notice(text="Please wait for oppo to join too.")]


def test_an_error_is_still_an_error_beside_the_notices():
    assert after_login("** oppo is refusing games.\r\n") == [ServerError(message="oppo is refusing games.")]
