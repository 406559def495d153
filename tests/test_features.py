"""The contact2 features: hit statistics against a brute force over all 36 rolls,
hand-made values, and the contact2 layout around the contact encoding."""

from __future__ import annotations

import numpy as np
import pytest

from board_builder import make_board
from engine.encode import CONTACT2_HALF, CONTACT_HALF, encode
from engine.features import EXTRA_FEATURES, count_shots, hit_stats
from engine.selfplay_sample import sample_positions
from strategies import random_board


def _reaches(column: int, dice: list[int], defender: np.ndarray, target: int) -> bool:
    """Whether one checker moved die by die from ``column`` lands on attacker column
    ``target`` (it may hit another blot on the way and go on, as in a real move)."""
    for die in dice:
        column -= die
        if column < 0 or defender[23 - column] >= 2:
            return False
        if column == target:
            return True
    return False


def brute_force_hits(attacker: np.ndarray, defender: np.ndarray) -> tuple[int, float, int]:
    """(shots, expected pips lost, double shots) by walking every roll of 36: a roll
    hits a blot if some checker of the attacker reaches it with that roll; a double
    shot is a roll that reaches two different blots (not necessarily in one move)."""
    sources = [24] if attacker[24] else [c for c in range(25) if attacker[c]]
    blots = [23 - c for c in range(24) if defender[c] == 1]  # attacker columns
    shots = doubles = 0
    pips = 0.0
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            orders = [[d1] * 4] if d1 == d2 else [[d1, d2], [d2, d1]]
            hit = [b for b in blots if any(_reaches(s, order[:k], defender, b)
                                           for s in sources for order in orders
                                           for k in range(1, len(order) + 1))]
            shots += bool(hit)
            doubles += len(hit) >= 2
            pips += max((24 - b for b in hit), default=0)  # the blot's own point number
    return shots, pips / 36.0, doubles


@pytest.mark.parametrize("mover, other, expected", [
    ({13: 1}, {13: 1}, (11, 11 * 13 / 36, 0)),  # one blot on their 13 point, 1 away
    # a second blot 3 away (their 15 point): 3s, 2-1 and 1-1 reach it; 3-1, 2-1, 1-1 reach both
    ({13: 1}, {13: 1, 15: 1}, (20, (14 * 15 + 6 * 13) / 36, 5)),
    ({13: 1}, {}, (0, 0.0, 0)),
])
def test_hit_stats_on_hand_made_positions(mover, other, expected):
    board = make_board(mover, other)
    shots, pips, doubles = hit_stats(board[0], board[1])
    assert (shots, doubles) == (expected[0], expected[2])
    assert pips == pytest.approx(expected[1])
    assert brute_force_hits(board[0], board[1]) == pytest.approx(expected)


def test_hit_stats_match_brute_force_on_random_and_played_boards():
    rng = np.random.default_rng(5)
    boards = [random_board(rng) for _ in range(200)] + [s.board for s in sample_positions(200, seed=8)]
    for board in boards:
        for attacker, defender in ((board[0], board[1]), (board[1], board[0])):
            shots, pips, doubles = hit_stats(attacker, defender)
            assert shots == count_shots(attacker, defender)
            assert (shots, doubles) == brute_force_hits(attacker, defender)[::2], board.tolist()
            assert pips == pytest.approx(brute_force_hits(attacker, defender)[1]), board.tolist()


def extras(x: np.ndarray, side: int) -> dict[str, float]:
    start = side * CONTACT2_HALF + CONTACT_HALF
    return dict(zip(EXTRA_FEATURES, x[start:start + len(EXTRA_FEATURES)].tolist()))


def test_contact2_is_contact_with_the_extras_after_each_side():
    for sample in sample_positions(100, seed=3):
        old, new = encode("contact", sample.board), encode("contact2", sample.board)
        assert np.array_equal(new[:CONTACT_HALF], old[:CONTACT_HALF])
        assert np.array_equal(new[CONTACT2_HALF:CONTACT2_HALF + CONTACT_HALF], old[CONTACT_HALF:])


def test_extra_features_on_the_opening_position():
    board = make_board({24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5})
    mine = extras(encode("contact2", board), 0)
    assert mine["pip_loss"] == 0.0 and mine["double_shots"] == 0.0
    assert mine["dance"] == pytest.approx((1 / 6) ** 2)  # their 6 point is their only home point
    # their rearmost checkers sit on our 1 point: every checker of ours is behind them but those
    assert mine["free_pips"] == 0.0
    assert mine["break_contact"] == pytest.approx((2 * 23 + 5 * 12 + 3 * 7 + 5 * 5) / 167)
    assert mine["timing"] == pytest.approx((2 * 18 + 5 * 7 + 3 * 2) / 100)


def test_extra_features_count_free_pips_past_their_rearmost_checker():
    # their rearmost checker is on their 10 point = our 15 point
    board = make_board({20: 2, 6: 5, 5: 5, 4: 3}, {10: 1, 6: 14})
    mine = extras(encode("contact2", board), 0)
    assert mine["break_contact"] == pytest.approx(2 * 5 / 167)
    assert mine["free_pips"] == pytest.approx((5 * 6 + 5 * 5 + 3 * 4) / 167)
    theirs = extras(encode("contact2", board), 1)
    # our rearmost is on their 5 point: their 10 point checker needs 5 pips, each on their 6 point one
    assert theirs["break_contact"] == pytest.approx((5 + 14) / 167)


def test_near_shot_table_equals_walking_the_dice_for_every_blocking_pattern():
    """The table of hitting rolls (distance 1..12, every pattern of blocked points in
    between) is what ``_hitting_rolls`` computes, wherever the blot stands."""
    from engine.features import NEAR, NEAR_BASE, NEAR_TABLE, _hitting_rolls

    checked = 0
    for dist in range(1, NEAR + 1):
        for pattern in range(1 << (dist - 1)):
            expected = NEAR_TABLE[NEAR_BASE[dist] + pattern]
            for blot in (0, 5, 23 - dist):
                blocked = pattern << (blot + 1)
                assert _hitting_rolls(blot + dist, blot, blocked) == expected, (dist, pattern, blot)
                checked += 1
    assert checked == 3 * ((1 << NEAR) - 1)
