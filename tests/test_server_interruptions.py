"""The local server produces the lines of the real server the bot met: a match end lost to
a logout, a refused ``board``, the ``show saved`` listing; and it keeps its own record."""

from __future__ import annotations

from fibsbot.protocol.parser import GameEnd, MatchEnd, NoSavedMatches, SavedMatch, SavedMatchesHeader, ServerError
from fibsbot.server.dice import ScriptedDice, SeededDice
from tests.server_harness import Harness, first_move


def test_unknown_commands_are_refused_as_that_server_does():
    h = Harness(unknown_commands=frozenset({"board"}))
    h.start_match("alice", "bob", 3)
    events = h.send("alice", "board")["alice"]
    assert events == [ServerError(message="Unknown command: 'board'")]


def test_show_saved_lists_the_saved_matches_with_who_is_online():
    h = Harness()
    h.start_match("alice", "bob", 5)
    h.login("carol")
    assert h.send("carol", "show saved")["carol"] == [NoSavedMatches()]
    h.send("bob", "leave")
    events = h.send("alice", "show saved")["alice"]
    assert events == [
        SavedMatchesHeader(),
        SavedMatch(opponent="bob", length=5, scores=(0, 0), online=True, ready=True),
    ]
    h.send("bob", "bye")
    (row,) = [e for e in h.send("alice", "show saved")["alice"] if isinstance(e, SavedMatch)]
    assert not row.online


def play_to_the_end(h: Harness, names: tuple[str, str]) -> list[dict]:
    """Both players play first legal moves and take every double until the match is over."""
    match = h.core.match_of(names[0])
    for _ in range(5000):
        if match.is_over:
            return match.history
        seat = match.acting_seat
        name = match.names[seat]
        board = h.players[name].board
        if board is not None and board.we_must_move:
            h.send(name, first_move(board))
        elif match.phase.value == "roll":
            h.send(name, "roll")
        elif match.phase.value == "between":
            h.send(match.names[0], "join")
            h.send(match.names[1], "join")
        else:
            h.send(name, "accept")
    raise AssertionError("the match did not end")


def test_a_winner_who_logs_out_at_once_takes_the_match_end_line_along():
    h = Harness(dice=ScriptedDice([], fallback=SeededDice(4)), match_end_delay=0.3)
    h.start_match("alice", "bob", 1)
    history = play_to_the_end(h, ("alice", "bob"))
    winner = h.core.finished[-1].names[history[-1]["winner"]]
    loser = "bob" if winner == "alice" else "alice"
    assert h.players[loser].of(GameEnd) and not h.players[loser].of(MatchEnd)
    h.send(winner, "bye")
    h.advance(1.0)
    assert not h.players[loser].of(MatchEnd)  # never sent: the line the bot waited for in vain


def test_the_match_end_line_follows_after_the_delay_when_both_stay():
    h = Harness(dice=ScriptedDice([], fallback=SeededDice(4)), match_end_delay=0.3)
    h.start_match("alice", "bob", 1)
    play_to_the_end(h, ("alice", "bob"))
    h.advance(1.0)
    assert h.players["alice"].of(MatchEnd) and h.players["bob"].of(MatchEnd)


def test_the_server_records_every_roll_and_move():
    h = Harness(dice=ScriptedDice([], fallback=SeededDice(9)))
    h.start_match("alice", "bob", 3)
    history = play_to_the_end(h, ("alice", "bob"))
    match = h.core.finished[-1]
    assert sum(g["points"] for g in history if g["winner"] is not None) >= 3
    for game in history:
        moves = [a for a in game["actions"] if a[0] == "move"]
        assert moves and all(len(a[2]) == 2 and all(1 <= d <= 6 for d in a[2]) for a in moves)
    assert [g["score"] for g in history][0] == (0, 0) and match.is_over
