"""The local server can reload a match in its Crawford game as a faulty server does: flag unset."""

from __future__ import annotations

from fibsbot.protocol.parser import (
    DoubleAccepted,
    MatchResumed,
    PleaseRollOrDouble,
)
from fibsbot.server.dice import ScriptedDice, SeededDice
from tests.server_harness import Harness, first_move, pending_action


def reloaded_in_the_crawford_game(**config) -> Harness:
    """A 2-point match: bob resigns the first game (1-0), the Crawford game begins, alice drops
    and comes back, and the saved match is reloaded."""
    h = Harness(dice=ScriptedDice([(3, 1), (5, 2)], fallback=SeededDice(3)), **config)
    h.start_match("alice", "bob", 2)
    h.send("bob", "resign n")
    h.send("alice", "accept")
    h.send("alice", "join")
    h.send("bob", "join")
    board = h.players["alice"].board
    assert board.is_crawford_game and (board.player_score, board.opponent_score) == (1, 0)
    h.drop("alice")
    h.login("alice")
    h.send("alice", "invite bob")
    h.send("bob", "join alice")
    return h


def mover_moves(h: Harness) -> str:
    """The player who must move does; the name of the other, who rolls next."""
    mover = next(name for name in ("alice", "bob") if pending_action(h.players[name]) == "move")
    h.send(mover, first_move(h.players[mover].board))
    return "bob" if mover == "alice" else "alice"


def test_a_reload_keeps_the_crawford_game_by_default():
    h = reloaded_in_the_crawford_game()
    alice = h.players["alice"]
    assert alice.of(MatchResumed) and alice.board.is_crawford_game and not alice.board.post_crawford
    roller = mover_moves(h)
    assert not h.players[roller].of(PleaseRollOrDouble)  # the server rolls: nobody may double


def test_a_server_that_loses_the_crawford_game_sends_the_flag_unset_and_takes_a_double():
    h = reloaded_in_the_crawford_game(crawford_lost_on_reload=True)
    for name in ("alice", "bob"):
        board = h.players[name].board
        assert board.post_crawford and not board.is_crawford_game  # field 51 went 0 -> 1 at 1-0
        assert {board.player_score, board.opponent_score} == {0, 1}
    roller = mover_moves(h)
    other = "bob" if roller == "alice" else "alice"
    assert h.players[roller].of(PleaseRollOrDouble)
    h.send(roller, "double")
    h.send(other, "accept")
    assert h.players[roller].of(DoubleAccepted)[-1] == DoubleAccepted(player=other, is_us=False, cube=2)
