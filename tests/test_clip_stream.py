"""The CLIP parser over a stream: glued lines, prompts without a line end, state across
lines, arbitrary chunks and fuzzed input (exact texts of each message: test_clip.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fibsbot.protocol.parser import (
    Banner,
    Board,
    ClipParser,
    DoubleAccepted,
    DoubleOffered,
    Event,
    GameEnd,
    JoinNextGamePrompt,
    Kibitzes,
    LoginFailed,
    LoginPrompt,
    MatchResumed,
    MotdEnd,
    MotdLine,
    MotdStart,
    Notice,
    OpeningRoll,
    OpponentMoves,
    OpponentRolls,
    PasswordPrompt,
    PleaseMove,
    Prompt,
    Says,
    ScoreLine,
    ServerError,
    Unknown,
    Welcome,
    WhoEnd,
    YouDoubled,
    YouRoll,
    YourTurnToMove,
)
from tests.fibs_samples import MID_O_UP, OPENING_X_DOWN, SESSION, SESSION_LINES, logged_in, only, parse

BOARD = OPENING_X_DOWN


# --- glued lines -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line, kinds",
    [
        (BOARD + "You roll 2 and 4.", [Board, YouRoll]),
        (BOARD + "bob doubles. Type 'accept' or 'reject'.", [Board, DoubleOffered]),
        ("bob accepts the double.  The cube shows 2." + BOARD, [DoubleAccepted, Board]),
        ("You double. Please wait for bob to accept or reject.bob rolls 3 and 1.", [YouDoubled, OpponentRolls]),
        ("You roll 2 and 4.Please move 2 pieces.", [YouRoll, PleaseMove]),
        ("bob moves 19-23 17-22 .You roll 6 and 5.", [OpponentMoves, YouRoll]),
        ("bob moves 2-offbob wins the game and gets 1 point. Sorry.", [OpponentMoves, GameEnd]),
        ("You win the game and get 1 point. Congratulations!  1) 31: 8/5 6/5", [GameEnd, Unknown]),
        ("bob wins the game and gets 2 points. Sorry.bob moves 3-off 1-off .", [GameEnd, OpponentMoves]),
        (
            "score in 3 point match: bot-2 bob-0Type 'join' if you want to play the next game, "
            "type 'leave' if you don't.",
            [ScoreLine, JoinNextGamePrompt],
        ),
        ("You rolled 6, bob rolled 2It's your turn to move.", [OpeningRoll, YourTurnToMove]),
        (BOARD + BOARD, [Board, Board]),
        ("6" + BOARD, [WhoEnd, Board]),
        ("** Please wait for bob to join too." + BOARD, [Notice, Board]),
        (BOARD + "12 bob hi", [Board, Says]),
    ],
)
def test_glued_lines_are_split(line, kinds):
    events = logged_in(line + "\r\n")
    assert [type(event) for event in events] == kinds


def test_glued_board_keeps_its_own_last_field():
    events = parse(BOARD + "12 bob hi\n")
    assert events[0].board.redoubles == 0 and events[1] == Says(name="bob", text="hi")
    assert parse(BOARD + "You roll 2 and 4.\n")[0].line == BOARD


def test_chat_is_never_split_so_boards_cannot_be_forged():
    event = only("15 mallory " + BOARD)
    assert event == Kibitzes(name="mallory", text=BOARD)


def test_thousands_of_glued_messages_do_not_exhaust_the_stack():
    events = parse("You roll 1 and 1." * 5000 + "\n")
    assert len(events) == 5000 and all(event == YouRoll(d1=1, d2=1) for event in events)


# --- prompts and login ----------------------------------------------------------------------


def test_prompts_without_line_end():
    parser = ClipParser()
    assert parser.feed("FIBS banner\r\n\r\nlogin: ") == [Banner(text="FIBS banner"), LoginPrompt(attempt=1)]
    assert parser.feed("password: ") == [PasswordPrompt()]
    assert parser.feed("> ") == [Prompt()]
    assert parser.feed(">") == []  # incomplete: wait for the space
    assert parser.feed(" ") == [Prompt()]


def test_prompt_followed_by_a_line_on_the_same_line():
    assert parse("> 12 bob hi\n") == [Prompt(), Says(name="bob", text="hi")]
    assert parse("login: 1 bot 1 host\n") == [
        LoginPrompt(attempt=1),
        Welcome(name="bot", last_login=1, last_host="host"),
    ]


def test_second_login_prompt_after_credentials_is_a_failure():
    parser = ClipParser()
    assert parser.feed("login: ") == [LoginPrompt(attempt=1)]
    parser.expect_login_result()
    assert parser.feed("\r\nlogin: ") == [LoginFailed(attempt=2)]
    assert not parser.expecting_login_result
    assert parser.feed("login: ") == [LoginPrompt(attempt=3)]


def test_welcome_ends_the_wait_for_a_login_result():
    parser = ClipParser(expecting_login_result=True)
    events = parser.feed("** Warning: You are already logged in.\r\n1 bot 1306865048 host\r\n")
    assert [type(event) for event in events] == [ServerError, Welcome]
    assert not parser.expecting_login_result


# --- state across lines ------------------------------------------------------------------------


def test_motd_lines_are_motd_even_when_they_look_like_messages():
    events = parse("3\r\n+------+\r\nYou win the game and get 1 point. Congratulations!\r\n4\r\nYou roll 2 and 1.\r\n")
    assert events == [
        MotdStart(),
        MotdLine(text="+------+"),
        MotdLine(text="You win the game and get 1 point. Congratulations!"),
        MotdEnd(),
        YouRoll(d1=2, d2=1),
    ]


def test_resumed_match_collects_its_detail_lines():
    text = (
        "You are now playing with bob. Your running match was loaded.\r\nturn: bob\r\n"
        "match length: 3\r\npoints for user bot: 1\r\npoints for user bob: 0\r\n" + MID_O_UP + "\r\n"
    )
    events = parse(text)
    assert events[0] == MatchResumed(opponent="bob", we_joined=True, turn="bob", length=3, points={"bot": 1, "bob": 0})
    assert isinstance(events[1], Board) and len(events) == 2


def test_incomplete_resume_is_released_by_the_next_line():
    events = parse("bob has joined you. Your running match was loaded.\nunlimited match\nYou roll 1 and 2.\n")
    assert events == [MatchResumed(opponent="bob", we_joined=False, length=None), YouRoll(d1=1, d2=2)]


def test_resume_detail_lines_out_of_context_are_unknown():
    assert isinstance(only("points for user bob: 3"), Unknown)


def test_flush_parses_an_unterminated_last_line():
    parser = ClipParser()
    assert parser.feed("You roll 3 and 3.") == []
    assert parser.flush() == [YouRoll(d1=3, d2=3)]


def test_line_ends_and_stray_bytes():
    assert parse("You roll 4 and 1.\r\n\r\nbob rolls 1 and 2.\n\0") == [
        YouRoll(d1=4, d2=1),
        OpponentRolls(player="bob", d1=1, d2=2),
    ]
    assert parse("You roll 4 and 1.\n\rbob rolls 1 and 2.\n\r")[1] == OpponentRolls(player="bob", d1=1, d2=2)


# --- chunking and fuzzing ---------------------------------------------------------------------


def feed_in_chunks(text: str, cuts: list[int]) -> list:
    parser = ClipParser()
    events = []
    bounds = [0, *sorted(cuts), len(text)]
    for start, end in zip(bounds, bounds[1:]):
        events += parser.feed(text[start:end])
    return events + parser.flush()


def test_one_character_at_a_time_gives_the_same_events():
    assert feed_in_chunks(SESSION, list(range(len(SESSION)))) == parse(SESSION)


@settings(max_examples=200, deadline=None)
@given(cuts=st.lists(st.integers(0, len(SESSION)), max_size=40))
def test_arbitrary_chunks_give_the_same_events(cuts):
    assert feed_in_chunks(SESSION, cuts) == parse(SESSION)


def assert_survives(text: str, cuts: list[int]) -> list:
    events = feed_in_chunks(text, [cut % (len(text) + 1) for cut in cuts])
    assert all(isinstance(event, Event) for event in events)
    return events


@settings(max_examples=300, deadline=None)
@given(text=st.text(), cuts=st.lists(st.integers(0, 10_000), max_size=8))
def test_random_text_never_raises(text, cuts):
    assert_survives(text, cuts)


@settings(max_examples=200, deadline=None)
@given(junk=st.text(alphabet=st.characters(blacklist_characters="\n\r\0 \t"), max_size=200))
def test_unrecognised_lines_become_unknown_events(junk):
    # a leading "~" starts no message, prompt or CLIP number, and without spaces no
    # "NAME verb ..." message can match; a "board:" inside is split off as a BadBoard
    events = logged_in("~" + junk + "\n")
    assert events and all(isinstance(event, Unknown) for event in events)
    assert "".join(event.text for event in events) == "~" + junk


def _mutate(draw, line: str) -> str:
    for _ in range(draw(st.integers(1, 4))):
        position = draw(st.integers(0, len(line)))
        operation = draw(st.sampled_from(["delete", "insert", "duplicate", "cut", "glue"]))
        if operation == "delete":
            line = line[:position] + line[position + draw(st.integers(1, 5)) :]
        elif operation == "insert":
            line = line[:position] + draw(st.text(min_size=1, max_size=3)) + line[position:]
        elif operation == "duplicate":
            line = line[:position] + line[position : position + 8] + line[position:]
        elif operation == "cut":
            line = line[:position]
        else:
            line = line + draw(st.sampled_from(SESSION_LINES))
    return line


@st.composite
def mutated_sessions(draw) -> str:
    lines = draw(st.lists(st.sampled_from(SESSION_LINES + [MID_O_UP]), min_size=1, max_size=6))
    return "\r\n".join(_mutate(draw, line) if draw(st.booleans()) else line for line in lines)


@settings(max_examples=400, deadline=None)
@given(text=mutated_sessions(), cuts=st.lists(st.integers(0, 10_000), max_size=6))
def test_mutated_server_lines_never_raise(text, cuts):
    events = assert_survives(text, cuts)
    for event in events:
        if isinstance(event, Board):  # whatever survived mutation is still a valid board
            assert event.board.player_off + int(event.board.our_rows()[0].sum()) == 15


@pytest.mark.parametrize("line", SESSION_LINES)
def test_every_cut_of_every_session_line_is_survived(line):
    for end in range(len(line) + 1):
        assert_survives(line[:end] + "\n", [])
