"""The CLIP parser: every event from its exact server text (a stream of them: test_clip_stream.py)."""

from __future__ import annotations

import pytest

from fibsbot.protocol.board import parse_board_line
from fibsbot.protocol.parser import (
    BadBoard,
    Board,
    CantMove,
    ConnectionTimedOut,
    DoubleAccepted,
    DoubleOffered,
    DoubleRejected,
    GameEnd,
    GameSaved,
    GiveUp,
    Invitation,
    InviteSent,
    JoinInstructions,
    JoinNextGamePrompt,
    Kibitzes,
    Login,
    Logout,
    MatchEnd,
    MatchStart,
    MessageDelivered,
    MessageSaved,
    MotdEnd,
    MotdStart,
    NewGame,
    Notice,
    OnlyPossibleMove,
    OpeningRoll,
    OpponentMoves,
    OpponentMovesFirst,
    OpponentRolls,
    OwnInfo,
    PleaseMove,
    PleaseRollOrDouble,
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
from tests.fibs_samples import OPENING_X_DOWN, only

BOARD = OPENING_X_DOWN


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
    ("** Please wait for bob to join too.", Notice(text="Please wait for bob to join too.")),
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
