"""A server message glued to the echo of our own tell (issue 36, defect 7a).

A foreign server sent the echo of the bot's tell (CLIP 16) without its line end, and the
next message followed on the same line; the match start inside it was lost, so the match
was played without a record.  The lines here are those it sent, exactly.
"""

from __future__ import annotations

import pytest

from fibsbot.protocol.parser import (
    Board,
    Invitation,
    Kibitzes,
    MatchStart,
    NewGame,
    Says,
    ServerError,
    WhoInfo,
    YouKibitz,
    YouSay,
)
from tests.fibs_samples import OPENING_X_DOWN, logged_in

HELP = (
    "Hi, I am fibsbotx, a backgammon bot (a program, not a person). I play 1 to 9 point matches. "
    "Type 'invite fibsbotx 5' to play me. Commands: tell fibsbotx help."
)
BUSY = "Sorry, I am playing a match right now. Please try later."
GLUED_HELP = f"16 oppo {HELP}** You are now playing a 3 point match with oppo"
GLUED_BUSY = f"16 oppo {BUSY}** You are now playing a 3 point match with oppo"
STARTED = MatchStart(opponent="oppo", length=3, we_joined=True)


@pytest.mark.parametrize("line, told", [(GLUED_HELP, HELP), (GLUED_BUSY, BUSY)])
def test_a_match_start_glued_to_the_echo_of_our_tell_is_found(line, told):
    assert logged_in(line + "\r\n") == [YouSay(name="oppo", text=told), STARTED]


def test_the_lines_after_the_glued_start_are_read_as_ever():
    events = logged_in(GLUED_HELP + "\r\nStarting a new game with oppo.\r\n" + OPENING_X_DOWN + "\r\n")
    assert [type(e) for e in events] == [YouSay, MatchStart, NewGame, Board]


@pytest.mark.parametrize(
    "glued, event",
    [
        ("** Player oppo has joined you for a 3 point match.", MatchStart(opponent="oppo", length=3, we_joined=False)),
        ("oppo wants to play a 5 point match with you.", Invitation(player="oppo", length=5, resume=False)),
        ("** oppo is refusing games.", ServerError(message="oppo is refusing games.")),
    ],
)
def test_other_server_messages_glued_to_our_echo_are_found(glued, event):
    assert logged_in(f"16 oppo {HELP}{glued}\r\n") == [YouSay(name="oppo", text=HELP), event]


def test_a_board_or_a_who_line_glued_to_our_echo_is_found():
    events = logged_in(f"16 oppo {BUSY}{OPENING_X_DOWN}\r\n")
    assert [type(e) for e in events] == [YouSay, Board] and events[0].text == BUSY
    who = "5 oppo bob - 1 0 1500.00 12 0 1700000000 127.0.0.1 - -"
    events = logged_in(f"16 oppo {BUSY}{who}\r\n")
    assert [type(e) for e in events] == [YouSay, WhoInfo] and events[1].opponent == "bob"


def test_a_message_glued_to_our_kibitz_echo_is_found():
    assert logged_in("19 good luck!** You are now playing a 3 point match with oppo\r\n") == [
        YouKibitz(text="good luck!"),
        STARTED,
    ]


@pytest.mark.parametrize(
    "line, event",
    [
        # the chat of others is never split: a player must not forge a server line by telling us one
        (
            "12 oppo hi.** You are now playing a 3 point match with oppo",
            Says(name="oppo", text="hi.** You are now playing a 3 point match with oppo"),
        ),
        (
            f"15 oppo gl.{OPENING_X_DOWN}",
            Kibitzes(name="oppo", text=f"gl.{OPENING_X_DOWN}"),
        ),
        # our own text: spaces before a server message's start, sentences that are no message
        (f"16 oppo {HELP}", YouSay(name="oppo", text=HELP)),
        (
            "16 oppo see ** Player bob has joined you for a 3 point match.",
            YouSay(name="oppo", text="see ** Player bob has joined you for a 3 point match."),
        ),
        (
            "16 oppo Wait...ok!Great.Version 2.3 is out.",
            YouSay(name="oppo", text="Wait...ok!Great.Version 2.3 is out."),
        ),
        ("16 oppo I **really** mean it.", YouSay(name="oppo", text="I **really** mean it.")),
    ],
)
def test_chat_that_holds_no_glued_server_message_stays_whole(line, event):
    assert logged_in(line + "\r\n") == [event]


STATUS = "playing a 3 point match with oppo, score 1-2; 4 matches finished"  # no full stop at its end


@pytest.mark.parametrize(
    "glued, event",
    [
        ("** You are now playing a 3 point match with oppo", STARTED),
        ("Starting a new game with oppo.", NewGame(opponent="oppo")),
        ("12 oppo thanks", Says(name="oppo", text="thanks")),
    ],
)
def test_a_message_that_cannot_begin_inside_a_word_is_found_after_any_echo(glued, event):
    assert logged_in(f"16 referee {STATUS}{glued}\r\n") == [YouSay(name="referee", text=STATUS), event]


def test_a_message_that_begins_with_a_name_is_looked_for_only_after_a_sentence():
    # inside "finishedoppo" the name could begin anywhere: the line stays whole
    line = f"16 referee {STATUS}oppo wants to play a 5 point match with you."
    assert logged_in(line + "\r\n") == [YouSay(name="referee", text=line[len("16 referee ") :])]
