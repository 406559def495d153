"""Input encodings: sizes, unit values on hand-made positions, and shot counting
checked against an independent brute force over all 36 rolls."""

from __future__ import annotations

import numpy as np
import pytest
from board_builder import make_board
from strategies import random_board

from engine.eval.encode import (
    CONTACT2_HALF,
    CONTACT3_HALF,
    CONTACT_FEATURES,
    CONTACT_HALF,
    count_shots,
    encode,
    input_size,
)
from engine.eval.net import NetError, swap_permutation
from engine.rollout.selfplay_sample import sample_positions
from engine.rules.position import Position

SIZES = {"tesauro": 196, "tesauro-turn": 198, "race": 200, "contact": 222, "contact2": 236, "contact3": 250}


def contact_features(x: np.ndarray, side: int) -> dict[str, float]:
    """The hand-made contact features of one side (0 = on roll), by name."""
    start = side * CONTACT_HALF + 100 + 1  # after 25 x 4 board units and the off unit
    return dict(zip(CONTACT_FEATURES, x[start : start + len(CONTACT_FEATURES)].tolist()))


def unit_dict(x: np.ndarray) -> dict[int, float]:
    return {int(i): float(x[i]) for i in np.nonzero(x)[0]}


# ---- sizes and names -------------------------------------------------------------


@pytest.mark.parametrize("name, size", SIZES.items())
def test_every_encoding_has_its_documented_size(name, size):
    assert input_size(name) == size
    x = encode(name, Position.initial().board)
    assert x.shape == (size,) and x.dtype == np.float32


@pytest.mark.parametrize("call", [lambda: encode("gnubg", Position.initial().board), lambda: input_size("gnubg")])
def test_unknown_encoding_is_a_clear_value_error(call):
    with pytest.raises(ValueError, match=r"unknown encoding 'gnubg'.*tesauro.*contact"):
        call()


@pytest.mark.parametrize(
    "old, new, old_half, new_half",
    [("contact", "contact2", CONTACT_HALF, CONTACT2_HALF), ("contact2", "contact3", CONTACT2_HALF, CONTACT3_HALF)],
)
def test_each_contact_encoding_is_the_one_before_with_units_after_each_side(old, new, old_half, new_half):
    for sample in sample_positions(100, seed=3):
        before, after = encode(old, sample.board), encode(new, sample.board)
        assert np.array_equal(after[:old_half], before[:old_half])
        assert np.array_equal(after[new_half : new_half + old_half], before[old_half:])


# ---- tesauro units ---------------------------------------------------------------


def test_tesauro_opening_position_units():
    # each side: 2 on its 24 point (col 23), 5 on 13 (col 12), 3 on 8 (col 7), 5 on 6 (col 5)
    one_side = {
        4 * 5: 1,
        4 * 5 + 1: 1,
        4 * 5 + 2: 1,
        4 * 5 + 3: 1.0,  # 5 checkers: (5-3)/2
        4 * 7: 1,
        4 * 7 + 1: 1,
        4 * 7 + 2: 1,  # 3 checkers: no fourth unit
        4 * 12: 1,
        4 * 12 + 1: 1,
        4 * 12 + 2: 1,
        4 * 12 + 3: 1.0,
        4 * 23: 1,
        4 * 23 + 1: 1,
    }
    expected = {**one_side, **{96 + k: v for k, v in one_side.items()}}
    assert unit_dict(encode("tesauro", Position.initial().board)) == expected
    with_turn = encode("tesauro-turn", Position.initial().board)
    assert unit_dict(with_turn) == {**expected, 196: 1.0}  # turn units (on roll, other) = (1, 0)


def test_tesauro_bar_and_borne_off_units():
    # on roll: 2 on the bar, 5 on the 6 point, 3 on the ace point, 5 off
    # other side: 1 on the bar, 4 on its 13 point, 2 on its 8 point, 8 off
    board = make_board({25: 2, 6: 5, 1: 3}, {25: 1, 13: 4, 8: 2})
    x = encode("tesauro", board)
    assert x[192] == 2 / 2 and x[193] == 1 / 2  # bar / 2
    assert x[194] == pytest.approx(5 / 15) and x[195] == pytest.approx(8 / 15)  # off / 15
    assert unit_dict(x[:192]) == {
        20: 1,
        21: 1,
        22: 1,
        23: 1.0,
        0: 1,
        1: 1,
        2: 1,
        96 + 48: 1,
        96 + 49: 1,
        96 + 50: 1,
        96 + 51: 0.5,
        96 + 28: 1,
        96 + 29: 1,
    }


def test_race_units_add_pips_difference_and_wastage():
    board = make_board({6: 3, 2: 4, 1: 5}, {5: 6, 3: 2})  # 3 and 7 off
    x = encode("race", board)
    assert np.array_equal(x[:196], encode("tesauro", board))
    pips_on_roll, pips_other = 18 + 8 + 5, 30 + 6
    assert x[196] == pytest.approx(pips_on_roll / 100) and x[197] == pytest.approx(pips_other / 100)
    assert x[198] == pytest.approx((pips_on_roll - pips_other) / 50)
    assert x[199] == pytest.approx((2 * 5 + 1 * 4) / 15)


# ---- contact units and features --------------------------------------------------

# On roll: a blot on its 24 point, an anchor on 20, 3 on the midpoint, a blot on 9 and
# a four-point prime 8-7-6-5.  Other side: a checker on the bar, its 6, 4, 8 and 13
# points made and a blot on its 2 point (the on-roll side's 23 point).
CONTACT_BOARD = make_board({24: 1, 20: 2, 13: 3, 9: 1, 8: 2, 7: 2, 6: 2, 5: 2}, {25: 1, 6: 5, 4: 2, 2: 1, 8: 3, 13: 3})


def test_contact_features_of_the_side_on_roll():
    x = encode("contact", CONTACT_BOARD)
    assert x[100] == 0.0  # nothing off
    assert contact_features(x, 0) == pytest.approx(
        {
            "pips": (24 + 40 + 39 + 9 + 16 + 14 + 12 + 10) / 167,
            "back": 3 / 15,  # 24 point and the anchor on 20
            "home_points": 2 / 6,  # 6 and 5 made
            "prime": 4 / 6,  # 8-7-6-5
            "blots": 2 / 5,  # 24 and 9
            "anchor": 2 / 6,  # point 20 of 19..24
            "shots": 11 / 36,  # only the blot on 23, a 1 away from the 24 point
            "escapes": 4 / 6,  # from 24: 21 and 19 are made by the other side
            "contain": 4 / 12,  # other side's points in 23..12: 21, 19, 17, 12
            "homecount": 4 / 15,
        }
    )


def test_contact_features_of_the_other_side():
    x = encode("contact", CONTACT_BOARD)
    assert contact_features(x, 1) == pytest.approx(
        {
            "pips": (25 + 30 + 8 + 2 + 24 + 39) / 167,
            "back": 1 / 15,  # the bar checker
            "home_points": 2 / 6,  # 6 and 4
            "prime": 1 / 6,
            "blots": 1 / 5,  # the bar checker is not a blot
            "anchor": 0.0,
            # on the bar it only hits from the bar (the documented simplification, which
            # ignores the 1s from its 2 point): 6-3 entering on 3, 5-4 entering on 4; its
            # 3-3 and 6-6 are blocked on the other side's 6 point
            "shots": 4 / 36,
            "escapes": 4 / 6,  # entering: the other side holds its 5 and 6 points
            "contain": 4 / 12,  # 5, 6, 7, 8 of the other side in front of the bar
            "homecount": 8 / 15,
        }
    )


def test_contact_board_units_count_exactly_one_two_and_three_plus():
    x = encode("contact", CONTACT_BOARD)
    assert x[4 * 12 : 4 * 12 + 4].tolist() == [0, 0, 1, 0]  # midpoint, 3 checkers
    assert x[4 * 23 : 4 * 23 + 4].tolist() == [1, 0, 0, 0]  # blot on 24
    assert x[4 * 19 : 4 * 19 + 4].tolist() == [0, 1, 0, 0]  # anchor on 20
    other = CONTACT_HALF
    assert x[other + 4 * 24 : other + 4 * 24 + 4].tolist() == [1, 0, 0, 0]  # its bar
    assert x[other + 4 * 5 : other + 4 * 5 + 4].tolist() == [0, 0, 1, 1.0]  # 5 on its 6 point


def test_contact_blot_feature_is_capped_and_off_is_counted():
    board = make_board({24: 1, 22: 1, 18: 1, 15: 1, 11: 1, 9: 1, 3: 1}, {6: 2})  # 7 blots, 8 off
    x = encode("contact", board)
    assert contact_features(x, 0)["blots"] == 1.0
    assert x[100] == pytest.approx(8 / 15) and x[CONTACT_HALF + 100] == pytest.approx(13 / 15)


def test_opening_position_contact_features():
    x = encode("contact", Position.initial().board)
    for side in (0, 1):
        assert contact_features(x, side) == pytest.approx(
            {
                "pips": 1.0,
                "back": 2 / 15,
                "home_points": 1 / 6,
                "prime": 1 / 6,
                "blots": 0.0,
                "anchor": 1.0,
                "shots": 0.0,
                "escapes": 5 / 6,
                "contain": 3 / 12,
                "homecount": 5 / 15,
            }
        )


@pytest.mark.parametrize("name", ["tesauro", "contact"])
def test_swap_permutation_exchanges_the_sides(name):
    rng = np.random.default_rng(4)
    perm = swap_permutation(name)
    for _ in range(50):
        board = random_board(rng)
        assert np.array_equal(encode(name, board[::-1].copy()), encode(name, board)[perm])


def test_swap_permutation_refuses_one_sided_encodings():
    with pytest.raises(NetError, match="side-symmetric"):
        swap_permutation("race")


# ---- shots against a brute force -------------------------------------------------


def brute_force_shots(attacker: np.ndarray, defender: np.ndarray) -> int:
    """Rolls of 36 with which one checker of ``attacker`` reaches a blot of ``defender``.

    Columns in the attacker's numbering; the defender's column for attacker column c
    is 23 - c.  Moves one checker die by die (doubles four times, other rolls in both
    orders), stopping at a point the defender holds.  As count_shots documents, a side
    with a checker on the bar only hits with that checker.
    """
    sources = [24] if attacker[24] else [c for c in range(25) if attacker[c]]
    hits = 0
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            orders = [[d1] * 4] if d1 == d2 else [[d1, d2], [d2, d1]]
            hits += any(_path_hits(src, order, defender) for src in sources for order in orders)
    return hits


def _path_hits(column: int, dice: list[int], defender: np.ndarray) -> bool:
    for die in dice:
        column -= die
        if column < 0 or defender[23 - column] >= 2:
            return False
        if defender[23 - column] == 1:
            return True
    return False


# the other side's points in its own numbering: its point q is our point 25 - q
@pytest.mark.parametrize(
    "mover, other, shots",
    [
        ({13: 1}, {13: 1}, 11),  # blot 1 away: every roll with a 1
        ({13: 1}, {18: 1}, 17),  # 6 away: 11 sixes, 5-1, 4-2 (2 each), 3-3, 2-2
        ({13: 1}, {18: 1, 17: 2, 16: 2, 15: 2, 14: 2, 13: 2}, 11),  # our 8..12 blocked: only 6s
        ({25: 1}, {1: 1}, 11),  # entering with a 1 hits on our 24 point
        ({25: 1}, {5: 1}, 15),  # 5 away from the bar: 5s, 4-1, 3-2
        ({25: 1}, {5: 1, 1: 2, 2: 2, 3: 2, 4: 2}, 11),  # 4-1 and 3-2 cannot enter and go on
        ({25: 1, 13: 5}, {13: 1}, 0),  # a 1 from the midpoint, but we must hit from the bar
    ],
)
def test_count_shots_on_hand_made_positions(mover, other, shots):
    board = make_board(mover, other)
    expected = brute_force_shots(board[0], board[1])
    assert expected == shots
    assert count_shots(board[0], board[1]) == shots


def test_count_shots_matches_brute_force_on_random_boards():
    rng = np.random.default_rng(11)
    for _ in range(400):
        board = random_board(rng)
        for attacker, defender in ((board[0], board[1]), (board[1], board[0])):
            assert count_shots(attacker, defender) == brute_force_shots(attacker, defender), board.tolist()


def test_count_shots_matches_brute_force_on_self_play_positions():
    nonzero = 0
    for sample in sample_positions(600, seed=21):
        board = sample.board
        for attacker, defender in ((board[0], board[1]), (board[1], board[0])):
            expected = brute_force_shots(attacker, defender)
            assert count_shots(attacker, defender) == expected, sample.describe()
            nonzero += expected > 0
    assert nonzero > 100  # the sample really has shots to count
