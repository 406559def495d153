"""The contact2 features: hit statistics against a brute force over all 36 rolls,
hand-made values, and the contact2 layout around the contact encoding."""

from __future__ import annotations

import numpy as np
import pytest
from board_builder import make_board
from strategies import random_and_played_boards, random_board

from engine.eval.encode import CONTACT2_HALF, CONTACT_HALF, encode
from engine.eval.features import EXTRA_FEATURES, count_shots, hit_stats
from engine.rollout.selfplay_sample import sample_positions


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
            hit = [
                b
                for b in blots
                if any(
                    _reaches(s, order[:k], defender, b)
                    for s in sources
                    for order in orders
                    for k in range(1, len(order) + 1)
                )
            ]
            shots += bool(hit)
            doubles += len(hit) >= 2
            pips += max((24 - b for b in hit), default=0)  # the blot's own point number
    return shots, pips / 36.0, doubles


@pytest.mark.parametrize(
    "mover, other, expected",
    [
        ({13: 1}, {13: 1}, (11, 11 * 13 / 36, 0)),  # one blot on their 13 point, 1 away
        # a second blot 3 away (their 15 point): 3s, 2-1 and 1-1 reach it; 3-1, 2-1, 1-1 reach both
        ({13: 1}, {13: 1, 15: 1}, (20, (14 * 15 + 6 * 13) / 36, 5)),
        ({13: 1}, {}, (0, 0.0, 0)),
    ],
)
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
    return dict(zip(EXTRA_FEATURES, x[start : start + len(EXTRA_FEATURES)].tolist()))


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
    from engine.eval.features import NEAR, NEAR_BASE, NEAR_TABLE
    from engine.eval.features import hitting_rolls as _hitting_rolls

    checked = 0
    for dist in range(1, NEAR + 1):
        for pattern in range(1 << (dist - 1)):
            expected = NEAR_TABLE[NEAR_BASE[dist] + pattern]
            for blot in (0, 5, 23 - dist):
                blocked = pattern << (blot + 1)
                assert _hitting_rolls(blot + dist, blot, blocked) == expected, (dist, pattern, blot)
                checked += 1
    assert checked == 3 * ((1 << NEAR) - 1)


def reference_tail(me: np.ndarray, them: np.ndarray) -> list[float]:
    """One side's contact2 tail units, point by point from the encoding's definitions
    (the engine works them out from bit masks of both sides at once)."""
    me, them = [int(v) for v in me], [int(v) for v in them]
    made = [me[i] >= 2 for i in range(24)]
    longest = run = 0
    for m in made:
        run = run + 1 if m else 0
        longest = max(longest, run)
    anchors = [i for i in range(18, 24) if made[i]]
    rear = 24 if me[24] else max((i for i in range(24) if me[i]), default=-1)
    their_rear = 24 if them[24] else max((i for i in range(24) if them[i]), default=-1)
    held = [them[23 - i] >= 2 for i in range(24)]  # their points, in our numbering
    shots, pip_loss, double_shots = brute_force_hits(np.array(me), np.array(them))
    escapes = sum(1 for d in range(1, 7) if rear >= 0 and (rear - d < 0 or not held[rear - d]))
    contain = sum(1 for d in range(1, 13) if rear >= 0 and rear - d >= 0 and held[rear - d])
    front = 23 - their_rear
    behind = sum(me[i] * (i - front) for i in range(25) if i > front)
    free = sum(me[i] * (i + 1) for i in range(25) if i <= front)
    mobile = sum(me[p] for p in range(25) for d in range(1, 7) if p - d >= 0 and not held[p - d])
    simple = [
        (15 - sum(me)) / 15,
        (sum(me[i] * (i + 1) for i in range(24)) + 25 * me[24]) / 167,
        (me[24] + sum(me[18:24])) / 15,
        sum(made[:6]) / 6,
        longest / 6,
        min(sum(1 for i in range(24) if me[i] == 1), 5) / 5,
        (anchors[-1] - 17) / 6 if anchors else 0.0,
        shots / 36,
        escapes / 6,
        contain / 12,
        sum(me[:6]) / 15,
    ]
    extra = [
        pip_loss / 24,
        double_shots / 36,
        (sum(them[i] >= 2 for i in range(6)) / 6) ** 2,
        min(behind, 167) / 167,
        free / 167,
        mobile / 90,
        min(sum(me[i] * (i - 5) for i in range(6, 25)), 100) / 100,
    ]
    return simple + extra


def test_contact2_tail_units_equal_their_definitions_on_random_and_played_boards():
    for board in random_and_played_boards(17):
        x = encode("contact2", board)
        for side in range(2):
            start = side * CONTACT2_HALF + 100
            expected = reference_tail(board[side], board[1 - side])
            assert x[start : start + len(expected)] == pytest.approx(expected, abs=1e-6), (board.tolist(), side)
