"""One-sided bearoff database and race evaluation built on it.

``load_bearoff_db()`` returns the exact distributions of ``engine.eval.bearoff_gen`` for
all 54,264 ways to place up to 15 checkers on six points, generated once and kept
in a checksummed ``.npz`` cache.  On top of it:

* ``bearoff_probabilities(board)``: gnubg's five outputs for a position where both
  sides are entirely on their six home points (one-sided approximation: each side
  plays to minimise its own expected rolls, so it is not exact when the sides
  interact, e.g. when a gammon is at stake);
* ``race_probabilities(board)``: an estimate for any race without contact, from the
  database plus a normal approximation (see there).

Boards use the layout of ``engine.rules.position`` (row 0 on roll, column i = point i+1).
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from engine.eval.bearoff_gen import (
    MAX_ROLLS,
    NUM_POINTS,
    NUM_POSITIONS,
    bearoff_index,
    bearoff_position,
    generate_bearoff_tables,
)
from engine.jit_cache import cache_dir  # the engine's one cache folder, beside numba's code
from engine.rules.position import has_contact

__all__ = [
    "BearoffDB",
    "bearoff_index",
    "bearoff_position",
    "bearoff_probabilities",
    "cache_dir",
    "load_bearoff_db",
    "race_probabilities",
]

log = logging.getLogger(__name__)

# bump whenever generation changes, so stale caches are rebuilt rather than trusted
DB_FORMAT_VERSION = 1
CACHE_FILE = f"bearoff_os6x15_v{DB_FORMAT_VERSION}.npz"

# pips of one roll: mean 49/6, variance 3346/108 - (49/6)**2 (doubles count four times)
PIPS_PER_ROLL = 49.0 / 6.0
_ROLL_PIPS = np.array([(4 * a if a == b else a + b) for a in range(1, 7) for b in range(1, 7)], dtype=np.float64)
PIP_VARIANCE_PER_ROLL = float(_ROLL_PIPS.var())


def _checksum(off: np.ndarray, first: np.ndarray) -> str:
    digest = hashlib.sha256()
    for array in (off, first):
        array = np.ascontiguousarray(array, dtype=np.float64)
        digest.update(str(array.shape).encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def _tail(dist: np.ndarray) -> np.ndarray:
    """P(T >= n) for n = 0..MAX_ROLLS (one extra zero column for n past the end)."""
    tail = np.zeros((dist.shape[0], dist.shape[1] + 1))
    tail[:, :-1] = np.cumsum(dist[:, ::-1], axis=1)[:, ::-1]
    return np.clip(tail, 0.0, 1.0)


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


@dataclass(frozen=True, eq=False)
class BearoffDB:
    """Distributions of the number of rolls, one row per ``bearoff_index``.

    ``off[i, n]``: P(all checkers off in exactly n rolls), optimal play for the mean;
    ``first[i, n]``: P(first checker off in exactly n rolls), with play that minimises
    the mean of that count (0 rolls if a checker is already off).
    """

    off: np.ndarray
    first: np.ndarray
    if TYPE_CHECKING:  # set in __post_init__, not fields of the dataclass
        mean_off: np.ndarray = field(init=False)
        mean_first: np.ndarray = field(init=False)
        var_off: np.ndarray = field(init=False)
        var_first: np.ndarray = field(init=False)
        tail_off: np.ndarray = field(init=False)
        tail_first: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        rolls = np.arange(MAX_ROLLS, dtype=np.float64)
        derived = {
            "mean_off": self.off @ rolls,
            "mean_first": self.first @ rolls,
            "tail_off": _tail(self.off),
            "tail_first": _tail(self.first),
        }
        derived["var_off"] = np.maximum(self.off @ rolls**2 - derived["mean_off"] ** 2, 0.0)
        derived["var_first"] = np.maximum(self.first @ rolls**2 - derived["mean_first"] ** 2, 0.0)
        for name in ("off", "first"):
            _frozen(getattr(self, name))
        for name, array in derived.items():
            object.__setattr__(self, name, _frozen(array))

    def mean_rolls(self, counts6) -> float:
        """Expected rolls to bear off everything from checkers on points 1..6."""
        return float(self.mean_off[bearoff_index(counts6)])

    def rolls_distribution(self, counts6) -> np.ndarray:
        return self.off[bearoff_index(counts6)].copy()

    def first_off_distribution(self, counts6) -> np.ndarray:
        return self.first[bearoff_index(counts6)].copy()

    def win_probability(self, board) -> float:
        """P(side on roll bears off first): it wins needing n rolls when the
        opponent needs n or more, because it rolls first."""
        us, them = _bearoff_indices(board)
        return min(float(self.off[us] @ self.tail_off[them, :MAX_ROLLS]), 1.0)

    def probabilities(self, board) -> np.ndarray:
        """[win, gammon win, backgammon win, gammon loss, backgammon loss], cumulative
        as gnubg's (a win includes its gammons); backgammons cannot happen here."""
        us, them = _bearoff_indices(board)
        win = min(float(self.off[us] @ self.tail_off[them, :MAX_ROLLS]), 1.0)
        # our n-th roll comes before their n-th: gammon when they need >= n to start
        gammon_win = float(self.off[us] @ self.tail_first[them, :MAX_ROLLS])
        # their m-th roll comes after our m-th: gammon when we need >= m + 1 to start
        gammon_loss = float(self.off[them] @ self.tail_first[us, 1:])
        # the two optimal plays differ, so clip the rare inconsistency of the product
        gammon_win = min(gammon_win, win)
        gammon_loss = min(gammon_loss, max(1.0 - win, 0.0))
        return np.array([win, gammon_win, 0.0, gammon_loss, 0.0])


def _as_board(board) -> np.ndarray:
    board = np.asarray(getattr(board, "board", board))
    if board.shape != (2, 25):
        raise ValueError(f"board must have shape (2, 25), got {board.shape}")
    return board


def _bearoff_indices(board) -> tuple[int, int]:
    board = _as_board(board)
    if board[:, NUM_POINTS:].any():
        raise ValueError("not a bearoff position: a checker is outside the home board")
    return bearoff_index(board[0, :NUM_POINTS]), bearoff_index(board[1, :NUM_POINTS])


def _read_cache(path: Path) -> BearoffDB | None:
    try:
        with np.load(path, allow_pickle=False) as data:
            off, first = data["off"], data["first"]
            stored = str(data["sha256"])
    except Exception as exc:  # noqa: BLE001 - any unreadable file is simply rebuilt
        log.warning("bearoff cache %s unreadable (%s); regenerating", path, exc)
        return None
    expected_shape = (NUM_POSITIONS, MAX_ROLLS)
    if off.shape != expected_shape or first.shape != expected_shape:
        log.warning("bearoff cache %s has wrong shapes; regenerating", path)
        return None
    if _checksum(off, first) != stored:
        log.warning("bearoff cache %s fails its checksum; regenerating", path)
        return None
    return BearoffDB(off.astype(np.float64, copy=False), first.astype(np.float64, copy=False))


def _write_cache(path: Path, off: np.ndarray, first: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    # a reader (another process) must see either the old file or the whole new one
    fd, tmp = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez_compressed(fh, off=off, first=first, sha256=np.array(_checksum(off, first)))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


_loaded: dict[Path, BearoffDB] = {}
_lock = threading.Lock()


def load_bearoff_db(directory: str | os.PathLike | None = None) -> BearoffDB:
    """The database, from memory, else the cache file, else generated (and cached).

    A missing, unreadable or corrupt cache file is regenerated; failing to write the
    cache only costs a warning, since the tables are already in memory.
    """
    path = Path(directory).expanduser() if directory is not None else cache_dir()
    path = path / CACHE_FILE
    with _lock:
        db = _loaded.get(path)
        if db is not None:
            return db
        db = _read_cache(path) if path.exists() else None
        if db is None:
            if not path.exists():
                log.warning("bearoff cache %s missing; generating", path)
            off, first = generate_bearoff_tables()
            try:
                _write_cache(path, off, first)
            except OSError as exc:
                log.warning("could not write bearoff cache %s: %s", path, exc)
            db = BearoffDB(off, first)
        _loaded[path] = db
        return db


def bearoff_probabilities(board) -> np.ndarray:
    """gnubg's five outputs for a position with both sides on their home points."""
    return load_bearoff_db().probabilities(board)


# --- longer races -------------------------------------------------------------------
#
# One-sided normal approximation.  For each side, checkers outside the home board are
# imagined carried to the six point ("home'"), which costs ``excess`` pips:
#
#   mean T  = mean_DB(home') + excess / (49/6) + OUTSIDE_PENALTY_ROLLS [if any outside]
#   var  T  = var_DB(home')  + excess * var_pips / (49/6)**3
#
# the second term of the variance being the renewal-theory variance of the number of
# rolls needed to cover ``excess`` pips.  T_first (rolls to the first checker off,
# zero once one is off) uses the ``first`` tables the same way, its mean averaged
# with the dice needed to carry every outside checker home (7/3 dice a roll).  The
# side on roll wins when T_us <= T_them, hence, with a continuity correction of half
# a roll,
#
#   P(win) = Phi((mean T_them - mean T_us + 1/2) / sqrt(var T_us + var T_them))
#
# and likewise gammons with T_first of the loser in place of its T.  Backgammons need
# the loser still in the winner's home board: rolls to clear it are estimated from the
# pips those checkers need to leave it, with the same renewal formulas.
#
# On database positions excess is 0 and means and variances are exact, so the error
# there is that of the normal approximation alone; the half-roll correction and unit
# variance scale minimise it over random database pairs (tests measure it).  The
# penalty for checkers still outside, and the averaging for T_first, were chosen
# against gnubg's one-sided rollouts (OSR) of random races: carrying checkers home
# leaves them deeper than the six point, which costs a little more than the pips say,
# and the averaging halved the gammon error of either estimate alone.  Measured
# (tests): P(win) off by 0.003 on average on database pairs (0.02 at worst), and by
# 0.008 on average against OSR on random longer races (0.11 at worst).
OUTSIDE_PENALTY_ROLLS = 0.1


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def _pips_rolls(pips: float) -> tuple[float, float]:
    """Mean and variance of the rolls needed to move ``pips`` pips, for large pips."""
    return pips / PIPS_PER_ROLL, pips * PIP_VARIANCE_PER_ROLL / PIPS_PER_ROLL**3


def _expected_dice(max_distance: int) -> np.ndarray:
    """m[e]: expected number of dice (1..6) one checker needs to travel e pips."""
    m = np.zeros(max_distance + 1)
    for e in range(1, max_distance + 1):
        m[e] = 1.0 + sum(m[max(e - d, 0)] for d in range(1, 7)) / 6.0
    return m


_DICE_TO_TRAVEL = _expected_dice(25)
DICE_PER_ROLL = (2 * 30 + 4 * 6) / 36.0  # doubles play four dice


def _side_moments(db: BearoffDB, row: np.ndarray) -> tuple[float, float, float, float]:
    """(mean, var) of rolls to bear off all, then of rolls to bear off the first."""
    row = row.astype(np.int64)
    outside = row[NUM_POINTS:]
    distance = np.arange(NUM_POINTS + 1, 26) - NUM_POINTS  # pips to reach the six point
    excess = float(np.dot(outside, distance))
    home = row[:NUM_POINTS].copy()
    home[NUM_POINTS - 1] += int(outside.sum())
    index = bearoff_index(home)
    carry_mean, carry_var = _pips_rolls(excess)
    if outside.any():
        carry_mean += OUTSIDE_PENALTY_ROLLS
    mean_first, var_first = 0.0, 0.0
    if db.first[index, 0] < 1.0:  # all 15 still on the board
        mean_first = db.mean_first[index] + carry_mean
        var_first = db.var_first[index] + carry_var
        if outside.any():
            # the pip count lets one die carry several checkers home; the dice count
            # does not let the last roll bear off: average the optimist and pessimist
            dice = float(np.dot(outside, _DICE_TO_TRAVEL[distance])) / DICE_PER_ROLL
            mean_first = 0.5 * (mean_first + dice)
    return (
        db.mean_off[index] + carry_mean,
        db.var_off[index] + carry_var,
        mean_first,
        var_first,
    )


def _p_first(mean_a: float, var_a: float, mean_b: float, var_b: float) -> float:
    """P(T_a <= T_b) for independent integer counts, normal approximation."""
    var = var_a + var_b
    if var <= 0.0:
        return 1.0 if mean_a <= mean_b else 0.0
    return _phi((mean_b - mean_a + 0.5) / math.sqrt(var))


def _clear_home_moments(row: np.ndarray) -> tuple[float, float] | None:
    """Rolls for the (losing) owner of ``row`` to get every checker out of the other
    side's home board (its own points 19..25); None when none is there."""
    stuck = row[18:].astype(np.int64)
    if not stuck.any():
        return None
    pips = float(np.dot(stuck, np.arange(19, 26) - 18))
    mean, var = _pips_rolls(pips)
    return max(mean, 1.0), var


def race_probabilities(board) -> np.ndarray:
    """Estimated [win, gammon win, backgammon win, gammon loss, backgammon loss] for a
    race (no contact) with the side on roll to play; see the comment above."""
    board = _as_board(board)
    if has_contact(board):
        raise ValueError("race_probabilities needs a position without contact")
    db = load_bearoff_db()
    us = _side_moments(db, board[0])
    them = _side_moments(db, board[1])
    win = _p_first(us[0], us[1], them[0], them[1])
    gammon_win = gammon_loss = backgammon_win = backgammon_loss = 0.0
    if board[1].sum() == 15:
        gammon_win = min(win, _p_first(us[0], us[1], them[2], them[3]))
        clear = _clear_home_moments(board[1])
        if clear is not None:
            backgammon_win = min(gammon_win, _p_first(us[0], us[1], *clear))
    if board[0].sum() == 15:
        # they win when T_them <= T_us - 1, i.e. T_them < T_us
        gammon_loss = min(1.0 - win, 1.0 - _p_first(us[2], us[3], them[0], them[1]))
        clear = _clear_home_moments(board[0])
        if clear is not None:
            backgammon_loss = min(gammon_loss, 1.0 - _p_first(*clear, them[0], them[1]))
    return np.array([win, gammon_win, backgammon_win, gammon_loss, backgammon_loss])
