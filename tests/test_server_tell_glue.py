"""The local server can send the echo of a player's own tell without its line end, as a foreign
server did (issue 36, defect 7c): the next line that player gets follows on the same line."""

from __future__ import annotations

from fibsbot.protocol.parser import Invitation, JoinInstructions, MatchStart, Says, WhoInfo, YouSay
from tests.server_harness import Harness

HELP = "Hi, I am alice, a backgammon bot (a program, not a person). Commands: tell alice help."


def test_without_the_option_a_tell_echo_ends_its_line():
    h = Harness()
    h.login("alice")
    h.login("bob")
    h.send("alice", f"tell bob {HELP}")
    assert h.players["alice"].text.endswith(f"16 bob {HELP}\r\n")


def test_with_the_option_the_next_line_follows_the_echo_and_the_parser_splits_it():
    h = Harness(glue_tell_echo=True)
    alice, bob = h.login("alice"), h.login("bob")
    h.send("alice", f"tell bob {HELP}")
    assert bob.events[-1] == Says(name="alice", text=HELP)  # the other side's line is whole
    assert alice.text.endswith(f"16 bob {HELP}")  # no line end: the parser waits for the rest
    assert not [e for e in alice.events if isinstance(e, YouSay)]
    h.send("bob", "invite alice 3")
    assert f"16 bob {HELP}bob wants to play a 3 point match with you.\r\n" in alice.text
    assert alice.events[-3:] == [
        YouSay(name="bob", text=HELP),
        Invitation(player="bob", length=3, resume=False),
        JoinInstructions(player="bob"),
    ]


def test_the_lines_of_a_match_start_glued_to_a_tell_echo_are_all_read_by_the_player_who_joined():
    h = Harness(glue_tell_echo=True)
    alice, _ = h.login("alice"), h.login("bob")
    h.send("bob", "invite alice 3")
    h.send("alice", f"tell bob {HELP}")
    h.send("alice", "join bob")
    assert f"{HELP}5 bob alice - 1 0 " in alice.text  # the first of the who lines the start sends
    assert YouSay(name="bob", text=HELP) in alice.events
    assert [e.name for e in alice.events if isinstance(e, WhoInfo)][-2:] == ["bob", "alice"]
    assert MatchStart(opponent="bob", length=3, we_joined=True) in alice.events
    assert alice.unknown() == []
