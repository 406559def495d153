"""The CLIP parser: every event from its exact server text, glued lines, prompts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fibsbot.protocol.board import parse_board_line
from fibsbot.protocol.parser import (
    BadBoard,
    Banner,
    Board,
    CantMove,
    ClipParser,
    ConnectionTimedOut,
    DoubleAccepted,
    DoubleOffered,
    DoubleRejected,
    Event,
    GameEnd,
    GameSaved,
    GiveUp,
    Invitation,
    InviteSent,
    JoinInstructions,
    JoinNextGamePrompt,
    Kibitzes,
    Login,
    LoginFailed,
    LoginPrompt,
    Logout,
    MatchEnd,
    MatchResumed,
    MatchStart,
    MessageDelivered,
    MessageSaved,
    MotdEnd,
    MotdLine,
    MotdStart,
    NewGame,
    OnlyPossibleMove,
    OpeningRoll,
    OpponentMoves,
    OpponentMovesFirst,
    OpponentRolls,
    OwnInfo,
    PasswordPrompt,
    PleaseMove,
    PleaseRollOrDouble,
    Prompt,
    ResignAccepted,
    ResignOffered,
    ResignRejected,
    Says,
    ScoreLine,
    ServerError,
    SettingChanged,
    Shouts,
    StoredMessage,
    ToggleChanged,
    Unknown,
    Welcome,
    Whispers,
    WhoEnd,
    WhoInfo,
    YouDoubled,
    YouKibitz,
    YouRoll,
    YourTurnToMove,
    YouSay,
    YouShout,
    YouWhisper,
)
from tests.fibs_samples import MID_O_UP, OPENING_X_DOWN, SESSION, SESSION_LINES

BOARD = OPENING_X_DOWN


def parse(text: str, **options) -> list:
    parser = ClipParser(**options)
    return parser.feed(text) + parser.flush()


def logged_in(text: str) -> list:
    """The events of ``text`` on a connection past its login prompt (before it, text is the banner)."""
    events = parse("login: " + text)
    assert events[0] == LoginPrompt(attempt=1)
    return events[1:]


def only(text: str):
    events = logged_in(text + "\r\n")
    assert len(events) == 1, events
    return events[0]


EXACT = [
    ("1 bot 1306865048 host.example.com", Welcome(name="bot", last_login=1306865048, last_host="host.example.com")),
    ("3", MotdStart()),
    ("4", MotdEnd()),
    (
        "5 bob alice - 1 0 1418.61 1914 23 1306926526 173.223.48.110 Gibbon_0.1.1 bob@x.org",
        WhoInfo(
            name="bob",
            opponent="alice",
            watching=None,
            ready=True,
            away=False,
            rating=1418.61,
            experience=1914,
            idle=23,
            login=1306926526,
            hostname="173.223.48.110",
            client="Gibbon_0.1.1",
            email="bob@x.org",
        ),
    ),
    (
        "5 carol - - 0 1 -35.67 914 0 1306926526 44.55.66.77 - -",
        WhoInfo(
            name="carol",
            opponent=None,
            watching=None,
            ready=False,
            away=True,
            rating=-35.67,
            experience=914,
            idle=0,
            login=1306926526,
            hostname="44.55.66.77",
            client=None,
            email=None,
        ),
    ),
    ("6", WhoEnd()),
    ("7 bob bob logs in.", Login(name="bob", message="bob logs in.")),
    ("8 bob bob drops connection.", Logout(name="bob", message="bob drops connection.")),
    ("9 bob 1306935184 Be back at 8.", StoredMessage(sender="bob", time=1306935184, text="Be back at 8.")),
    ("10 bob", MessageDelivered(name="bob")),
    ("11 bob", MessageSaved(name="bob")),
    ("12 bob Hello there.", Says(name="bob", text="Hello there.")),
    ("13 bob   Anyone for a game?", Shouts(name="bob", text="  Anyone for a game?")),
    ("14 bob nice roll", Whispers(name="bob", text="nice roll")),
    ("15 bob gl", Kibitzes(name="bob", text="gl")),
    ("16 bob thanks", YouSay(name="bob", text="thanks")),
    ("17 hello all", YouShout(text="hello all")),
    ("18 psst", YouWhisper(text="psst")),
    ("19 gg", YouKibitz(text="gg")),
    ("bob wants to play a 5 point match with you.", Invitation(player="bob", length=5, resume=False)),
    ("bob wants to play an unlimited match with you.", Invitation(player="bob", length=None, resume=False)),
    ("bob wants to resume a saved match with you.", Invitation(player="bob", length=None, resume=True)),
    ("Type 'join bob' to accept.", JoinInstructions(player="bob")),
    ("** You invited bob to a 3 point match.", InviteSent(player="bob", length=3, resume=False)),
    ("** You invited bob to resume a saved match.", InviteSent(player="bob", length=None, resume=True)),
    ("** You are now playing a 3 point match with bob", MatchStart(opponent="bob", length=3, we_joined=True)),
    ("** You are now playing an unlimited match with bob", MatchStart(opponent="bob", length=None, we_joined=True)),
    ("** Player bob has joined you for a 3 point match.", MatchStart(opponent="bob", length=3, we_joined=False)),
    ("Player bob has joined you for an unlimited match.", MatchStart(opponent="bob", length=None, we_joined=False)),
    ("Starting a new game with bob.", NewGame(opponent="bob")),
    ("You rolled 3, bob rolled 1", OpeningRoll(opponent="bob", our_die=3, their_die=1)),
    ("It's your turn to move.", YourTurnToMove()),
    ("bob makes the first move.", OpponentMovesFirst(player="bob")),
    ("It's your turn. Please roll or double", PleaseRollOrDouble()),
    ("It's your turn. Please roll or double.", PleaseRollOrDouble()),
    ("You roll 4 and 1.", YouRoll(d1=4, d2=1)),
    ("Please move 2 pieces.", PleaseMove(pieces=2)),
    ("Please move 1 pieces.", PleaseMove(pieces=1)),
    ("You can't move.", CantMove(player="You", is_us=True)),
    ("bob can't move.", CantMove(player="bob", is_us=False)),
    ("The only possible move is 24-18 13-11 .", OnlyPossibleMove(move="24-18 13-11")),
    ("bob rolls 5 and 4.", OpponentRolls(player="bob", d1=5, d2=4)),
    ("bob moves 19-23 17-22 .", OpponentMoves(player="bob", move="19-23 17-22")),
    ("bob moves bar-22 24-off", OpponentMoves(player="bob", move="bar-22 24-off")),
    ("You double. Please wait for bob to accept or reject.", YouDoubled(opponent="bob")),
    ("bob doubles. Type 'accept' or 'reject'.", DoubleOffered(player="bob")),
    ("bob accepts the double. The cube shows 2.", DoubleAccepted(player="bob", is_us=False, cube=2)),
    ("You accept the double.  The cube shows 4.", DoubleAccepted(player="You", is_us=True, cube=4)),
    ("bob gives up. You win 1 point.", DoubleRejected(player="bob", is_us=False, winner="You", points=1)),
    ("You give up. bob wins 2 points.", GiveUp(player="You", is_us=True, winner="bob", points=2)),
    (
        "bob wants to resign. You will win 2 points. Type 'accept' or 'reject'.",
        ResignOffered(player="bob", is_us=False, points=2),
    ),
    ("You want to resign. bob will win 1 point.", ResignOffered(player="You", is_us=True, points=1)),
    ("You accept and win 2 points.", ResignAccepted(player="You", is_us=True, points=2)),
    ("bob accepts and wins 1 point.", ResignAccepted(player="bob", is_us=False, points=1)),
    ("You reject. The game continues.", ResignRejected(player="You", is_us=True)),
    ("bob rejects. The game continues.", ResignRejected(player="bob", is_us=False)),
    ("You win the game and get 2 points. Congratulations!", GameEnd(winner="You", we_won=True, points=2)),
    ("bob wins the game and gets 1 point. Sorry.", GameEnd(winner="bob", we_won=False, points=1)),
    ("score in 3 point match: bot-2 bob-0", ScoreLine(length=3, players=("bot", "bob"), scores=(2, 0))),
    ("score in unlimited match: bot-2 bob-5", ScoreLine(length=None, players=("bot", "bob"), scores=(2, 5))),
    ("Type 'join' if you want to play the next game, type 'leave' if you don't.", JoinNextGamePrompt()),
    ("bob wins the 3 point match 3-1 .", MatchEnd(winner="bob", we_won=False, length=3, scores=(3, 1))),
    ("You win the 7 point match 8-4.", MatchEnd(winner="You", we_won=True, length=7, scores=(8, 4))),
    ("** Player bob has left the game. The game was saved.", GameSaved(player="bob", reason="left")),
    ("bob drops connection. The game was saved.", GameSaved(player="bob", reason="dropped")),
    ("Connection with bob timed out. The game was saved.", GameSaved(player="bob", reason="timed_out")),
    ("bob logs out. The game was saved.", GameSaved(player="bob", reason="logged_out")),
    ("** You terminated the game. The game was saved.", GameSaved(player="You", reason="terminated")),
    ("Connection timed out.", ConnectionTimedOut()),
    ("** You're not playing.", ServerError(message="You're not playing.")),
    ("** Please wait for bob to join too.", ServerError(message="Please wait for bob to join too.")),
    ("** Warning: You are already logged in.", ServerError(message="Warning: You are already logged in.")),
    ("Welcome to FIBS. You just logged in as guest.", Unknown(text="Welcome to FIBS. You just logged in as guest.")),
    ("You rolled 3, oppo rolled 6.", OpeningRoll(opponent="oppo", our_die=3, their_die=6)),
    ("Value of 'boardstyle' set to 3.", SettingChanged(name="boardstyle", value="3")),
    ("** You will hear what other players shout.", ToggleChanged(name="silent", value=False)),
]


@pytest.mark.parametrize("text, expected", EXACT, ids=[text[:40] for text, _ in EXACT])
def test_each_message_from_its_exact_text(text, expected):
    assert only(text) == expected
    assert type(only(text + "   ")) is type(expected)  # trailing spaces


def test_own_info_is_fully_typed():
    info = only("2 bot 1 1 0 0 0 0 1 1 2396 0 1 0 1 3457.85 0 0 unlimited 0 0 Europe/Sofia")
    assert isinstance(info, OwnInfo)
    assert (info.name, info.experience, info.rating, info.redoubles, info.timezone) == (
        "bot",
        2396,
        3457.85,
        None,
        "Europe/Sofia",
    )
    assert info.toggles() == {
        "allowpip": True,
        "autoboard": True,
        "autodouble": False,
        "automove": False,
        "away": False,
        "bell": False,
        "crawford": True,
        "double": True,
        "greedy": False,
        "moreboards": True,
        "moves": False,
        "notify": True,
        "ratings": False,
        "ready": False,
        "report": False,
        "silent": False,
    }
    assert only("2 bot 1 1 0 0 0 0 1 1 2396 0 1 0 1 3457.85 0 0 none 0 0 UTC").redoubles == 0


@pytest.mark.parametrize("text", ["1 bot notanumber host", "2 bot 1 1", "5 bob", "10", "12", "7", "3 extra"])
def test_malformed_numbered_lines_are_unknown_with_a_reason(text):
    event = only(text)
    assert isinstance(event, Unknown) and event.text == text and event.reason


def test_board_event_wraps_the_parsed_board():
    event = only(BOARD)
    assert isinstance(event, Board)
    assert event.board == parse_board_line(BOARD) and event.line == BOARD


def test_malformed_board_lines_are_bad_boards():
    short = only("board:You:bob:5:0:0")
    assert isinstance(short, BadBoard) and isinstance(short, Unknown)
    assert "53 fields" in short.reason
    fifteen = BOARD.replace(":0:-2:0:", ":0:-1:0:")  # one of our back checkers vanishes
    invalid = only(fifteen)
    assert isinstance(invalid, BadBoard) and "14 checkers" in invalid.reason


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
        ("** Please wait for bob to join too." + BOARD, [ServerError, Board]),
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
