"""Whole matches through the core, played by clients that see only the parsed events.

Random but seeded players roll, double, take, drop, resign, make illegal moves,
leave and resume; after every command the boards each side was sent must equal the
server's own state, every line must parse, and the points announced must add up to
the final score.
"""

from __future__ import annotations

import random

import pytest

from fibsbot.protocol.parser import (
    Board,
    CantMove,
    DoubleRejected,
    GameEnd,
    MatchEnd,
    MatchResumed,
    NewGame,
    PleaseRollOrDouble,
    ResignAccepted,
    ScoreLine,
    ServerError,
    Unknown,
)
from tests.server_harness import Harness, pending_action, random_move

NAMES = ("alice", "bob")


def points_won(events) -> int:
    total = 0
    for event in events:
        if isinstance(event, GameEnd) and event.we_won:
            total += event.points
        elif isinstance(event, DoubleRejected) and not event.is_us:
            total += event.points
        elif isinstance(event, ResignAccepted) and event.is_us:
            total += event.points
    return total


class Referee:
    """Checks each new batch of events against the server."""

    def __init__(self, h: Harness) -> None:
        self.h = h
        self.boards = {name: None for name in NAMES}

    def check(self, new: dict[str, list]) -> None:
        for name, events in new.items():
            for event in events:
                assert not isinstance(event, Unknown), event
                if isinstance(event, Board):
                    self.boards[name] = event.board
                elif isinstance(event, PleaseRollOrDouble):
                    board = self.boards[name]
                    assert board.we_must_roll_or_double and board.player_may_double
                    assert not board.is_crawford_game
        match = self.h.core.match_of("alice")
        if match is not None:
            for seat, name in enumerate(match.names):
                assert self.h.players[name].board.to_line() == match.board_for(seat)


def play(seed: int, length: int | str, *, games_cap: int = 4, interrupt_every: int = 0, cube: bool = True) -> Harness:
    rng = random.Random(seed)
    h = Harness(seed=seed)
    h.login("alice")
    if seed % 2:  # forced moves played by the server for one of them
        h.send("alice", "toggle automove")
    h.start_match("alice", "bob", length)
    referee = Referee(h)
    steps = 0
    while True:
        steps += 1
        assert steps < 20_000, "the match does not end"
        alice = h.players["alice"]
        if alice.of(MatchEnd) or len(alice.of(NewGame)) > games_cap:
            return h
        if interrupt_every and steps % interrupt_every == 0:
            leaver = rng.choice(NAMES)
            other = NAMES[1 - NAMES.index(leaver)]
            referee.check(h.drop(leaver) if rng.random() < 0.5 else h.send(leaver, "leave"))
            if h.players[leaver].closed:
                h.login(leaver)
            referee.check(h.send(leaver, f"invite {other}"))
            referee.check(h.send(other, f"join {leaver}"))
            assert h.players[other].of(MatchResumed)
            continue
        actors = [(name, action) for name in NAMES if (action := pending_action(h.players[name]))]
        assert actors, "nobody has anything to do"
        name, action = rng.choice(actors)
        referee.check(act(h, name, action, rng, cube))


def act(h: Harness, name: str, action: str, rng: random.Random, cube: bool) -> dict:
    player = h.players[name]
    board = player.board
    if action == "answer_resign":
        player.resign_offer = None
        return h.send(name, rng.choice(["accept", "reject"]))
    if action == "join":
        player.join_prompt = False
        return h.send(name, "join")
    if action == "answer_double":
        return h.send(name, "accept" if rng.random() < 0.7 else "reject")
    if cube and rng.random() < 0.01:
        return h.send(name, f"resign {rng.choice('ngb')}")
    if action == "roll_or_double":
        return h.send(name, "double" if cube and rng.random() < 0.15 else "roll")
    if rng.random() < 0.05:  # a wrong move first: refused, nothing changes
        before = board.to_line()
        new = h.send(name, "move 1-7 13-19")
        if isinstance(new[name][-1], ServerError):
            assert h.players[name].board.to_line() == before
            return new
    return h.send(name, random_move(board, rng))


@pytest.mark.parametrize("seed, length", [(1, 1), (2, 3), (3, 5), (4, 7), (5, 3), (6, 5)])
def test_random_matches_end_with_the_announced_points(seed, length):
    h = play(seed, length)
    alice, bob = h.players["alice"], h.players["bob"]
    end = alice.of(MatchEnd)[-1]
    won = {"alice": points_won(alice.events), "bob": points_won(bob.events)}
    winner = "alice" if end.we_won else "bob"
    loser = "bob" if winner == "alice" else "alice"
    assert end.scores == (won[winner], won[loser]) and won[winner] >= length > won[loser]
    assert bob.of(MatchEnd)[-1].we_won is not end.we_won
    assert not alice.unknown() and not bob.unknown()


@pytest.mark.parametrize("seed", [31, 32])
def test_random_games_played_to_the_last_checker(seed):
    h = play(seed, 3, cube=False)
    alice, bob = h.players["alice"], h.players["bob"]
    ends = alice.of(GameEnd)
    assert ends and len(ends) == len(alice.of(NewGame))  # every game borne off to the end
    assert alice.of(MatchEnd)[-1].scores == tuple(
        sorted((points_won(alice.events), points_won(bob.events)), reverse=True)
    )
    assert alice.of(CantMove) or bob.of(CantMove)


def test_random_unlimited_session():
    h = play(11, "unlimited", games_cap=3)
    alice, bob = h.players["alice"], h.players["bob"]
    score = alice.of(ScoreLine)[-1]
    assert score.length is None and score.scores == (points_won(alice.events), points_won(bob.events))


@pytest.mark.parametrize("seed", [21, 22])
def test_random_matches_survive_leaving_and_resuming(seed):
    h = play(seed, 5, interrupt_every=15)
    alice, bob = h.players["alice"], h.players["bob"]
    assert alice.of(MatchEnd) and bob.of(MatchEnd)
    assert alice.of(MatchResumed) or bob.of(MatchResumed)
