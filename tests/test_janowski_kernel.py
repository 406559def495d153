"""The scalar Janowski kernels of the cubeful rollouts give what the vectorised
lookahead's ``engine.cube.janowski`` gives, for every cube situation and both sides."""

from __future__ import annotations

import numpy as np
import pytest

from engine.cube.cubeful import flip_view, view_may_double
from engine.cube.janowski import cube_lives, cubeful
from engine.cube.janowski_kernel import (
    DOUBLE_DROP,
    DOUBLE_TAKE,
    NO_DOUBLE,
    cube_action,
    cube_life,
    cube_owner,
    cube_rules,
    cubeful_value,
    decided_value,
    game_value,
    may_double,
)
from engine.cube.met import ME, THEM, CubeView
from engine.rules.ids import CENTRED


def _random_probs(rng: np.random.Generator, n: int) -> np.ndarray:
    win = rng.uniform(0.02, 0.98, n)
    gammon = win * rng.uniform(0, 0.5, n)
    backgammon = gammon * rng.uniform(0, 0.2, n)
    lose_gammon = (1 - win) * rng.uniform(0, 0.5, n)
    lose_backgammon = lose_gammon * rng.uniform(0, 0.2, n)
    return np.stack([win, gammon, backgammon, lose_gammon, lose_backgammon], axis=1)


VIEWS = [
    CubeView((0, 0)),
    CubeView((0, 0), cube=2, owner=ME),
    CubeView((0, 0), cube=4, owner=THEM),
    CubeView((0, 0), jacoby=True),
    CubeView((0, 0), cube=2, owner=ME, jacoby=True),
    CubeView((7, 7)),
    CubeView((5, 3)),
    CubeView((3, 5), cube=2, owner=ME),
    CubeView((6, 4), cube=2, owner=THEM),
    CubeView((2, 2)),
    CubeView((1, 4), crawford=True),
    CubeView((4, 1)),  # post-Crawford, trailer's view
    CubeView((1, 5)),  # post-Crawford, leader's view
    CubeView((11, 9), cube=4, owner=ME),
    CubeView((3, 3), cube=2, owner=THEM),
]


@pytest.mark.parametrize("view", VIEWS, ids=str)
def test_cubeful_value_equals_the_vectorised_janowski_for_both_players(view):
    rng = np.random.default_rng(35)
    probs = _random_probs(rng, 60)
    lives = rng.uniform(0.5, 0.75, len(probs))
    rules = cube_rules(view)
    owner = cube_owner(view)
    mine = cubeful(probs, view, lives)
    theirs = cubeful(probs, flip_view(view), lives)
    for k in range(len(probs)):
        assert cubeful_value(rules, 0, view.cube, owner, probs[k], lives[k]) == pytest.approx(mine[k], abs=1e-9)
        assert cubeful_value(rules, 1, view.cube, owner, probs[k], lives[k]) == pytest.approx(theirs[k], abs=1e-9)


@pytest.mark.parametrize("view", VIEWS, ids=str)
def test_may_double_follows_the_lookahead(view):
    rules = cube_rules(view)
    assert may_double(rules, 0, view.cube, cube_owner(view)) == view_may_double(view)
    assert may_double(rules, 1, view.cube, cube_owner(view)) == view_may_double(flip_view(view))


def test_cube_life_of_one_board_equals_the_vectorised_one():
    from engine.rollout.selfplay_sample import sample_positions

    boards = [np.ascontiguousarray(s.board, np.int8) for s in sample_positions(300, 7, players=("pubeval",))]
    expected = cube_lives(np.array(boards))
    flipped = cube_lives(np.array([b[::-1] for b in boards]))
    for board, mine, theirs in zip(boards, expected, flipped):
        assert cube_life(board, 0) == pytest.approx(mine)
        assert cube_life(board, 1) == pytest.approx(theirs)


def test_cube_action_doubles_takes_and_drops_as_the_equities_say():
    rules = cube_rules(CubeView((0, 0)))
    x = 0.68
    # a small favourite keeps the cube, a strong one doubles and is taken, a huge one is dropped
    assert cube_action(rules, 0, 1, CENTRED, np.array([0.55, 0.1, 0.0, 0.1, 0.0]), x)[0] == NO_DOUBLE
    assert cube_action(rules, 0, 1, CENTRED, np.array([0.72, 0.1, 0.0, 0.05, 0.0]), x)[0] == DOUBLE_TAKE
    action, value = cube_action(rules, 0, 1, CENTRED, np.array([0.85, 0.1, 0.0, 0.02, 0.0]), x)
    assert action == DOUBLE_DROP and value == 1.0
    # the cube the other side holds cannot be turned
    assert cube_action(rules, 0, 2, 1, np.array([0.85, 0.1, 0.0, 0.02, 0.0]), x)[0] == NO_DOUBLE


def test_game_values_count_the_cube_the_match_and_jacoby():
    money = cube_rules(CubeView((0, 0)))
    assert game_value(money, 0, 0, 2, 4, 1) == 8.0
    assert game_value(money, 1, 0, 3, 2, CENTRED) == -6.0
    jacoby = cube_rules(CubeView((0, 0), jacoby=True))
    assert game_value(jacoby, 0, 0, 2, 1, CENTRED) == 1.0  # a gammon with the cube centred is a single
    assert game_value(jacoby, 0, 0, 2, 2, 1) == 4.0
    match = cube_rules(CubeView((3, 5)))
    assert game_value(match, 0, 0, 2, 2, 1) == 1.0  # 4 points win a 3-away match
    assert game_value(match, 1, 0, 1, 1, CENTRED) == pytest.approx(1 - CubeView((3, 5)).mwc(ME, 1, winner=ME))


@pytest.mark.parametrize("view", VIEWS, ids=str)
def test_a_leaf_is_valued_as_the_lookahead_values_it(view):
    from engine.cube.cubeful import _decided

    rng = np.random.default_rng(36)
    probs = _random_probs(rng, 40)
    lives = rng.uniform(0.5, 0.75, len(probs))
    rules = cube_rules(view)
    expected = _decided(view, cubeful(probs, view, lives), cubeful(probs, view.doubled(), lives))
    for k in range(len(probs)):
        got = decided_value(rules, 0, view.cube, cube_owner(view), probs[k], lives[k])
        assert got == pytest.approx(expected[k], abs=1e-9)
