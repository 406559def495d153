"""Saved matches: leaving, dropping, logging out and timing out save; ``invite U`` resumes."""

from __future__ import annotations

import pytest

from fibsbot.protocol.parser import (
    ConnectionTimedOut,
    DoubleOffered,
    GameSaved,
    Invitation,
    InviteSent,
    JoinInstructions,
    Logout,
    MatchResumed,
    NewGame,
    PleaseMove,
    PleaseRollOrDouble,
    ServerError,
    WhoInfo,
)
from fibsbot.server.dice import ScriptedDice, SeededDice
from tests.server_harness import Harness

OPENING_31 = "move 17-20 19-20"


def started(**config) -> Harness:
    h = Harness(dice=ScriptedDice([(3, 1), (5, 2)], fallback=SeededDice(3)), **config)
    h.start_match("alice", "bob", 3)
    return h


def resume(h: Harness, inviter: str, joiner: str) -> None:
    h.send(inviter, f"invite {joiner}")
    h.send(joiner, f"join {inviter}")


@pytest.mark.parametrize(
    "how, seen_by_bob",
    [
        ("leave", GameSaved(player="alice", reason="left")),
        ("bye", GameSaved(player="alice", reason="logged_out")),
        ("drop", GameSaved(player="alice", reason="dropped")),
    ],
)
def test_leaving_saves_the_match(how, seen_by_bob):
    h = started()
    alice, bob = h.players["alice"], h.players["bob"]
    if how == "drop":
        h.drop("alice")
    else:
        h.send("alice", how)
    assert seen_by_bob in bob.events
    if how == "leave":
        assert GameSaved(player="You", reason="terminated") in alice.events
    assert h.core.match_of("bob") is None
    assert h.core.saved_match("alice", "bob") is not None
    assert bob.of(WhoInfo)[-1].opponent is None


def test_resume_after_a_drop_restores_the_board_and_the_turn():
    h = started()
    alice, bob = h.players["alice"], h.players["bob"]
    h.send("alice", OPENING_31)
    h.send("bob", "roll")  # bob must now move 5-2
    before = {name: h.players[name].board.to_line() for name in ("alice", "bob")}
    h.drop("bob")
    assert [type(e) for e in alice.events[-3:]] == [GameSaved, WhoInfo, Logout]
    assert alice.events[-3] == GameSaved(player="bob", reason="dropped")
    assert alice.events[-1] == Logout(name="bob", message="bob drops connection.")
    bob = h.login("bob")
    h.send("bob", "invite alice")
    assert bob.events[-1] == InviteSent(player="alice", length=None, resume=True)
    assert alice.events[-2:] == [Invitation(player="bob", length=None, resume=True), JoinInstructions(player="bob")]
    h.send("alice", "join bob")
    assert (
        MatchResumed(opponent="bob", we_joined=True, turn="bob", length=3, points={"alice": 0, "bob": 0})
        in alice.events
    )
    assert (
        MatchResumed(opponent="alice", we_joined=False, turn="bob", length=3, points={"alice": 0, "bob": 0})
        in bob.events
    )
    assert bob.board.to_line() == before["bob"] and alice.board.to_line() == before["alice"]
    assert bob.events[-1] == PleaseMove(pieces=2) and bob.board.we_must_move
    h.send("bob", "move 13-8 13-11")
    assert alice.events[-1] == PleaseRollOrDouble()


def test_resume_with_a_double_pending_asks_again():
    h = started()
    h.send("alice", OPENING_31)
    h.send("bob", "double")
    h.send("alice", "leave")
    resume(h, "bob", "alice")
    alice = h.players["alice"]
    assert alice.events[-1] == DoubleOffered(player="bob")
    assert alice.board.opponent_doubled and alice.board.is_our_turn
    h.send("alice", "accept")
    assert h.players["bob"].board.cube == 2


def test_resume_between_games_starts_the_next_game_with_the_score_kept():
    h = started()
    h.send("bob", "resign n")
    h.send("alice", "accept")
    h.send("alice", "leave")
    resume(h, "alice", "bob")
    alice = h.players["alice"]
    assert alice.of(MatchResumed)[-1].points == {"alice": 1, "bob": 0}
    assert alice.of(NewGame) and alice.board.player_score == 1 and alice.board.turn != 0


def test_a_pending_resignation_lapses_when_the_match_is_saved():
    h = started()
    h.send("alice", "resign g")
    h.send("bob", "leave")
    resume(h, "alice", "bob")
    h.send("bob", "accept")
    assert h.players["bob"].events[-1] == ServerError(message="There's nothing to accept.")


def test_timeout_saves_and_tells_the_opponent():
    h = started(idle_timeout=100)
    alice, bob = h.players["alice"], h.players["bob"]
    h.advance(50)
    h.send("bob", "board")
    h.advance(60)
    assert alice.closed and alice.events[-1] == ConnectionTimedOut()
    assert GameSaved(player="alice", reason="timed_out") in bob.events
    h.login("alice")
    resume(h, "alice", "bob")
    assert h.players["alice"].board.we_must_move  # alice still has her opening 3-1 to play


def test_a_new_match_replaces_a_saved_one():
    h = started()
    h.send("alice", "leave")
    h.send("alice", "invite bob 1")
    h.send("bob", "join alice")
    assert h.core.saved_match("alice", "bob") is None
    assert h.players["bob"].board.match_length == 1
