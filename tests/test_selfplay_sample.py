"""The self-play position sampler is reproducible and labels positions correctly."""

from __future__ import annotations

import numpy as np
import pytest

from engine.players.registry import PubevalPlayer
from engine.rollout.game import play_game
from engine.rollout.selfplay_sample import (
    BAR_ENTRY,
    BEAR_OFF,
    BLOCKED_ENTRY,
    CONTACT,
    NO_MOVE,
    RACE,
    game_positions,
    make_chooser,
    position_after,
    position_kinds,
    sample_positions,
)
from engine.rules.dice import game_seed
from engine.rules.position import Position
from tests.board_builder import make_board, opponent_holds


def test_samples_are_reproducible_from_the_seed():
    first = list(sample_positions(500, seed=4))
    again = list(sample_positions(500, seed=4))
    other = list(sample_positions(500, seed=5))
    assert len(first) == 500
    assert all(np.array_equal(a.board, b.board) and a.dice == b.dice for a, b in zip(first, again))
    assert not all(np.array_equal(a.board, b.board) for a, b in zip(first, other))
    assert {s.player for s in first} == {"random", "pubeval"}
    assert Position(first[0].board) == Position.initial()


def test_a_sample_names_where_it_came_from():
    sample = next(iter(sample_positions(1, seed=4)))
    assert "4HPwATDgc/ABMA" in sample.describe() and "turn 0" in sample.describe()


def test_position_after_replays_the_game():
    seed = int(game_seed(1, 3))
    boards = [board for board, *_ in game_positions("pubeval", seed)]
    assert np.array_equal(position_after("pubeval", seed, 10), boards[10])
    # past the end of the game: the last position before the winning move
    assert np.array_equal(position_after("pubeval", seed, 10_000), boards[-1])


def test_pubeval_self_play_is_the_game_runner_game():
    seed = int(game_seed(7, 0))
    turns = sum(1 for _ in game_positions("pubeval", seed))
    assert play_game(PubevalPlayer(), PubevalPlayer(), seed)[2] == turns


def test_unknown_player_is_refused():
    with pytest.raises(ValueError):
        make_chooser("gnubg")


def test_kinds():
    assert position_kinds(Position.initial().board, no_move=False) == (CONTACT,)
    closed = make_board({25: 1, 6: 2}, opponent_holds(19, 20, 21, 22, 23, 24))
    assert set(position_kinds(closed, no_move=True)) == {CONTACT, BAR_ENTRY, NO_MOVE, BLOCKED_ENTRY}
    bear_off = make_board({6: 2, 1: 3}, {3: 4})
    assert set(position_kinds(bear_off, no_move=False)) == {RACE, BEAR_OFF}
