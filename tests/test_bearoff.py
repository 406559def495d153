"""One-sided bearoff database: distributions, two-sided use, cache, race evaluation
(its ranking and move generation: ``test_bearoff_gen``).

Reference values come from pure-Python code written apart (``bearoff_reference``:
brute-force move lists and an exact rational dynamic programme), from hand counts,
and from GNU Backgammon (gnubg_nn and its gnubg_os0.bd file) when installed.
"""

from __future__ import annotations

import logging
import math
import os
import time
from itertools import combinations_with_replacement
from pathlib import Path

import numpy as np
import pytest

from engine.eval import bearoff
from engine.eval.bearoff import BearoffDB, bearoff_probabilities, cache_dir, load_bearoff_db, race_probabilities
from engine.eval.bearoff_gen import (
    MAX_ROLLS,
    NUM_POSITIONS,
    all_bearoff_positions,
    bearoff_indices,
    gnubg_fixed_point_tables,
    read_gnubg_one_sided,
)
from engine.rules.position import has_contact
from tests.bearoff_reference import ROLLS, WEIGHT, exact_off, py_successors

try:
    import gnubg_nn
except ImportError:  # optional test dependency
    gnubg_nn = None

needs_gnubg = pytest.mark.skipif(gnubg_nn is None, reason="gnubg_nn (GNU Backgammon) not installed")

FIRST_FULL = 38760  # C(20, 6): first index with all 15 checkers on the board


@pytest.fixture(scope="session")
def cache_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("fibsbot-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FIBSBOT_CACHE_DIR", str(root))
        yield root


@pytest.fixture(scope="session")
def db(cache_root) -> BearoffDB:
    return load_bearoff_db()


@pytest.fixture(scope="session")
def positions() -> np.ndarray:
    return all_bearoff_positions()


def board_of(us, them) -> np.ndarray:
    board = np.zeros((2, 25), dtype=np.int8)
    board[0, :6], board[1, :6] = us, them
    return board


# --- distributions ---------------------------------------------------------------


def test_one_checker_by_hand(db):
    # rolls that move fewer pips than needed (a die bigger than the point bears off)
    fail = {1: 0, 2: 0, 3: 0, 4: 2, 5: 5, 6: 9}  # out of 36
    for point, misses in fail.items():
        dist = db.rolls_distribution(np.eye(6, dtype=int)[point - 1])
        assert dist[1] == pytest.approx((36 - misses) / 36, abs=1e-15)
        assert dist[2] == pytest.approx(misses / 36, abs=1e-15)
        assert dist[0] == 0 and dist[3:].sum() == 0
    # two on the six point: only 3-3 and higher doubles finish at once
    assert db.rolls_distribution((0, 0, 0, 0, 0, 2))[1] == pytest.approx(4 / 36, abs=1e-15)


def test_small_positions_match_exact_rational_dp(db):
    checked = 0
    for n in range(1, 5):
        for points in combinations_with_replacement(range(6), n):
            counts = tuple(points.count(p) for p in range(6))
            mean, dist = exact_off(counts)
            expected = np.zeros(MAX_ROLLS)
            expected[: len(dist)] = [float(p) for p in dist]
            assert np.abs(db.rolls_distribution(counts) - expected).max() < 1e-12, counts
            assert db.mean_rolls(counts) == pytest.approx(float(mean), abs=1e-12)
            checked += 1
    assert checked == math.comb(10, 6) - 1


def test_rows_are_distributions(db):
    for table in (db.off, db.first):
        assert table.shape == (NUM_POSITIONS, MAX_ROLLS) and table.dtype == np.float64
        assert table.min() >= 0.0 and np.abs(table.sum(axis=1) - 1.0).max() < 1e-12
        assert not table[:, -1].any()  # 32 columns are enough: the tail is exactly 0
    assert db.off[0, 0] == 1.0 and not db.off[1:, 0].any()
    # at most 30 rolls: 15 checkers on the six point, three pips a roll
    assert not db.off[:, 31:].any()


def test_first_checker_distribution(db, positions):
    assert np.all(db.first[:FIRST_FULL, 0] == 1.0)
    assert not db.first[FIRST_FULL:, 0].any()
    # P(first off in one roll) = P(some legal play of the roll bears a checker off)
    rng = np.random.default_rng(3)
    for i in rng.choice(np.arange(FIRST_FULL, NUM_POSITIONS), 60, replace=False):
        counts = tuple(int(c) for c in positions[i])
        p = sum(WEIGHT[a, b] for a, b in ROLLS if any(sum(s) < 15 for s in py_successors(counts, a, b)))
        assert db.first[i, 1] == pytest.approx(float(p), abs=1e-14)
    # 15 on the six point: a 6, 5-1, 4-2, 3-3 or 2-2 takes one off
    assert db.first_off_distribution((0, 0, 0, 0, 0, 15))[1] == pytest.approx(17 / 36, abs=1e-15)
    assert np.all(db.mean_first <= db.mean_off + 1e-12)


def test_more_checkers_never_help(db, positions):
    """Adding a checker never lowers the expected rolls.  (Moving one up a point
    can: 8 on the ace and 6 on the 3 wastes every 2, which a checker on the 2 uses.)"""
    base = positions[positions.sum(axis=1) < 15]
    for point in range(6):
        more = base.copy()
        more[:, point] += 1
        diff = db.mean_off[bearoff_indices(more)] - db.mean_off[bearoff_indices(base)]
        assert diff.min() >= -1e-12
    assert db.mean_rolls((8, 0, 6, 0, 0, 0)) - db.mean_rolls((7, 1, 6, 0, 0, 0)) > 0.25


# --- comparison with GNU Backgammon ----------------------------------------------


@pytest.fixture(scope="session")
def gnubg_tables():
    candidates = [Path("/usr/share/gnubg/gnubg_os0.bd")]
    if gnubg_nn is not None:
        candidates.append(Path(gnubg_nn.__file__).parent / "data" / "gnubg_os0.bd")
    path = next((p for p in candidates if p.exists()), None)
    if path is None:
        pytest.skip("gnubg_os0.bd (GNU Backgammon one-sided database) not found")
    return read_gnubg_one_sided(path)


def test_agrees_with_gnubg_database(db, gnubg_tables):
    """gnubg stores 16-bit fixed point and picks moves by the mean of those rounded
    numbers, so near-ties go the other way in a few thousand positions: agreement is
    to a few units of 1/65535 almost everywhere and 0.3% at worst; its means stay
    within its rounding of ours, which are exactly optimal."""
    off, first = (t / 65535.0 for t in gnubg_tables)
    if gnubg_nn is not None:  # our reading of the file agrees with gnubg's own
        for i in (1, 6, 27, 4151, NUM_POSITIONS - 1):
            theirs = np.array(gnubg_nn.bearoff_probabilities(i))  # from one roll on
            assert np.abs(off[i, 1 : 1 + len(theirs)] - theirs).max() < 1e-7
    diff = np.abs(db.off - off).max(axis=1)
    assert diff.max() < 3e-3
    assert np.mean(diff < 2e-5) > 0.85
    rolls = np.arange(MAX_ROLLS)
    assert np.abs(off @ rolls - db.mean_off).max() < 5e-4
    # the first-checker tables need few rounded choices: they agree to 2 units
    assert np.abs(db.first - first).max() < 3.1e-5


def test_gnubg_differences_are_its_rounding(gnubg_tables):
    """Replaying gnubg's fixed-point rule on our move generator reproduces its file
    to the last bit but for a few move-order ties, so the differences above come
    from its arithmetic, not from different rules or moves."""
    diff = np.abs(gnubg_fixed_point_tables() - gnubg_tables[0])
    assert diff.max() <= 1
    assert (diff.max(axis=1) > 0).sum() <= 10


@needs_gnubg
def test_probabilities_match_gnubg_one_sided_evaluation(db, positions):
    rng = np.random.default_rng(11)
    for i, j in rng.integers(1, NUM_POSITIONS, size=(300, 2)):
        board = board_of(positions[i], positions[j])
        gnubg_board = [board[1].tolist(), board[0].tolist()]  # gnubg: on roll last
        theirs = np.array(gnubg_nn.probabilities(gnubg_board, gnubg_nn.p_1sbear))
        assert np.abs(bearoff_probabilities(board) - theirs).max() < 5e-4  # seen: 1e-4


# --- two-sided use ---------------------------------------------------------------


def test_win_and_gammon_probabilities_by_hand(db):
    ace, six, two_sixes = (1, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 1), (0, 0, 0, 0, 0, 2)
    assert db.win_probability(board_of(ace, six)) == pytest.approx(1.0, abs=1e-15)
    assert db.win_probability(board_of(six, ace)) == pytest.approx(27 / 36, abs=1e-15)
    assert db.win_probability(board_of(two_sixes, ace)) == pytest.approx(4 / 36, abs=1e-15)
    full = (0, 0, 0, 0, 0, 15)
    probs = db.probabilities(board_of(ace, full))
    assert probs == pytest.approx([1.0, 1.0, 0.0, 0.0, 0.0], abs=1e-15)
    # they need one roll to finish; we cannot bear a checker off from 15 on the six
    # point unless our first roll does, and then we lose only if theirs finishes
    probs = db.probabilities(board_of(full, ace))
    p_first_off = db.first_off_distribution(full)[1]
    assert probs[0] == 0.0 and probs[3] == pytest.approx(1 - p_first_off, abs=1e-15)
    with pytest.raises(ValueError):  # not a bearoff position
        db.win_probability(board_of(ace, ace) + np.eye(2, 25, 7, dtype=np.int8))


def test_probabilities_are_consistent(db, positions):
    rng = np.random.default_rng(5)
    for _ in range(500):
        i, j = rng.integers(0, NUM_POSITIONS, size=2)
        if i == 0 and j == 0:
            continue
        board = board_of(positions[i], positions[j])
        win, gwin, bgwin, gloss, bgloss = db.probabilities(board)
        direct = sum(db.off[i, n] * db.off[j, n:].sum() for n in range(MAX_ROLLS))
        assert win == pytest.approx(direct, abs=1e-12) == db.win_probability(board)
        assert 0.0 <= gwin <= win <= 1.0 and 0.0 <= gloss <= 1.0 - win + 1e-15
        assert bgwin == bgloss == 0.0
        assert gwin == 0.0 or positions[j].sum() == 15
        assert gloss == 0.0 or positions[i].sum() == 15


# --- cache -----------------------------------------------------------------------


def test_missing_cache_is_generated_and_written_atomically(db, tmp_path, caplog):
    start = time.perf_counter()
    with caplog.at_level(logging.WARNING, logger="engine.eval.bearoff"):
        fresh = load_bearoff_db(tmp_path)  # numba already compiled by the session fixture
    assert time.perf_counter() - start < 10.0  # about 2.5 s here, writing included
    assert "missing" in caplog.text and np.array_equal(fresh.off, db.off)
    assert load_bearoff_db(tmp_path) is fresh  # in-process cache
    path = tmp_path / bearoff.CACHE_FILE
    assert path.exists() and not list(tmp_path.glob("*.tmp"))
    with np.load(path) as data:
        assert str(data["sha256"]) == bearoff._checksum(data["off"], data["first"])
        assert np.array_equal(data["first"], db.first)


@pytest.mark.parametrize("damage", ["truncate", "garbage", "tamper"])
def test_corrupt_cache_is_regenerated(db, cache_root, tmp_path, caplog, damage):
    path = tmp_path / bearoff.CACHE_FILE
    good = (cache_root / bearoff.CACHE_FILE).read_bytes()
    if damage == "tamper":  # a valid file whose numbers no longer match the checksum
        off = db.off.copy()
        off[100, 3] += 1e-9
        stale = bearoff._checksum(db.off, db.first)
        np.savez_compressed(path, off=off, first=db.first, sha256=stale)
    else:
        path.write_bytes(good[: len(good) // 2] if damage == "truncate" else b"not a zip")
    with caplog.at_level(logging.WARNING, logger="engine.eval.bearoff"):
        fresh = load_bearoff_db(tmp_path)
    assert "regenerating" in caplog.text
    assert np.array_equal(fresh.off, db.off) and np.array_equal(fresh.first, db.first)
    with np.load(path) as data:  # rewritten whole
        assert str(data["sha256"]) == bearoff._checksum(data["off"], data["first"])


def test_cache_dir_resolution(monkeypatch, tmp_path):
    monkeypatch.setenv("FIBSBOT_CACHE_DIR", str(tmp_path / "explicit"))
    assert cache_dir() == tmp_path / "explicit"
    monkeypatch.delenv("FIBSBOT_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "fibsbot"
    monkeypatch.delenv("XDG_CACHE_HOME")
    if os.name == "posix" and not os.uname().sysname == "Darwin":
        assert cache_dir() == Path.home() / ".cache" / "fibsbot"


# --- race estimate ---------------------------------------------------------------


def test_race_estimate_error_on_database_positions(db, positions):
    """There the estimate's means and variances are exact, so this measures the
    normal approximation; competitive races (means within a roll) are the hard part."""
    rng = np.random.default_rng(21)
    errors, close_errors = [], []
    while len(close_errors) < 400:
        i, j = rng.integers(1, NUM_POSITIONS, size=2)
        board = board_of(positions[i], positions[j])
        error = np.abs(race_probabilities(board) - db.probabilities(board))
        if len(errors) < 2000:
            errors.append(error)
        if abs(db.mean_off[i] - db.mean_off[j]) < 1.0:
            close_errors.append(error)
    errors, close_errors = np.array(errors), np.array(close_errors)
    assert errors[:, 0].mean() < 0.005 and errors[:, 0].max() < 0.03
    # measured: win MAE 0.003 (close races 0.004), worst 0.02; gammons worst 0.06
    assert close_errors[:, 0].mean() < 0.008 and close_errors[:, 0].max() < 0.03
    assert errors[:, [1, 3]].mean() < 0.005 and errors[:, [1, 3]].max() < 0.08


def random_race(rng) -> np.ndarray:
    while True:
        board = np.zeros((2, 25), dtype=np.int8)
        reach0 = int(rng.integers(5, 18))
        reach1 = int(rng.integers(5, 24 - reach0))
        for side, reach in ((0, reach0), (1, reach1)):
            cols = rng.integers(0, reach + 1, size=15)
            if rng.random() < 0.5:  # half of them nearer home
                cols = np.minimum(cols, rng.integers(0, reach + 1, size=15))
            np.add.at(board[side], cols, 1)
        if not has_contact(board):
            return board


@needs_gnubg
def test_race_estimate_against_gnubg_one_sided_rollouts(db):
    rng = np.random.default_rng(8)
    errors = []
    for board in (random_race(rng) for _ in range(200)):
        osr = gnubg_nn.probabilities([board[1].tolist(), board[0].tolist()], gnubg_nn.p_osr)
        errors.append(np.abs(race_probabilities(board) - np.array(osr)))
    errors = np.array(errors)
    # measured: win MAE 0.008, gammons 0.003-0.006, worst about 0.11; the rollouts
    # themselves are random (a few thousandths), hence the loose bounds on the worst
    assert errors[:, 0].mean() < 0.015 and errors[:, 0].max() < 0.15
    assert errors[:, [1, 3]].mean() < 0.01 and errors[:, [1, 3]].max() < 0.2


def test_race_estimate_shape_and_sanity(db):
    board = np.zeros((2, 25), dtype=np.int8)
    board[0, [5, 7, 12]] = 5  # ours: 5 each on the 6, 8 and 13 points
    board[1, :6] = (3, 3, 3, 2, 2, 2)
    probs = race_probabilities(board)
    assert probs.shape == (5,) and np.all((probs >= 0) & (probs <= 1))
    assert probs[0] < 0.01 and probs[3] > 0.1  # far behind, and gammon danger
    assert probs[1] <= probs[0] and probs[3] <= 1 - probs[0]
    contact = np.zeros((2, 25), dtype=np.int8)
    contact[0, 20], contact[1, 20] = 15, 15
    with pytest.raises(ValueError):
        race_probabilities(contact)
