"""Cubeful rollouts: the cube's value and owner through the game, money and match
results, the cube decision's branches on common dice, and the command line."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from engine.cube.met import CubeView, match_winning_chance
from engine.rollout.cubeful import (
    CubefulSettings,
    rollout_branches,
    rollout_cube_decision,
    rollout_cubeful_moves,
    rollout_cubeful_position,
)
from engine.rules.ids import MatchState, match_id
from engine.rules.position import Position, position_id

MONEY = MatchState(jacoby=False)
PRUNED = CubefulSettings(prune=8, seed=11)


@pytest.fixture(scope="module")
def agent():
    from nets.player import load_agent

    return load_agent("net:default", ply=0)


def _board(mine: dict[int, int], theirs: dict[int, int]) -> np.ndarray:
    """A board from {point index: checkers} of each side (index 24 the bar)."""
    board = np.zeros((2, 25), np.int8)
    for row, side in enumerate((mine, theirs)):
        for index, count in side.items():
            board[row, index] = count
    return board


# the side on roll bears its last checker off with any roll; the other side has borne off none
CERTAIN_GAMMON = _board({0: 1}, {5: 15})
# the side on roll bears both checkers off with any roll; the other side has borne off five
CERTAIN_SINGLE = _board({0: 2}, {5: 10})


def test_a_side_too_good_to_double_plays_on_and_wins_its_gammon(agent):
    result = rollout_cubeful_position(CERTAIN_GAMMON, MONEY, 36, PRUNED, agent=agent)
    assert result.equity == 2.0 and result.equity_stderr == 0.0
    assert (result.final_cubes == 1).all()


def test_with_jacoby_a_gammon_at_a_centred_cube_is_worth_a_cash(agent):
    jacoby = MatchState(jacoby=True)
    result = rollout_cubeful_position(CERTAIN_GAMMON, jacoby, 36, PRUNED, agent=agent, first_decides=True)
    assert result.equity == 1.0  # doubled out (gnubg's rule: playing on gains nothing)
    assert (result.final_cubes == 2).all()  # a dropped double shows as a turned cube


def test_a_won_race_without_gammons_is_doubled_out(agent):
    result = rollout_cubeful_position(CERTAIN_SINGLE, MONEY, 36, PRUNED, agent=agent, first_decides=True)
    assert result.equity == 1.0 and (result.final_cubes == 2).all()
    # gnubg's rollout of the position: no double before the first roll, the race played out
    kept = rollout_cubeful_position(CERTAIN_SINGLE, MONEY, 36, PRUNED, agent=agent)
    assert kept.equity == 1.0 and (kept.final_cubes == 1).all()


def test_an_owned_cube_counts_in_points_of_the_starting_cube(agent):
    owned = MatchState(cube=4, cube_owner=0, jacoby=False)
    result = rollout_cubeful_position(CERTAIN_GAMMON, owned, 36, PRUNED, agent=agent)
    assert result.equity == 2.0  # a gammon: 8 points, 2 of the starting 4-cube
    assert (result.values == 2.0).all()


def test_match_results_are_match_winning_chances_at_the_score(agent):
    state = MatchState(match_length=7, score=(2, 4), jacoby=False)  # on roll needs 5, the other 3
    result = rollout_cubeful_position(CERTAIN_GAMMON, state, 36, PRUNED, agent=agent)
    assert result.mwc == pytest.approx(match_winning_chance(3, 3))
    view = CubeView.of(state)
    expected = (2 * result.mwc - (view.mwc(0, 1, winner=0) + view.mwc(0, 1, winner=1))) / (
        view.mwc(0, 1, winner=0) - view.mwc(0, 1, winner=1)
    )
    assert result.equity == pytest.approx(expected)


def test_a_cube_that_wins_the_match_is_not_turned_by_the_leader_post_crawford(agent):
    # post-Crawford, the leader (1-away) may not double: it plays on and wins the match
    state = MatchState(match_length=7, score=(6, 3), jacoby=False)
    result = rollout_cubeful_position(CERTAIN_SINGLE, state, 36, PRUNED, agent=agent)
    assert result.mwc == 1.0 and (result.final_cubes == 1).all()


def test_rollouts_repeat_and_split_over_processes_exactly(agent):
    board = Position.initial().board
    one = rollout_cubeful_position(board, MONEY, 72, PRUNED, agent=agent)
    again = rollout_cubeful_position(board, MONEY, 72, PRUNED, agent=agent)
    assert np.array_equal(one.values, again.values)
    split = rollout_cubeful_position(board, MONEY, 72, CubefulSettings(prune=8, seed=11, workers=2))
    assert np.array_equal(one.values, split.values)


def test_variance_reduction_agrees_with_plain_games_and_is_tighter(agent):
    state = MatchState(match_length=5, score=(1, 2), jacoby=False)
    board = Position.initial().board
    plain = rollout_cubeful_position(board, state, 1296, CubefulSettings(prune=8, seed=5), agent=agent)
    reduced = rollout_cubeful_position(board, state, 108, CubefulSettings(prune=8, seed=5, varredn=True), agent=agent)
    # per game, the luck taken off leaves much less spread
    assert reduced.equity_stderr * math.sqrt(reduced.games) < plain.equity_stderr * math.sqrt(plain.games) / 2
    assert abs(plain.equity - reduced.equity) < 3 * math.hypot(plain.equity_stderr, reduced.equity_stderr)


def test_the_cube_decision_rolls_out_both_branches_on_the_same_dice(agent):
    # a money race the side on roll leads by about 15%: a double, then the question is the take
    board = _board({5: 4, 4: 3, 3: 3, 2: 3, 1: 2}, {5: 5, 4: 4, 3: 3, 2: 2, 10: 1})
    answer = rollout_cube_decision(board, MONEY, 144, PRUNED, agent=agent)
    assert set(answer["equities"]) == {"no_double", "double_take", "double_drop"}
    assert answer["equities"]["double_drop"] == 1.0
    assert answer["action"] in ("no double", "double, take", "double, drop", "too good")
    # common dice: the difference of the branches is known better than either branch
    assert answer["stderr"]["double_take_minus_no_double"] < answer["stderr"]["double_take"]


def test_no_double_branch_keeps_the_cube_before_the_first_roll(agent):
    # the certain single: doubled out when free to double, played out and won when not
    free, kept = rollout_branches(
        [(CERTAIN_SINGLE, CubeView((0, 0)), True), (CERTAIN_SINGLE, CubeView((0, 0)), False)], 36, PRUNED, agent
    )
    assert (free.final_cubes == 2).all() and (kept.final_cubes == 1).all()
    assert free.equity == kept.equity == 1.0


def test_candidate_moves_are_ranked_by_their_rolled_out_cubeful_equity(agent):
    state = MatchState(match_length=7, score=(3, 5), jacoby=False)
    rows = rollout_cubeful_moves(Position.initial().board, state, 6, 5, 72, PRUNED, candidates=3, agent=agent)
    assert len(rows) == 3 and rows[0]["diff"] == 0.0
    assert [r["equity"] for r in rows] == sorted((r["equity"] for r in rows), reverse=True)
    assert all(r["diff_stderr"] >= 0 for r in rows)


def test_the_command_rolls_out_a_cube_decision_at_the_score(capsys):
    from fibsbot.cli import main

    state = MatchState(match_length=7, score=(2, 3), jacoby=False)
    pid, mid = position_id(Position.initial().board), match_id(state)
    assert main(["rollout", "--position-id", pid, "--match-id", mid, "--games", "36", "--prune", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert set(answer["equities"]) == {"no_double", "double_take", "double_drop"}
    assert set(answer["stderr"]) >= {"no_double", "double_take"}
    assert answer["unit"] == "EMG" and answer["games"] == 36
    # the action is the one its equities give (36 games decide nothing about the opening position)
    from engine.rollout.cubeful import _action

    assert answer["action"] == _action(*answer["equities"].values())


def test_the_command_ranks_moves_cubefully_in_money_play(capsys):
    from fibsbot.cli import main

    pid = position_id(Position.initial().board)
    args = ["rollout", "--position-id", pid, "--cubeful", "--dice", "3", "1", "--games", "36"]
    assert main([*args, "--candidates", "2", "--prune"]) == 0
    text = capsys.readouterr().out
    assert "Cubeful rollout, money play (no Jacoby, no beavers)" in text and "8/5 6/5" in text


def test_the_command_names_an_unknown_net_in_one_line(capsys):
    from fibsbot.cli import main

    pid = position_id(Position.initial().board)
    assert main(["rollout", "--position-id", pid, "--net", "nosuch", "--games", "36"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nosuch" in err[0]
