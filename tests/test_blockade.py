"""The contact3 features (engine.eval.blockade): escapes against a walk over the 36
rolls on the board itself, hand-made values, and the layout around contact2."""

from __future__ import annotations

import numpy as np
import pytest
from board_builder import make_board
from numba import njit
from strategies import random_and_played_boards

from engine.eval.blockade import EXTRA3_FEATURES, extra3_features
from engine.eval.encode import CONTACT2_HALF, CONTACT3_HALF, _side_summary, encode
from engine.eval.features import reverse24


def brute_escapes(column: int, other: np.ndarray) -> int:
    """Rolls of 36 with which a checker on ``column`` (this side's numbering) passes
    every point the other side holds within 12 pips in front of it, moving die by die
    through open points (those farther than 12 pips count as open); the other side's
    column c is ours 23 - c."""

    def held(col: int) -> bool:
        return 0 <= col <= 23 and column - col <= 12 and other[23 - col] >= 2

    ahead = [column - d for d in range(1, 13) if held(column - d)]
    if not ahead:
        return 36
    last = min(ahead)
    count = 0
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            orders = [[d1] * 4] if d1 == d2 else [[d1, d2], [d2, d1]]
            ok = False
            for order in orders:
                col = column
                for die in order:
                    col -= die
                    if held(col):
                        break
                    if col < last:
                        ok = True
                        break
            count += ok
    return count


def features3(x: np.ndarray, side: int) -> dict[str, float]:
    start = side * CONTACT3_HALF + CONTACT2_HALF
    return dict(zip(EXTRA3_FEATURES, x[start : start + len(EXTRA3_FEATURES)].tolist()))


def reference(me: np.ndarray, other: np.ndarray) -> dict[str, float]:
    """The features from their definitions, walking the board row by row."""
    columns = [c for c in range(25) if me[c] > 0]
    rear = max(columns, default=-1)
    made = [c for c in range(24) if me[c] >= 2]
    home_anchors = [c for c in made if c >= 18]
    outfield = [c for c in made if 12 <= c < 18]
    if home_anchors:
        forward = (24 - min(home_anchors)) / 6
    elif outfield:
        forward = (24 - min(outfield)) / 6
    else:
        forward = 2.0
    # the other side's escapes from its columns 12..24 through our points
    fewest = min(brute_escapes(c, me) for c in range(12, 25))
    total = int(me.sum())
    pips = sum(int(me[c]) * (c + 1) for c in range(25))
    mean = pips / total if total else 0.0
    moment = sum(int(me[c]) * (c + 1 - mean) ** 2 for c in range(25) if c + 1 > mean) / total if total else 0.0
    contain = 1 - fewest / 36
    return {
        "back_chequer": (rear + 1) / 25,
        "forward_anchor": forward,
        "deep_anchors": min(len(home_anchors), 3) / 3,
        "back_escapes": brute_escapes(rear, other) / 36 if rear >= 0 else 1.0,
        "contain36": contain,
        "contain36_sq": contain**2,
        "moment2": moment / 400,
    }


def test_contact3_features_equal_their_definitions_on_random_and_played_boards():
    for board in random_and_played_boards(29):
        x = encode("contact3", board)
        for side in range(2):
            got = features3(x, side)
            want = reference(board[side], board[1 - side])
            assert got == pytest.approx(want, abs=1e-6), (board.tolist(), side)


def test_contact3_features_on_the_opening_position():
    board = make_board({24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5})
    mine = features3(encode("contact3", board), 0)
    assert mine["back_chequer"] == pytest.approx(24 / 25)  # the back checkers on our 24 point (column 23)
    assert mine["forward_anchor"] == pytest.approx(1 / 6)  # the 24 point, one pip from the bar
    assert mine["deep_anchors"] == pytest.approx(1 / 3)
    # from our 24 point their 6, 8 and 13 points stand 5, 7 and 12 pips ahead: passing
    # the last needs 13+ pips, and every double's path lands on one of them
    assert mine["back_escapes"] == 0.0 == brute_escapes(23, board[1])


def test_a_full_prime_contains_every_roll():
    # our points 2..7 made: a checker behind them never escapes
    me = {p: 2 for p in range(2, 8)} | {13: 3}
    board = make_board(me, {24: 2, 19: 3, 6: 5, 8: 5})
    mine = features3(encode("contact3", board), 0)
    assert mine["contain36"] == 1.0 and mine["contain36_sq"] == 1.0
    theirs = features3(encode("contact3", board), 1)
    assert theirs["back_escapes"] == 0.0  # their 24-point checkers sit behind our prime


@njit(fastmath=True)
def _features_fast(board, out):
    """The features inlined into a caller compiled with fastmath, as the incremental
    first layer's kernels are: a division may become a multiplication there."""
    for side in range(2):
        mine, theirs = _side_summary(board[side]), _side_summary(board[1 - side])
        made, total, pips, rear = mine[1], mine[3], mine[4], mine[8]
        extra3_features(board[side], made, reverse24(theirs[1]), rear, total, pips, out, side * 7)


def test_the_features_are_the_same_bits_under_a_fastmath_caller():
    for board in random_and_played_boards(41):
        plain = encode("contact3", board)
        fast = np.zeros(14, np.float32)
        _features_fast(board, fast)
        want = np.r_[plain[CONTACT2_HALF:CONTACT3_HALF], plain[CONTACT3_HALF + CONTACT2_HALF :]]
        assert np.array_equal(fast, want), board.tolist()
