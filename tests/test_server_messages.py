"""Every server text, through the client's own parser, becomes the intended event."""

from __future__ import annotations

import numpy as np
import pytest

from engine.rules.position import Position
from fibsbot.protocol.parser import (
    Board,
    CantMove,
    ClipParser,
    ConnectionTimedOut,
    DoubleAccepted,
    DoubleOffered,
    DoubleRejected,
    GameEnd,
    GameSaved,
    Invitation,
    InviteSent,
    JoinInstructions,
    JoinNextGamePrompt,
    Kibitzes,
    Login,
    LoginPrompt,
    Logout,
    MatchEnd,
    MatchResumed,
    MatchStart,
    MessageDelivered,
    MessageSaved,
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
    WhoInfo,
    YouDoubled,
    YouKibitz,
    YouRoll,
    YourTurnToMove,
    YouSay,
    YouShout,
    YouWhisper,
)
from fibsbot.server import messages as msg
from fibsbot.server.accounts import AccountStore
from fibsbot.server.config import ServerConfig
from fibsbot.server.dice import ScriptedDice
from fibsbot.server.lobby import TOGGLE_TEXTS
from fibsbot.server.match import ServerMatch


def parse(*lines: str) -> list:
    parser = ClipParser()
    return parser.feed("".join(line + "\r\n" for line in lines)) + parser.flush()


def one(line: str):
    events = parse(line)
    assert len(events) == 1, (line, events)
    return events[0]


def account(name="alice", **toggles):
    store = AccountStore(ServerConfig(new_account_toggles=toggles))
    return store.create(name, "secret")


SINGLE_LINE_MESSAGES = [
    (msg.invitation("bob", 5), Invitation(player="bob", length=5, resume=False)),
    (msg.invitation("bob", 0), Invitation(player="bob", length=None, resume=False)),
    (msg.resume_invitation("bob"), Invitation(player="bob", length=None, resume=True)),
    (msg.join_instructions("bob"), JoinInstructions(player="bob")),
    (msg.invite_sent("bob", 3), InviteSent(player="bob", length=3, resume=False)),
    (msg.invite_sent("bob", 0), InviteSent(player="bob", length=None, resume=False)),
    (msg.invite_sent("bob", None), InviteSent(player="bob", length=None, resume=True)),
    (msg.now_playing("bob", 3), MatchStart(opponent="bob", length=3, we_joined=True)),
    (msg.now_playing("bob", 0), MatchStart(opponent="bob", length=None, we_joined=True)),
    (msg.has_joined("bob", 3), MatchStart(opponent="bob", length=3, we_joined=False)),
    (msg.has_joined("bob", 0), MatchStart(opponent="bob", length=None, we_joined=False)),
    (msg.new_game("bob"), NewGame(opponent="bob")),
    (msg.opening_roll(3, "bob", 1), OpeningRoll(opponent="bob", our_die=3, their_die=1)),
    (msg.YOUR_TURN_TO_MOVE, YourTurnToMove()),
    (msg.makes_first_move("bob"), OpponentMovesFirst(player="bob")),
    (msg.PLEASE_ROLL_OR_DOUBLE, PleaseRollOrDouble()),
    (msg.you_roll(4, 1), YouRoll(d1=4, d2=1)),
    (msg.rolls("bob", 5, 4), OpponentRolls(player="bob", d1=5, d2=4)),
    (msg.please_move(2), PleaseMove(pieces=2)),
    (msg.please_move(1), PleaseMove(pieces=1)),
    (msg.only_possible_move("24-18 13-11"), OnlyPossibleMove(move="24-18 13-11")),
    (msg.YOU_CANT_MOVE, CantMove(player="You", is_us=True)),
    (msg.cant_move("bob"), CantMove(player="bob", is_us=False)),
    (msg.moves("bob", "19-23 17-22"), OpponentMoves(player="bob", move="19-23 17-22")),
    (msg.moves("bob", "bar-22 6-off"), OpponentMoves(player="bob", move="bar-22 6-off")),
    (msg.you_double("bob"), YouDoubled(opponent="bob")),
    (msg.doubles("bob"), DoubleOffered(player="bob")),
    (msg.you_accept_double(4), DoubleAccepted(player="You", is_us=True, cube=4)),
    (msg.accepts_double("bob", 2), DoubleAccepted(player="bob", is_us=False, cube=2)),
    (msg.you_give_up("bob", 2), DoubleRejected(player="You", is_us=True, winner="bob", points=2)),
    (msg.gives_up("bob", 1), DoubleRejected(player="bob", is_us=False, winner="You", points=1)),
    (msg.you_resign("bob", 2), ResignOffered(player="You", is_us=True, points=2)),
    (msg.wants_to_resign("bob", 3), ResignOffered(player="bob", is_us=False, points=3)),
    (msg.you_accept_resign(2), ResignAccepted(player="You", is_us=True, points=2)),
    (msg.accepts_resign("bob", 1), ResignAccepted(player="bob", is_us=False, points=1)),
    (msg.RESIGN_REJECTED_BY_YOU, ResignRejected(player="You", is_us=True)),
    (msg.rejects_resign("bob"), ResignRejected(player="bob", is_us=False)),
    (msg.you_win_game(1), GameEnd(winner="You", we_won=True, points=1)),
    (msg.you_win_game(4), GameEnd(winner="You", we_won=True, points=4)),
    (msg.wins_game("bob", 2), GameEnd(winner="bob", we_won=False, points=2)),
    (msg.score_line(3, ("alice", 2), ("bob", 0)), ScoreLine(length=3, players=("alice", "bob"), scores=(2, 0))),
    (msg.score_line(0, ("alice", 7), ("bob", 5)), ScoreLine(length=None, players=("alice", "bob"), scores=(7, 5))),
    (msg.JOIN_NEXT_GAME, JoinNextGamePrompt()),
    (msg.you_win_match(3, 3, 1), MatchEnd(winner="You", we_won=True, length=3, scores=(3, 1))),
    (msg.wins_match("bob", 3, 4, 2), MatchEnd(winner="bob", we_won=False, length=3, scores=(4, 2))),
    (msg.left_game("bob"), GameSaved(player="bob", reason="left")),
    (msg.drops_connection("bob"), GameSaved(player="bob", reason="dropped")),
    (msg.logs_out_saved("bob"), GameSaved(player="bob", reason="logged_out")),
    (msg.timed_out_saved("bob"), GameSaved(player="bob", reason="timed_out")),
    (msg.YOU_TERMINATED, GameSaved(player="You", reason="terminated")),
    (msg.CONNECTION_TIMED_OUT, ConnectionTimedOut()),
    (msg.NOT_PLAYING, ServerError(message="You're not playing.")),
    (msg.ALREADY_LOGGED_IN, ServerError(message="Warning: You are already logged in.")),
    (msg.wait_for_join("bob"), Notice(text="Please wait for bob to join too.")),
    (msg.logs_in("bob"), Login(name="bob", message="bob logs in.")),
    (msg.logs_out("bob", dropped=False), Logout(name="bob", message="bob logs out.")),
    (msg.logs_out("bob", dropped=True), Logout(name="bob", message="bob drops connection.")),
    (
        msg.stored_message("bob", 1306935184, "back at 8"),
        StoredMessage(sender="bob", time=1306935184, text="back at 8"),
    ),
    ("10 bob", MessageDelivered(name="bob")),
    ("11 bob", MessageSaved(name="bob")),
    (msg.says(12, "bob", "hi there"), Says(name="bob", text="hi there")),
    (msg.says(13, "bob", "anyone?"), Shouts(name="bob", text="anyone?")),
    (msg.says(14, "bob", "psst"), Whispers(name="bob", text="psst")),
    (msg.says(15, "bob", "gl"), Kibitzes(name="bob", text="gl")),
    (msg.says(16, "bob", "thanks"), YouSay(name="bob", text="thanks")),
    (msg.you_said(17, "hello all"), YouShout(text="hello all")),
    (msg.you_said(18, "psst"), YouWhisper(text="psst")),
    (msg.you_said(19, "gg"), YouKibitz(text="gg")),
]


@pytest.mark.parametrize("line, expected", SINGLE_LINE_MESSAGES, ids=[line[:40] for line, _ in SINGLE_LINE_MESSAGES])
def test_each_message_parses_into_its_event(line, expected):
    assert one(line) == expected


def test_resume_lines_fold_into_one_resumed_match_event():
    details = msg.resume_details("bob", 3, [("alice", 1), ("bob", 0)])
    events = parse(msg.resumed_by_you("alice"), *details)
    assert events == [
        MatchResumed(opponent="alice", we_joined=True, turn="bob", length=3, points={"alice": 1, "bob": 0})
    ]
    events = parse(msg.resumed_by_them("bob"), *msg.resume_details("alice", 0, [("alice", 4), ("bob", 2)]))
    assert events == [
        MatchResumed(opponent="bob", we_joined=False, turn="alice", length=None, points={"alice": 4, "bob": 2})
    ]


def test_clip_numbered_lines_of_an_account():
    acc = account("alice", ready=True)
    acc.experience, acc.last_host = 12, "10.0.0.7"
    welcome = one(msg.welcome(acc, 1_700_000_000))
    assert welcome == Welcome(name="alice", last_login=1_700_000_000, last_host="10.0.0.7")
    info = one(msg.own_info(acc))
    assert isinstance(info, OwnInfo) and info.name == "alice" and info.experience == 12
    assert info.rating == 1500.0 and info.redoubles == 0 and info.timezone == "UTC"
    expected = {k: v for k, v in acc.toggles.items() if k in info.toggles()}
    assert info.toggles() == {**expected, "away": False}
    who = one(msg.who_info(acc, opponent="bob", idle=5, login=1_700_000_001, host="h.example", client="fibsbot_test"))
    assert who == WhoInfo(
        name="alice",
        opponent="bob",
        watching=None,
        ready=True,
        away=False,
        rating=1500.0,
        experience=12,
        idle=5,
        login=1_700_000_001,
        hostname="h.example",
        client="fibsbot_test",
        email=None,
    )
    assert one(msg.who_info(acc, opponent=None, idle=0, login=1, host="h", client=None)).opponent is None


@pytest.mark.parametrize("name", sorted(TOGGLE_TEXTS))
def test_toggle_answers_are_toggle_events(name):
    for text, value in zip(TOGGLE_TEXTS[name], (True, False)):
        assert one(msg.error(text)) == ToggleChanged(name=name, value=value)


def test_board_lines_of_both_seats_parse_and_mirror_each_other():
    match = ServerMatch(("alice", "bob"), 3, ScriptedDice([(3, 1)]))
    match.start()
    boards = [one(match.board_for(seat)) for seat in (0, 1)]
    assert all(isinstance(event, Board) for event in boards)
    alice, bob = boards[0].board, boards[1].board
    assert alice.board == bob.board  # the 26 cells are the server's, shared
    assert (alice.colour, alice.direction, bob.colour, bob.direction) == (-1, 1, 1, -1)
    assert alice.turn == bob.turn == alice.colour  # alice rolled the 3
    assert alice.player_dice == bob.opponent_dice == (3, 1)
    assert alice.position_from_our_view() == Position.initial() == bob.position_from_our_view()
    assert alice.can_move == 2 and bob.can_move == 0
    ours, theirs = alice.our_rows()
    assert np.array_equal(ours, match.rows[0]) and np.array_equal(theirs, match.rows[1])


INFORMATIONAL = [
    msg.GOODBYE,
    "You're away. Please type 'back'",
    "Welcome back.",
    "The current settings are:",
    "allowpip    YES",
    "Your name will be carol",
    "Type in your password.",
    "Please retype your password.",
    "You are registered as carol.",
    "Type 'bye' to finish this session.",
    "Welcome to FIBS. You just logged in as guest.",
    "Please register before using this server:",
    "Type 'name username' to choose your name.",
]


@pytest.mark.parametrize("line", INFORMATIONAL)
def test_informational_lines_are_not_mistaken_for_game_events(line):
    events = parse(msg.LOGIN_PROMPT, line)
    assert events == [LoginPrompt(attempt=1), Unknown(text=line)]


def test_a_setting_answer_is_a_setting_event():
    assert parse(msg.LOGIN_PROMPT, "Value of 'boardstyle' set to 3.") == [
        LoginPrompt(attempt=1),
        SettingChanged(name="boardstyle", value="3"),
    ]
