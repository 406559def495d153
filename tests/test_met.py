"""engine.cube.met: the Kazaross-XG2 table, game results, gammon values, take and cash points.

Take points are checked against hand calculations from the raw table entries.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.cube.met import (
    MET_PATH,
    CubeView,
    MetError,
    cash_point,
    cubeless_mwc,
    equity_to_mwc,
    gammon_values,
    live_cash_points,
    load_met,
    match_winning_chance,
    mwc_after_game,
    mwc_after_result,
    mwc_to_equity,
    take_point,
)
from engine.rules.ids import MatchState

RAW = json.loads(MET_PATH.read_text())
PRE = RAW["pre_crawford"]["table"]  # PRE[i][j]: needing i+1 against j+1
POST = RAW["post_crawford"]["table"]  # POST[j]: trailer needing j+1 against 1-away
GAMMONLESS = (0.5, 0.0, 0.0, 0.0, 0.0)


def match(away_roller: int, away_other: int, **kwargs) -> MatchState:
    """A state with player 0 on roll needing ``away_roller`` points."""
    length = max(away_roller, away_other) + 3
    return MatchState(match_length=length, score=(length - away_roller, length - away_other), on_roll=0, **kwargs)


def test_double_match_point_is_even_and_the_table_is_the_native_one():
    assert match_winning_chance(1, 1) == 0.5
    assert match_winning_chance(1, 1, post_crawford=True) == 0.5
    assert match_winning_chance(2, 4) == PRE[1][3] == 0.6687
    assert match_winning_chance(1, 2, post_crawford=True) == pytest.approx(1 - POST[1])
    assert match_winning_chance(3, 1, post_crawford=True) == POST[2]
    assert load_met().name.startswith("Kazaross")


@given(st.integers(1, 40), st.integers(1, 40), st.booleans())
def test_the_table_is_symmetric_and_monotone(a, b, post):
    # beyond 25-away gnubg's extension cuts the normal tail at 6 sigma: 2e-9 off
    assert match_winning_chance(a, b, post_crawford=post) + match_winning_chance(
        b, a, post_crawford=post
    ) == pytest.approx(1.0, abs=1e-8)
    assert match_winning_chance(a, b + 1) >= match_winning_chance(a, b) - 1e-12
    assert match_winning_chance(a + 1, b) <= match_winning_chance(a, b) + 1e-12


def test_long_matches_extend_smoothly_and_won_matches_are_certain():
    assert 0.5 < match_winning_chance(30, 40) < 0.9
    assert match_winning_chance(99, 99) == pytest.approx(0.5, abs=1e-6)
    assert match_winning_chance(0, 3) == 1.0 and match_winning_chance(3, -1) == 0.0
    with pytest.raises(MetError):
        match_winning_chance(0, 0)


def test_game_results_follow_gnubg_crawford_rules():
    # reaching 1-away before the Crawford game: the Crawford game comes next
    assert mwc_after_game(3, 4, 2, won=True) == PRE[0][3]
    # already 1-away: the next game is post-Crawford
    assert mwc_after_game(1, 4, 1, won=False) == pytest.approx(1 - POST[2])
    assert mwc_after_game(3, 1, 2, won=True, crawford=True) == 0.5
    assert mwc_after_game(2, 5, 4, won=True) == 1.0 and mwc_after_game(2, 5, 8, won=False) == 0.0


def test_results_of_this_game_count_the_cube():
    state = MatchState(match_length=7, score=(2, 5), on_roll=1, cube=2, cube_owner=0)  # 5-away vs 2-away
    assert mwc_after_result(state, 0, 1, won=True) == PRE[2][1]
    assert mwc_after_result(state, 0, 2, won=True) == PRE[0][1]  # 1-away: the Crawford game next
    assert mwc_after_result(state, 0, 3, won=True) == 1.0
    assert mwc_after_result(state, 1, 1, won=True) == 1.0
    assert mwc_after_result(state, 1, 1, won=False) == pytest.approx(1 - PRE[2][1])
    with pytest.raises(MetError):
        mwc_after_result(state, 0, 4, won=True)


def test_views_of_a_state_see_the_aways_and_the_cube_from_each_side():
    state = MatchState(match_length=7, score=(2, 5), on_roll=1, cube=2, cube_owner=1)
    assert CubeView.of(state) == CubeView((2, 5), 2, 0)
    assert CubeView.of(state, 0) == CubeView((5, 2), 2, 1)
    assert CubeView.of(MatchState()).money and CubeView.of(MatchState()).jacoby
    with pytest.raises(MetError):
        CubeView.of(MatchState(match_length=5, score=(5, 1)))


def test_equity_and_mwc_convert_both_ways_with_the_cube_as_unit():
    view = CubeView.of(match(4, 3))
    assert mwc_to_equity(view.mwc(0, 1, winner=0), view) == pytest.approx(1.0)
    assert mwc_to_equity(view.mwc(0, 1, winner=1), view) == pytest.approx(-1.0)
    assert equity_to_mwc(mwc_to_equity(0.437, view), view) == pytest.approx(0.437)
    # a game played out: half singles each way
    assert cubeless_mwc(GAMMONLESS, view) == pytest.approx(0.5 * (PRE[2][2] + PRE[3][1]))


def test_gammon_values_are_gnubg_gammon_prices():
    money = CubeView.of(MatchState(jacoby=False))
    assert gammon_values(money) == (1.0, 1.0, 1.0, 1.0)
    assert gammon_values(CubeView.of(MatchState(jacoby=True))) == (0.0, 0.0, 0.0, 0.0)
    view = CubeView.of(match(4, 4))
    win, lose = PRE[2][3], PRE[3][2]
    assert gammon_values(view)[0] == pytest.approx(2 * (PRE[1][3] - win) / (win - lose))
    assert gammon_values(view)[1] == pytest.approx(2 * (lose - PRE[3][1]) / (win - lose))
    # post-Crawford, the leader's gammon is worth nothing: any win ends the match
    leader = CubeView.of(match(1, 4))
    assert gammon_values(leader)[0] == 0.0 and gammon_values(leader)[2] == 0.0


def test_money_take_points_are_janowskis():
    state = MatchState(jacoby=False)
    assert take_point(state) == pytest.approx(0.25)
    assert take_point(state, live=True) == pytest.approx(0.2)
    # the doubler wins 20% of its games as gammons, loses 10% of its losses as gammons
    probs = (0.7, 0.14, 0.0, 0.03, 0.0)
    taker_win, taker_loss = 1.1, 1.2
    assert take_point(state, probs) == pytest.approx((taker_loss - 0.5) / (taker_win + taker_loss))
    assert take_point(state, probs, live=True) == pytest.approx((taker_loss - 0.5) / (taker_win + taker_loss + 0.5))
    assert cash_point(state, probs) == pytest.approx(1 - take_point(state, probs))


def test_trailer_doubling_at_4_away_2_away_dead_equals_live():
    # the 4-away trailer doubles the 2-away leader, who would own a dead 2-cube
    state = match(4, 2)
    drop, take_lose, take_win = PRE[1][2], PRE[1][1], 1.0
    expected = (drop - take_lose) / (take_win - take_lose)
    assert take_point(state) == pytest.approx(expected)
    assert take_point(state, live=True) == pytest.approx(expected)


def test_leader_doubling_at_2_away_4_away_meets_an_automatic_redouble():
    state = match(2, 4)
    drop, take_win = PRE[3][0], PRE[1][1]
    assert take_point(state) == pytest.approx(drop / take_win)  # the 2-cube never turned
    # live: the trailer takes and redoubles at once, the game is for the match
    assert take_point(state, live=True) == pytest.approx(drop)


def test_double_match_point_take_point_is_zero():
    assert take_point(match(1, 1)) == 0.0


def test_post_crawford_free_drop_take_points():
    # 2-away trailer doubles the 1-away leader: dropping leaves double match point
    assert take_point(match(2, 1)) == pytest.approx(0.5)
    # 3-away trailer: dropping leaves the trailer 2-away post-Crawford
    assert take_point(match(3, 1)) == pytest.approx((1 - POST[1] - 0.5) / 0.5)
    # trailer's gammons win the match too: the leader's take point rises with them
    gammonish = (0.5, 0.2, 0.0, 0.0, 0.0)
    assert take_point(match(3, 1), gammonish) > take_point(match(3, 1))


def test_live_cash_points_lie_between_the_dead_ones_and_certainty():
    for away in ((5, 5), (7, 4), (4, 7), (9, 9)):
        view = CubeView.of(match(*away))
        mine, theirs = live_cash_points(view, (0.5, 0.1, 0.005, 0.1, 0.005))
        assert cash_point(match(*away), (0.5, 0.1, 0.005, 0.1, 0.005)) <= mine + 1e-9 < 1.0
        assert 0.5 < theirs < 1.0
