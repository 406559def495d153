"""engine.cube.decision: Janowski cubeful equities and gnubg's cube actions, money and match.

Hand calculations use gammonless races, where Janowski's live cube has its take
point at 20% and cash point at 80%; cubeful = (1 - x) dead + x live.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine.cube.decision import (
    CONTACT_CUBE_LIFE,
    DOUBLE_DROP,
    DOUBLE_TAKE,
    NO_DOUBLE,
    TOO_GOOD,
    CubeError,
    cube_decision,
    cube_life,
    invert_probabilities,
    may_double,
    should_take,
)
from engine.cube.met import match_winning_chance
from engine.rules.ids import CENTRED, MatchState
from engine.rules.position import Position

MONEY = MatchState(jacoby=False)


def race(p: float) -> tuple[float, ...]:
    return (p, 0.0, 0.0, 0.0, 0.0)


def match(away_roller: int, away_other: int, **kwargs) -> MatchState:
    """Player 0 on roll needing ``away_roller`` points."""
    length = max(away_roller, away_other) + 3
    return MatchState(match_length=length, score=(length - away_roller, length - away_other), on_roll=0, **kwargs)


def test_gammonless_money_equities_by_hand():
    x, p = 0.6, 0.70
    dead = 2 * p - 1
    no_double = (1 - x) * dead + x * (-1 + 2 * (p - 0.2) / 0.6)  # centred: -1 at 20%, +1 at 80%
    double_take = 2 * ((1 - x) * dead + x * (-1 + 2 * (p - 0.2) / 0.8))  # theirs: -1 at 20%, +1 at 100%
    decision = cube_decision(race(p), MONEY, cube_life=x)
    assert decision.equities == pytest.approx({"no_double": no_double, "double_take": double_take, "double_drop": 1.0})
    assert decision.action == DOUBLE_TAKE and decision.double and decision.take and decision.may_double


@pytest.mark.parametrize(
    "p, action",
    [
        (0.60, NO_DOUBLE),
        (0.66, NO_DOUBLE),
        (0.67, DOUBLE_TAKE),
        (0.78, DOUBLE_TAKE),
        (0.79, DOUBLE_DROP),
        (0.95, DOUBLE_DROP),
    ],
)
def test_gammonless_race_doubles_from_two_thirds_and_drops_past_78_percent(p, action):
    # with race cube life 0.6 the window is 2/3 .. 0.7826 (solved by hand from the formulas)
    decision = cube_decision(race(p), MONEY, race=True)
    assert decision.action == action
    assert decision.take == (p < 0.7826)


def test_dead_cube_take_point_is_25_percent():
    assert should_take(race(0.749), MONEY, cube_life=0.0)
    assert not should_take(race(0.751), MONEY, cube_life=0.0)


def test_gammonish_position_is_too_good_without_jacoby_and_a_cash_with_it():
    blitz = (0.85, 0.60, 0.05, 0.02, 0.0)
    decision = cube_decision(blitz, MONEY)
    assert decision.action == TOO_GOOD and not decision.double and not decision.take
    assert decision.equities["no_double"] > 1.0
    # with the Jacoby rule gammons only count once the cube is turned: cash it
    jacoby = cube_decision(blitz, MatchState(jacoby=True))
    assert jacoby.action == DOUBLE_DROP and jacoby.double


def test_too_good_needs_gammon_chances():
    # a certain single win is never "too good": double and they pass
    assert cube_decision(race(0.99), MONEY).action == DOUBLE_DROP


def test_gammons_raise_the_cubeful_equity_and_lower_the_take():
    plain = cube_decision(race(0.72), MONEY)
    gammonish = cube_decision((0.72, 0.25, 0.01, 0.0, 0.0), MONEY)
    assert gammonish.equities["no_double"] > plain.equities["no_double"]
    assert plain.take and not gammonish.take


def test_the_cube_owner_redoubles_and_the_other_side_cannot():
    owned = MatchState(cube=2, cube_owner=0, on_roll=0, jacoby=False)
    theirs = MatchState(cube=2, cube_owner=1, on_roll=0, jacoby=False)
    assert may_double(owned) and not may_double(theirs)
    assert cube_decision(race(0.75), owned).action == DOUBLE_TAKE
    blocked = cube_decision(race(0.95), theirs)
    assert blocked.action == NO_DOUBLE and not blocked.may_double and not blocked.double
    # owning the cube is worth more than having it centred
    centred = cube_decision(race(0.6), MONEY).equities["no_double"]
    assert cube_decision(race(0.6), owned).equities["no_double"] > centred


def test_a_double_that_leaves_the_taker_ahead_is_beavered_where_allowed():
    beavers = MatchState(jacoby=False, beavers=True)
    decision = cube_decision(race(0.45), beavers)
    assert decision.equities["double_take"] < 0
    assert decision.beaver and decision.take and decision.action == NO_DOUBLE
    assert not cube_decision(race(0.45), MONEY).beaver
    assert not cube_decision(race(0.75), beavers).beaver


def test_gnubg_figures_for_the_opening_position():
    # gnubg 1.07 `hint` at 0-ply ("set output digits 6") printed these probabilities
    # and cubeful equities for the initial position before a roll
    probs = (0.521514, 0.153921, 0.007563, 0.129847, 0.007546)
    money = cube_decision(probs, MatchState(jacoby=True))
    assert money.equities["no_double"] == pytest.approx(0.084376, abs=2e-6)
    assert money.equities["double_take"] == pytest.approx(-0.191132, abs=2e-6)
    assert money.action == NO_DOUBLE and money.take
    five = cube_decision(probs, MatchState(match_length=5, score=(2, 1), on_roll=1))  # 4-away, 3-away
    assert five.equities["no_double"] == pytest.approx(0.201427, abs=2e-6)
    assert five.equities["double_take"] == pytest.approx(0.003348, abs=2e-6)
    assert five.equities["double_drop"] == pytest.approx(1.0)


def test_double_match_point_and_crawford_leave_no_double():
    for state in (match(1, 1), match(1, 3, crawford=True), match(3, 1, crawford=True)):
        decision = cube_decision(race(0.9), state)
        assert not may_double(state) and decision.action == NO_DOUBLE and not decision.may_double


def test_post_crawford_trailer_doubles_at_once_and_the_leader_cannot():
    assert not may_double(match(1, 2))
    for p in (0.2, 0.3, 0.45):
        decision = cube_decision(race(p), match(2, 1))
        # the leader takes with more than half: dropping leaves double match point
        assert decision.action == DOUBLE_TAKE
    assert cube_decision(race(0.6), match(2, 1)).action == DOUBLE_DROP


@pytest.mark.parametrize("p, action", [(0.45, NO_DOUBLE), (0.6, DOUBLE_TAKE), (0.7, DOUBLE_DROP)])
def test_two_away_two_away_doubles_with_the_edge(p, action):
    # doubling makes the game the match: double above 50%, take below MWC(1-away, 2-away)
    assert cube_decision(race(p), match(2, 2)).action == action
    assert match_winning_chance(1, 2) == pytest.approx(0.67736)


def test_a_cube_that_already_wins_the_match_is_dead_for_its_owner():
    state = match(2, 5, cube=2, cube_owner=0)
    assert not may_double(state)
    assert cube_decision(race(0.8), state).action == NO_DOUBLE


def test_match_equities_are_normalised_to_the_cube():
    decision = cube_decision((0.7, 0.2, 0.01, 0.05, 0.0), match(5, 5))
    assert decision.equities["double_drop"] == pytest.approx(1.0)
    assert -3.0 < decision.equities["no_double"] < 3.0 and -6.0 < decision.equities["double_take"] < 6.0


def test_cube_life_follows_gnubg_classes():
    assert cube_life(Position.initial().board) == CONTACT_CUBE_LIFE
    far = np.zeros((2, 25), dtype=np.int8)
    far[0, 12], far[1, 0] = 15, 15  # no contact, 13 pips * 15 = 195 pips: the maximum
    assert cube_life(far) == pytest.approx(0.7)
    near = np.zeros((2, 25), dtype=np.int8)
    near[0, 6], near[0, 0], near[1, 0] = 2, 3, 5  # 19 pips: the minimum
    assert cube_life(near) == pytest.approx(0.6)
    mid = np.zeros((2, 25), dtype=np.int8)
    mid[0, 9], mid[1, 0] = 8, 15  # 80 pips
    assert cube_life(mid) == pytest.approx(80 * 0.00125 + 0.55)


def test_bad_probabilities_are_refused_clearly():
    with pytest.raises(CubeError, match="5 finite"):
        cube_decision((0.5, 0.1), MONEY)
    with pytest.raises(CubeError, match="0..1"):
        cube_decision((1.5, 0, 0, 0, 0), MONEY)
    with pytest.raises(CubeError, match="cube life"):
        cube_decision(race(0.6), MONEY, cube_life=1.5)


def test_inverted_probabilities_swap_the_sides():
    assert invert_probabilities((0.6, 0.2, 0.01, 0.1, 0.02)) == pytest.approx([0.4, 0.1, 0.02, 0.2, 0.01])


@st.composite
def cube_states(draw) -> MatchState:
    if draw(st.booleans()):
        return MatchState(
            cube=draw(st.sampled_from((1, 2, 4))),
            cube_owner=draw(st.sampled_from((CENTRED, 0))),
            jacoby=draw(st.booleans()),
        )
    away_me, away_them = draw(st.integers(1, 9)), draw(st.integers(1, 9))
    cube = draw(st.sampled_from((1, 2, 4)))
    owner = CENTRED if cube == 1 else draw(st.sampled_from((CENTRED, 0, 1)))
    crawford = cube == 1 and 1 in (away_me, away_them) and draw(st.booleans())
    return match(away_me, away_them, cube=cube, cube_owner=owner, crawford=crawford)


def _probs(p: float, gammons: tuple[float, float, float, float]) -> tuple[float, ...]:
    g_me, bg_me, g_them, bg_them = gammons
    return (p, p * (g_me + bg_me), p * bg_me, (1 - p) * (g_them + bg_them), (1 - p) * bg_them)


ratios = st.tuples(st.floats(0, 0.4), st.floats(0, 0.05), st.floats(0, 0.4), st.floats(0, 0.05))


@settings(max_examples=300, deadline=None)
@given(cube_states(), ratios, st.floats(0.01, 0.99), st.floats(0.01, 0.99), st.floats(0.0, 1.0))
def test_more_winning_chances_never_make_the_take_better(state, gammons, p1, p2, x):
    assume(abs(p1 - p2) > 1e-6)
    low, high = sorted((p1, p2))
    weaker = cube_decision(_probs(low, gammons), state, cube_life=x)
    stronger = cube_decision(_probs(high, gammons), state, cube_life=x)
    # the taker's margin (drop minus take, for the doubler) shrinks as the doubler improves
    margin = lambda d: d.equities["double_drop"] - d.equities["double_take"]  # noqa: E731
    assert margin(stronger) <= margin(weaker) + 1e-9
    assert stronger.equities["no_double"] >= weaker.equities["no_double"] - 1e-9
    if stronger.take:
        assert weaker.take


@settings(max_examples=200, deadline=None)
@given(cube_states(), ratios, st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_decisions_are_consistent_with_their_equities(state, gammons, p, x):
    decision = cube_decision(_probs(p, gammons), state, cube_life=x)
    eq = decision.equities
    assert decision.take == (eq["double_drop"] > eq["double_take"])
    if decision.double:
        assert min(eq["double_take"], eq["double_drop"]) >= eq["no_double"]
    assert decision.best_equity <= max(eq.values()) + 1e-12
