"""engine.cube.resign: offers only in proved races, accepts by equity or by proof."""

from __future__ import annotations

import numpy as np
import pytest

from engine.cube.resign import (
    BACKGAMMON,
    GAMMON,
    NONE,
    SINGLE,
    ResignError,
    accept_resignation,
    race_outcomes,
    resignation_to_offer,
)
from engine.rules.ids import MatchState
from engine.rules.position import Position

MONEY = MatchState(jacoby=False)


def board(ours: dict[int, int], theirs: dict[int, int]) -> np.ndarray:
    """Row 0 = us, row 1 = them, keyed by each owner's own point number (1..24)."""
    b = np.zeros((2, 25), dtype=np.int8)
    for row, points in ((0, ours), (1, theirs)):
        for point, count in points.items():
            b[row, point - 1] = count
    return b


def match(away_us: int, away_them: int, *, we_are_on_roll: bool = True, **kwargs) -> MatchState:
    """We are player 0."""
    length = max(away_us, away_them) + 3
    return MatchState(
        match_length=length, score=(length - away_us, length - away_them), on_roll=0 if we_are_on_roll else 1, **kwargs
    )


# they have two checkers on their ace point: off with any roll
ALL_OUT = board({8: 15}, {1: 2})
TWO_IN_THEIR_HOME = board({8: 13, 23: 2}, {1: 2})


def test_a_sure_gammon_is_resigned_as_a_gammon():
    assert race_outcomes(ALL_OUT, on_roll=True) == {GAMMON}
    assert resignation_to_offer(ALL_OUT, None, MONEY, on_roll=True) == GAMMON


def test_gammons_that_cannot_count_are_resigned_as_singles():
    assert resignation_to_offer(ALL_OUT, None, MatchState(jacoby=True), on_roll=True) == SINGLE
    # post-Crawford leader: any win ends the match
    assert resignation_to_offer(ALL_OUT, None, match(3, 1), on_roll=True) == SINGLE
    # cube on 2, they need 3: a gammon (4) is worth no more than 3 points
    assert resignation_to_offer(ALL_OUT, None, match(5, 3, cube=2, cube_owner=1), on_roll=True) == GAMMON
    assert resignation_to_offer(ALL_OUT, None, match(5, 2, cube=2, cube_owner=1), on_roll=True) == SINGLE


def test_a_backgammon_that_might_be_saved_is_played_out():
    # on roll we may still run both back checkers out (5-5 does it)
    assert race_outcomes(TWO_IN_THEIR_HOME, on_roll=True) == {GAMMON, BACKGAMMON}
    assert resignation_to_offer(TWO_IN_THEIR_HOME, None, MONEY, on_roll=True) == NONE
    # they roll first and are off at once: the backgammon is certain
    assert resignation_to_offer(TWO_IN_THEIR_HOME, None, MONEY, on_roll=False) == BACKGAMMON


def test_a_lost_bearoff_with_checkers_off_is_a_single():
    lost = board({6: 5}, {1: 1})  # we need two rolls at least, they need one
    assert resignation_to_offer(lost, None, MONEY, on_roll=True) == SINGLE
    assert resignation_to_offer(board({6: 3}, {1: 1}), None, MONEY, on_roll=True) == NONE  # 6-6 wins


def test_a_gammon_we_will_surely_save_lets_us_resign_a_single():
    # 15 on our ace point: a checker comes off with any roll, before their 2nd roll
    assert resignation_to_offer(board({1: 15}, {1: 6}), None, MONEY, on_roll=True) == SINGLE


def test_never_resign_a_gammon_that_can_still_be_saved():
    open_question = board({6: 15}, {1: 6})  # cannot win; first checker off not sure in time
    assert race_outcomes(open_question, on_roll=True) == {SINGLE, GAMMON}
    assert resignation_to_offer(open_question, None, MONEY, on_roll=True) == NONE
    assert resignation_to_offer(open_question, None, match(4, 1), on_roll=True) == SINGLE


def test_contact_or_a_race_still_open_gets_no_offer():
    assert resignation_to_offer(Position.initial().board, (0.02, 0.0, 0.0, 0.5, 0.1), MONEY, on_roll=True) == NONE
    assert resignation_to_offer(board({6: 2}, {6: 15}), None, MONEY, on_roll=False) == NONE
    assert race_outcomes(board({8: 15}, {8: 2}), on_roll=True) is None  # they are not all home


def test_offers_check_probabilities_and_boards():
    with pytest.raises(ResignError):
        resignation_to_offer(ALL_OUT, (0.5, 0.1), MONEY, on_roll=True)
    with pytest.raises(ResignError):
        resignation_to_offer(np.zeros((3, 25), dtype=np.int8), None, MONEY, on_roll=True)


def test_accept_a_single_when_a_single_is_all_we_can_get():
    # they are the losers of ALL_OUT's mirror with a checker off: only a single is left
    theirs_lost = board({1: 2}, {6: 5})
    assert accept_resignation(theirs_lost, (0.99, 0.0, 0.0, 0.0, 0.0), MONEY, SINGLE, on_roll=False)


def test_refuse_a_single_when_the_gammon_is_likely():
    probs = (0.92, 0.6, 0.02, 0.0, 0.0)
    contact = Position.initial().board
    assert not accept_resignation(contact, probs, MONEY, SINGLE, on_roll=True)
    assert accept_resignation(contact, probs, MONEY, GAMMON, on_roll=True)
    assert accept_resignation(contact, probs, MONEY, BACKGAMMON, on_roll=False)


def test_accept_a_single_we_could_only_cash_anyway():
    contact = Position.initial().board
    assert accept_resignation(contact, (0.8, 0.0, 0.0, 0.0, 0.0), MONEY, SINGLE, on_roll=True)
    assert accept_resignation(contact, (0.55, 0.1, 0.0, 0.1, 0.0), MONEY, SINGLE, on_roll=False)


def test_in_a_match_accept_what_wins_the_match():
    probs = (0.9, 0.7, 0.1, 0.0, 0.0)
    contact = Position.initial().board
    assert accept_resignation(contact, probs, match(1, 5), SINGLE, on_roll=True)
    assert not accept_resignation(contact, probs, match(3, 5), SINGLE, on_roll=True)
    assert accept_resignation(contact, probs, match(3, 5, cube=2, cube_owner=1), GAMMON, on_roll=True)


def test_accept_refuses_impossible_levels():
    with pytest.raises(ResignError, match="1 .single."):
        accept_resignation(ALL_OUT, (0.5, 0, 0, 0, 0), MONEY, 4, on_roll=True)
