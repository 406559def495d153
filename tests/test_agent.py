"""The Agent facade: decisions from our own side of the board, any score."""

from __future__ import annotations

import numpy as np
import pytest

from engine.players.agent import MONEY_WEIGHTS, Agent, gammon_weights
from engine.rules.ids import MatchState
from engine.rules.position import Position
from nets.player import load_agent


@pytest.fixture(scope="module")
def agent() -> Agent:
    return load_agent("net:default@0")


def race(ours_pips_checkers: list[int], theirs: list[int]) -> np.ndarray:
    board = np.zeros((2, 25), np.int8)
    board[0, :6] = ours_pips_checkers
    board[1, :6] = theirs
    return board


def test_opening_is_no_double_and_a_take(agent):
    board = Position.initial().board
    money = MatchState(jacoby=False)
    assert agent.double_decision(board, money).double is False
    assert agent.take_decision(board, money).take is True


def test_a_crushing_race_is_doubled_and_dropped(agent):
    board = race([2, 2, 0, 0, 0, 0], [0, 0, 3, 3, 3, 3])  # we need 2 rolls, they need 6+
    money = MatchState(jacoby=False)
    choice = agent.double_decision(board, money)
    assert choice.double and choice.action == "double, drop"
    # the same race seen by the opponent who is doubled: a drop
    assert agent.take_decision(board[::-1].copy(), money).take is False


def test_no_doubling_in_the_crawford_game_or_without_access(agent):
    board = race([2, 2, 0, 0, 0, 0], [0, 0, 3, 3, 3, 3])
    crawford = MatchState(match_length=5, score=(2, 4), crawford=True)
    assert agent.double_decision(board, crawford).double is False
    they_own = MatchState(jacoby=False, cube=2, cube_owner=1)
    assert agent.double_decision(board, they_own).double is False


def test_hopeless_race_is_resigned_and_a_fair_offer_accepted(agent):
    board = race([0, 0, 0, 0, 0, 15], [1, 0, 0, 0, 0, 0])  # they bear off now; we have none off
    money = MatchState(jacoby=False)
    level = agent.resignation_offer(board, money, we_are_on_roll=False)
    assert level == 2  # a gammon, which we cannot save
    winner = board[::-1].copy()
    assert agent.accept_resignation(winner, money, 2, we_are_on_roll=True)
    assert not agent.accept_resignation(winner, money, 1, we_are_on_roll=True)


def test_gammon_weights_follow_the_score():
    assert gammon_weights(None) == MONEY_WEIGHTS
    dmp = gammon_weights(MatchState(match_length=5, score=(4, 4)))
    assert dmp == (0.0, 0.0, 0.0, 0.0)  # double match point: a gammon is just a win
    crawford = gammon_weights(MatchState(match_length=5, score=(0, 4), crawford=True))
    assert crawford[2] == crawford[3] == 0.0  # they are 1-away: any loss ends the match
    assert crawford[0] > 0.0


def test_choose_move_in_a_match_uses_legal_moves(agent):
    board = Position.initial().board
    choice = agent.choose_move(board, 6, 5, MatchState(match_length=3, score=(0, 2)))
    assert choice.steps and choice.board[0].sum() == 15 and choice.ply == 0
