"""Game rules of the server core: opening, moves, cube, resignations, Crawford, match end.

Alice invites and sits in seat 0 (X, moving 1 -> 24); Bob joins in seat 1 (O, 24 -> 1).
"""

from __future__ import annotations

import numpy as np
import pytest

from fibsbot.protocol.parser import (
    Board,
    CantMove,
    DoubleAccepted,
    DoubleOffered,
    DoubleRejected,
    GameEnd,
    Invitation,
    JoinNextGamePrompt,
    MatchEnd,
    NewGame,
    Notice,
    OnlyPossibleMove,
    OpeningRoll,
    OpponentMoves,
    OpponentMovesFirst,
    OpponentRolls,
    PleaseMove,
    PleaseRollOrDouble,
    ResignAccepted,
    ResignOffered,
    ResignRejected,
    ScoreLine,
    ServerError,
    WhoInfo,
    YouDoubled,
    YouRoll,
    YourTurnToMove,
)
from fibsbot.server.dice import ScriptedDice, SeededDice
from fibsbot.server.match import Phase
from tests.server_harness import Harness, first_move

OPENING_31 = "move 17-20 19-20"  # alice's 8/5 6/5 in server cells


def match_with(dice, length=3, **config) -> Harness:
    h = Harness(dice=ScriptedDice(dice, fallback=SeededDice(7)), **config)
    h.start_match("alice", "bob", length)
    return h


def last(player, kind):
    found = player.of(kind)
    assert found, f"{player.name} got no {kind.__name__}"
    return found[-1]


def place(
    h: Harness, alice_row: dict[int, int], bob_row: dict[int, int], *, turn: int, dice: tuple[int, int] | None = None
) -> None:
    """Put checkers ({own point: count}, 25 = bar) and hand the turn over (white box)."""
    match = h.core.match_of("alice")
    match.rows[:] = 0
    for seat, row in ((0, alice_row), (1, bob_row)):
        for point, count in row.items():
            match.rows[seat, point - 1] = count
    match.turn, match.phase, match.dice = turn, Phase.ROLL, None


def test_opening_roll_boards_and_no_move_prompt():
    h = match_with([(3, 1)])
    alice, bob = h.players["alice"], h.players["bob"]
    assert last(alice, OpeningRoll) == OpeningRoll(opponent="bob", our_die=3, their_die=1)
    assert last(bob, OpeningRoll) == OpeningRoll(opponent="alice", our_die=1, their_die=3)
    assert alice.of(YourTurnToMove) and last(bob, OpponentMovesFirst).player == "alice"
    assert not alice.of(PleaseMove) and not bob.of(PleaseMove)  # the FIBS trap, kept
    assert alice.board.we_must_move and alice.board.our_dice == (3, 1)
    assert not bob.board.is_our_turn and bob.board.their_dice == (3, 1)
    assert (alice.board.colour, alice.board.direction) == (-1, 1)
    assert (bob.board.colour, bob.board.direction) == (1, -1)


def test_opening_ties_are_rolled_again():
    h = match_with([(2, 2), (1, 4)])
    assert h.players["bob"].board.our_dice == (4, 1)
    assert last(h.players["alice"], OpeningRoll) == OpeningRoll(opponent="bob", our_die=1, their_die=4)


def test_a_move_is_echoed_in_server_points_and_the_next_turn_prompts():
    h = match_with([(3, 1)])
    h.send("alice", OPENING_31)
    alice, bob = h.players["alice"], h.players["bob"]
    assert last(bob, OpponentMoves) == OpponentMoves(player="alice", move="17-20 19-20")
    assert bob.events[-1] == PleaseRollOrDouble()
    assert bob.board.we_must_roll_or_double and bob.board.player_may_double
    mover_view = alice.board.position_from_our_view().board
    assert mover_view[0, 4] == 2 and mover_view[0, 5] == 4 and mover_view[0, 7] == 2
    assert alice.board.board == bob.board.board


@pytest.mark.parametrize(
    "command, problem",
    [
        ("move 17-21 19-20", "You can't move 17-21 with 3 and 1."),
        ("move 17-20", "You must give 2 moves."),
        ("move 12-15 12-13", "The point 13 is blocked (12-13)."),
        ("move 2-5 1-2", "You don't have a checker on 2 (2-5)."),
        ("move 17-20 19-20 1-2", "You can't move 1-2 with no dice left."),
        ("move banana", "'banana' in 'banana' is not a FIBS step like 24-18, bar-22 or 6-off"),
        ("move 19-off 17-20", "You can't bear off before all your checkers are home (19-off)."),
        ("roll", "You already rolled. Please move."),
        ("double", "You already rolled. Please move."),
        ("accept", "There's nothing to accept."),
        ("resign x", "Type 'resign n', 'resign g' or 'resign b'."),
    ],
)
def test_illegal_commands_are_refused_and_the_turn_is_kept(command, problem):
    h = match_with([(3, 1)])
    alice = h.players["alice"]
    before = h.core.match_of("alice").board_for(0)
    h.send("alice", command)
    assert alice.events[-1] == ServerError(message=problem)
    assert h.core.match_of("alice").board_for(0) == before
    h.send("alice", OPENING_31)
    assert h.players["bob"].events[-1] == PleaseRollOrDouble()


def test_commands_out_of_turn():
    h = match_with([(3, 1)])
    h.send("bob", "move 1-4 1-2")
    assert h.players["bob"].events[-1] == ServerError(message="It's not your turn.")
    h.send("alice", OPENING_31)
    h.send("bob", "move 6-3")
    assert h.players["bob"].events[-1] == ServerError(message="You have to roll the dice first.")


def test_roll_then_move_and_bar_entry():
    h = match_with([(3, 1), (6, 4)])
    h.send("alice", "move 1-4 4-5")  # alice runs a back checker to bob's 20 point: a blot
    h.send("bob", "roll")
    bob = h.players["bob"]
    assert bob.events[-3:] == [YouRoll(d1=6, d2=4), bob.events[-2], PleaseMove(pieces=2)]
    assert bob.board.can_move == 2 and last(h.players["alice"], OpponentRolls).d1 == 6
    h.send("bob", "move 24-18 13-9")
    h.core.dice.extend([(5, 6)])
    place(h, {25: 1, 11: 14}, {6: 5, 8: 3, 13: 5, 24: 2}, turn=0)
    h.send("bob", "board")  # any state change: alice now rolls on the bar (white box)
    h.send("alice", "roll")
    h.send("alice", "move 14-20 bar-5")
    assert h.players["alice"].events[-1] == ServerError(
        message="You have to move your checkers from the bar first (14-20)."
    )
    h.send("alice", "move bar-6 14-19")
    assert h.players["alice"].events[-1] == ServerError(message="The point 6 is blocked (bar-6).")
    h.send("alice", "move bar-5 5-11")
    assert last(bob, OpponentMoves).move == "bar-5 5-11"


def test_no_legal_move_passes_the_turn():
    h = match_with([(3, 1), (6, 6)])
    h.send("alice", OPENING_31)
    # bob on the bar against alice's closed board: 2 on each of her points 1..6
    place(h, {p: 2 for p in range(1, 7)} | {24: 3}, {25: 1, 6: 14}, turn=1)
    h.send("bob", "roll")
    alice, bob = h.players["alice"], h.players["bob"]
    assert YouRoll(d1=6, d2=6) in bob.events and bob.events[-1] != PleaseMove(pieces=0)
    assert CantMove(player="You", is_us=True) in bob.events
    assert CantMove(player="bob", is_us=False) in alice.events
    assert alice.events[-1] == PleaseRollOrDouble() and alice.board.we_must_roll_or_double


def test_double_and_take_then_cube_ownership_decides_who_is_prompted():
    h = match_with([(3, 1), (5, 2), (6, 5)])
    alice, bob = h.players["alice"], h.players["bob"]
    h.send("alice", OPENING_31)
    h.send("bob", "double")
    assert bob.events[-2] == YouDoubled(opponent="alice") and alice.of(DoubleOffered)
    assert alice.board.opponent_doubled and alice.board.is_our_turn and alice.board.double_pending
    assert bob.board.double_pending and not bob.board.is_our_turn
    assert (alice.board.player_may_double, alice.board.opponent_may_double) == (False, False)
    assert bob.board.position_for_side_on_roll() == bob.board.position_from_our_view()
    h.send("alice", "accept")
    assert DoubleAccepted(player="You", is_us=True, cube=2) in alice.events
    assert DoubleAccepted(player="alice", is_us=False, cube=2) in bob.events
    assert bob.events[-1] == PleaseMove(pieces=2) and last(bob, YouRoll) == YouRoll(d1=5, d2=2)
    assert bob.board.cube == 2 and not bob.board.player_may_double and bob.board.opponent_may_double
    h.send("bob", "move 13-8 13-11")
    assert alice.events[-1] == PleaseRollOrDouble()  # alice owns the cube
    h.send("alice", "roll")
    h.send("alice", "move 12-18 12-17")
    assert not bob.events[-4:].count(PleaseRollOrDouble())  # bob may not double: rolled for him
    assert isinstance(bob.events[-1], PleaseMove) and last(bob, YouRoll)


def test_double_dropped_scores_the_cube_and_waits_for_both_to_join():
    h = match_with([(3, 1), (4, 2)])
    alice, bob = h.players["alice"], h.players["bob"]
    h.send("alice", OPENING_31)
    h.send("bob", "double")
    h.send("alice", "reject")
    assert DoubleRejected(player="You", is_us=True, winner="bob", points=1) in alice.events
    assert DoubleRejected(player="alice", is_us=False, winner="You", points=1) in bob.events
    assert last(alice, ScoreLine) == ScoreLine(length=3, players=("alice", "bob"), scores=(0, 1))
    assert last(bob, ScoreLine) == ScoreLine(length=3, players=("bob", "alice"), scores=(1, 0))
    assert alice.events[-1] == JoinNextGamePrompt() and alice.board.turn == 0
    h.send("bob", "join")
    assert bob.events[-1] == Notice(text="Please wait for alice to join too.")
    h.send("alice", "join")
    assert NewGame(opponent="bob") in alice.events[-8:] and alice.board.cube == 1
    assert alice.board.opponent_score == 1 and bob.board.player_score == 1


@pytest.mark.parametrize("word, points", [("n", 2), ("g", 4), ("b", 6)])
def test_resignations_score_level_times_cube(word, points):
    h = match_with([(3, 1), (4, 2)], length=9)
    alice, bob = h.players["alice"], h.players["bob"]
    h.send("alice", OPENING_31)
    h.send("bob", "double")
    h.send("alice", "accept")
    h.send("alice", f"resign {word}")
    assert ResignOffered(player="alice", is_us=False, points=points) in bob.events
    h.send("bob", "reject")
    assert bob.events[-1] == ResignRejected(player="You", is_us=True)
    assert alice.events[-1] == ResignRejected(player="bob", is_us=False)
    h.send("alice", f"resign {word}")
    h.send("bob", "accept")
    assert ResignAccepted(player="You", is_us=True, points=points) in bob.events
    assert ResignAccepted(player="bob", is_us=False, points=points) in alice.events
    assert h.core.match_of("bob").scores == [0, points]


@pytest.mark.parametrize(
    "bob_row, points",
    [
        ({13: 10, 7: 5}, 2),  # none off, none in alice's home: gammon
        ({20: 1, 13: 14}, 3),  # one in alice's home board (bob's 19..24): backgammon
        ({25: 1, 13: 14}, 3),  # one on the bar: backgammon
        ({13: 13}, 1),  # two off: single game
    ],
)
def test_bearing_off_the_last_checker_scores_gammons_by_the_cube(bob_row, points):
    h = match_with([(3, 1), (2, 1)], length="unlimited")
    h.send("alice", OPENING_31)
    match = h.core.match_of("alice")
    match.cube, match.cube_owner = 2, 0
    place(h, {1: 1}, bob_row, turn=0)
    h.send("alice", "roll")
    h.send("alice", "move 24-off")
    alice, bob = h.players["alice"], h.players["bob"]
    assert GameEnd(winner="You", we_won=True, points=2 * points) in alice.events
    assert GameEnd(winner="alice", we_won=False, points=2 * points) in bob.events
    assert last(bob, OpponentMoves).move == "24-off"
    assert alice.board.turn == 0 and alice.board.player_off == 15
    assert last(alice, ScoreLine) == ScoreLine(length=None, players=("alice", "bob"), scores=(2 * points, 0))


def play_to_resignation(h: Harness, resigner: str, word: str = "n") -> None:
    other = "bob" if resigner == "alice" else "alice"
    h.send(resigner, f"resign {word}")
    h.send(other, "accept")


def test_crawford_game_then_post_crawford_doubling():
    h = match_with([(3, 1), (5, 2), (4, 1), (6, 3), (2, 1)])
    alice, bob = h.players["alice"], h.players["bob"]
    play_to_resignation(h, "bob", "g")  # alice 2-0: 1-away
    h.send("alice", "join")
    h.send("bob", "join")
    assert alice.board.is_crawford_game and bob.board.is_crawford_game
    assert (alice.board.player_may_double, alice.board.opponent_may_double) == (True, True)  # as FIBS
    mover = "alice" if alice.board.is_our_turn else "bob"
    waiter = "bob" if mover == "alice" else "alice"
    h.send(mover, "move " + _first(h, mover))
    assert isinstance(h.players[waiter].events[-1], PleaseMove)  # rolled for, no prompt
    assert PleaseRollOrDouble() not in h.players[waiter].events[-6:]
    h.send(waiter, "double")  # too late anyway: the server has rolled
    assert h.players[waiter].events[-1] == ServerError(message="You already rolled. Please move.")
    play_to_resignation(h, "alice")  # 2-1, post-Crawford
    h.send("alice", "join")
    h.send("bob", "join")
    assert alice.board.post_crawford and not alice.board.is_crawford_game
    mover = "alice" if alice.board.is_our_turn else "bob"
    waiter = "bob" if mover == "alice" else "alice"
    h.send(mover, "move " + _first(h, mover))
    assert h.players[waiter].events[-1] == PleaseRollOrDouble()
    h.send(waiter, "double")
    assert h.players[waiter].board.double_pending


def test_no_doubling_in_the_crawford_game():
    h = match_with([(3, 1)], length=1)
    h.send("alice", OPENING_31)
    bob = h.players["bob"]
    assert bob.board.is_crawford_game and isinstance(bob.events[-1], (PleaseMove, CantMove))
    match = h.core.match_of("bob")
    match.phase, match.turn, match.dice = Phase.ROLL, 1, None  # as if bob were asked (white box)
    h.send("bob", "double")
    assert bob.events[-1] == ServerError(message="This is the Crawford game. No doubling allowed.")


def _first(h: Harness, name: str) -> str:
    return first_move(h.players[name].board).removeprefix("move ")


def test_match_end_frees_both_players():
    h = match_with([(3, 1)], length=3)
    alice, bob = h.players["alice"], h.players["bob"]
    play_to_resignation(h, "bob", "b")
    assert MatchEnd(winner="You", we_won=True, length=3, scores=(3, 0)) in alice.events
    assert MatchEnd(winner="alice", we_won=False, length=3, scores=(3, 0)) in bob.events
    assert not alice.of(JoinNextGamePrompt)
    assert h.core.match_of("alice") is None and h.core.match_of("bob") is None
    assert h.core.accounts.get("alice").experience == 3
    assert bob.of(WhoInfo)[-1].opponent is None
    h.send("bob", "invite alice 1")
    assert alice.events[-2] == Invitation(player="bob", length=1, resume=False)


def test_unlimited_match_goes_on():
    h = match_with([(3, 1)], length="unlimited")
    alice = h.players["alice"]
    assert alice.board.match_length == 9999 and alice.board.is_unlimited
    for _ in range(3):
        play_to_resignation(h, "bob", "g")
        h.send("alice", "join")
        h.send("bob", "join")
    assert last(alice, ScoreLine) == ScoreLine(length=None, players=("alice", "bob"), scores=(6, 0))
    assert not alice.of(MatchEnd) and alice.board.player_score == 6


def test_double_toggle_off_means_the_server_rolls():
    h = match_with([(3, 1), (4, 2)])
    h.send("bob", "toggle double")
    h.send("alice", OPENING_31)
    bob = h.players["bob"]
    assert PleaseRollOrDouble() not in bob.events and bob.events[-1] == PleaseMove(pieces=2)
    assert last(bob, YouRoll) == YouRoll(d1=4, d2=2)


def test_automove_plays_the_only_possible_move():
    h = match_with([(3, 1), (2, 1), (6, 5)])
    h.send("alice", "toggle automove")
    h.send("alice", OPENING_31)
    place(h, {1: 15}, {13: 15}, turn=0)
    h.send("alice", "roll")
    alice, bob = h.players["alice"], h.players["bob"]
    assert last(alice, OnlyPossibleMove) == OnlyPossibleMove(move="24-off 24-off")
    assert not isinstance(alice.events[-1], PleaseMove) and alice.board.player_off == 2
    assert last(bob, OpponentMoves) == OpponentMoves(player="alice", move="24-off 24-off")
    assert bob.events[-1] == PleaseRollOrDouble()
    h.send("bob", "roll")  # bob keeps automove off: he is asked even with one result
    assert bob.events[-1] == PleaseMove(pieces=2)


def test_autoboard_off_sends_boards_only_on_request():
    h = match_with([(3, 1)])
    h.send("bob", "toggle autoboard")
    bob = h.players["bob"]
    count = len(bob.of(Board))
    h.send("alice", OPENING_31)
    assert len(bob.of(Board)) == count
    h.send("bob", "board")
    assert len(bob.of(Board)) == count + 1 and bob.board.we_must_roll_or_double


def test_boards_always_match_the_server_state():
    h = match_with([(3, 1), (5, 5), (6, 2)])
    h.send("alice", OPENING_31)
    h.send("bob", "roll")
    match = h.core.match_of("alice")
    for seat, name in enumerate(match.names):
        board = h.players[name].board
        assert board.to_line() == match.board_for(seat)
        assert np.array_equal(board.position_from_our_view().board, match.position(seat).board)
    assert h.players["bob"].board.can_move == 4
