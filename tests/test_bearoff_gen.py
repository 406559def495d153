"""The bearoff database's ranking and move generation (``engine.eval.bearoff_gen``) against
an independent pure-Python reference and GNU Backgammon's numbering."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.eval.bearoff_gen import (
    NUM_POSITIONS,
    all_bearoff_positions,
    bearoff_index,
    bearoff_indices,
    bearoff_position,
    bearoff_successors,
)
from tests.bearoff_reference import ROLLS, py_successors

try:
    import gnubg_nn
except ImportError:  # optional test dependency
    gnubg_nn = None

needs_gnubg = pytest.mark.skipif(gnubg_nn is None, reason="gnubg_nn (GNU Backgammon) not installed")


@pytest.fixture(scope="module")
def positions() -> np.ndarray:
    return all_bearoff_positions()


# --- ranking ---------------------------------------------------------------------


def test_ranking_is_a_bijection_with_all_off_then_fewer_checkers_first(positions):
    assert NUM_POSITIONS == math.comb(21, 6) == 54264
    assert bearoff_index((0,) * 6) == 0 and bearoff_position(0) == (0,) * 6
    assert np.array_equal(bearoff_indices(positions), np.arange(NUM_POSITIONS))
    assert len({tuple(p) for p in positions}) == NUM_POSITIONS
    assert positions.min() >= 0 and positions.sum(axis=1).max() == 15
    for i in (1, 6, 7, 12345, NUM_POSITIONS - 1):
        assert bearoff_index(bearoff_position(i)) == i
    assert np.all(np.diff(positions.sum(axis=1)) >= 0)
    for bad in [(0,) * 5, (-1, 0, 0, 0, 0, 0), (16, 0, 0, 0, 0, 0), (8, 8, 0, 0, 0, 0)]:
        with pytest.raises(ValueError):
            bearoff_index(bad)
    for bad in (-1, NUM_POSITIONS):
        with pytest.raises(ValueError):
            bearoff_position(bad)


@needs_gnubg
def test_ranking_matches_gnubg_numbering(positions):
    for i in range(1, NUM_POSITIONS, 7):
        assert tuple(gnubg_nn.bearoff_id_2_pos(i)) == tuple(positions[i])


# --- move generation -------------------------------------------------------------


def test_successors_match_brute_force(positions):
    rng = np.random.default_rng(7)
    sample = list(rng.choice(NUM_POSITIONS, 250, replace=False)) + [1, 6, 27, NUM_POSITIONS - 1]
    for i in sample:
        counts = tuple(int(c) for c in positions[i])
        for a, b in ROLLS:
            expected = py_successors(counts, a, b)
            assert bearoff_successors(counts, a, b) == expected, (counts, a, b)
            # every move lowers the rank, which the one-pass generation relies on
            assert all(bearoff_index(s) < i for s in expected)


def test_brute_force_generator_on_hand_examples():
    # 6-5 with a checker on the 3 and the 1: both come off
    assert py_successors((1, 0, 1, 0, 0, 0), 6, 5) == {(0,) * 6}
    # 6-1 from the 6 and the 5: 6 off then 5 -> 4, or 6 -> 5 then a 5 off with the 6
    assert py_successors((0, 0, 0, 0, 1, 1), 6, 1) == {(0, 0, 0, 1, 0, 0), (0, 0, 0, 0, 1, 0)}
    # 2-2 with one checker on the 6: 6 -> 4 -> 2 -> off, fourth die unused
    assert py_successors((0, 0, 0, 0, 0, 1), 2, 2) == {(0,) * 6}
    # 5-4 with two on the 6: nothing can come off while the other is still on the 6
    assert py_successors((0, 0, 0, 0, 0, 2), 5, 4) == {(1, 1, 0, 0, 0, 0)}
