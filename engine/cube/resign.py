"""Resignations: when to offer one, and whether to accept one.

Offering is exact or nothing: only in a race without contact, with the opponent's
checkers all home (where the one-sided bearoff database gives the most rolls their
bear-off can take), do we prove that we cannot win, and which results are still
possible (single, gammon, backgammon).  We offer only when every result still
possible is worth the same to the opponent (the cube and the match score cap what
a result is worth), and then the smallest level worth that: never a gammon while it
can still be saved, never a single while a gammon is still possible.

Accepting compares the offer with what playing on is worth to us: our cubeful
equity after the proper cube action (``engine.cube.decision``), in match play as match
winning chances (through gnubg's EMG, which preserves their order).  An offer that
covers every result still possible in a race is accepted without asking the net.

Boards are seen from "us": row 0 = us, row 1 = the opponent, each in its own
numbering; ``on_roll`` says whether we are the side on roll; probabilities are ours
(five cumulative floats) in the actual situation, whoever is on roll.
"""

from __future__ import annotations

import math

import numpy as np

from engine.cube.decision import cube_decision, cube_life, invert_probabilities
from engine.cube.met import ME, CubeView, mwc_to_equity
from engine.eval.bearoff import bearoff_index, load_bearoff_db
from engine.rules.ids import CENTRED, MatchState
from engine.rules.position import NUM_CHECKERS, has_contact

NONE, SINGLE, GAMMON, BACKGAMMON = 0, 1, 2, 3
HOME = 6
THEIR_HOME = slice(18, 25)  # their home board (our points 19-24) and our bar
MAX_PIPS_PER_ROLL = 24  # double sixes
MAX_DICE_PER_ROLL = 4


class ResignError(ValueError):
    """A resignation question about a malformed board, level or state."""


def _rolls_support(distribution: np.ndarray) -> tuple[int, int]:
    """Fewest and most rolls with non-zero probability."""
    rolls = np.nonzero(distribution > 0.0)[0]
    return int(rolls.min()), int(rolls.max())


def _min_rolls_to_bear_off(row: np.ndarray) -> int:
    """A lower bound on the rolls ``row``'s owner needs to bear everything off."""
    pips = int(np.dot(row.astype(np.int64), np.arange(1, 26)))
    return max(math.ceil(pips / MAX_PIPS_PER_ROLL), math.ceil(int(row.sum()) / MAX_DICE_PER_ROLL))


def _min_rolls_to_first_off(row: np.ndarray) -> int:
    """A lower bound on the rolls to bear off a first checker: every checker brought
    home, then one more pip at least."""
    outside = row[HOME:].astype(np.int64)
    if not outside.any():
        return 1
    excess = int(np.dot(outside, np.arange(HOME + 1, 26) - HOME))
    return max(math.ceil((excess + 1) / MAX_PIPS_PER_ROLL), math.ceil((int(outside.sum()) + 1) / MAX_DICE_PER_ROLL))


def _min_rolls_to_leave_their_home(row: np.ndarray) -> int:
    stuck = row[THEIR_HOME].astype(np.int64)
    if not stuck.any():
        return 0
    pips = int(np.dot(stuck, np.arange(19, 26) - 18))
    return max(math.ceil(pips / MAX_PIPS_PER_ROLL), math.ceil(int(stuck.sum()) / MAX_DICE_PER_ROLL))


def race_outcomes(board: np.ndarray, *, on_roll: bool) -> frozenset[int] | None:
    """The results (1, 2, 3) still possible for row 0 as the certain loser of a race,
    or None when row 0 may still win (or its loss cannot be proved).

    Proved only without contact and with row 1 all home; row 1 is assumed to bear
    off as the database plays (it cannot take more rolls than the worst case there).
    """
    board = np.asarray(board)
    if board.shape != (2, 25):
        raise ResignError(f"board must have shape (2, 25), got {board.shape}")
    us, them = board[0], board[1]
    if them.sum() == 0 or us.sum() == 0 or has_contact(board) or them[HOME:].any():
        return None
    db = load_bearoff_db()
    them_fewest, them_most = _rolls_support(db.off[bearoff_index(them[:HOME])])
    # our n-th roll comes before their n-th when we are on roll, after it otherwise
    rolls_before_their_last = them_most if on_roll else them_most - 1
    rolls_before_their_first_chance = them_fewest if on_roll else them_fewest - 1
    if _min_rolls_to_bear_off(us) <= rolls_before_their_last:
        return None
    if us.sum() < NUM_CHECKERS:
        return frozenset({SINGLE})
    gammon_certain = _min_rolls_to_first_off(us) > rolls_before_their_last
    gammon_saved = False
    if not us[HOME:].any():
        _, our_most_first = _rolls_support(db.first[bearoff_index(us[:HOME])])
        gammon_saved = our_most_first <= rolls_before_their_first_chance
    if gammon_saved:
        return frozenset({SINGLE})
    possible = {GAMMON} if gammon_certain else {SINGLE, GAMMON}
    if us[THEIR_HOME].any():
        possible.add(BACKGAMMON)
        if _min_rolls_to_leave_their_home(us) > rolls_before_their_last and gammon_certain:
            possible.discard(GAMMON)
    return frozenset(possible)


def _our_player(state: MatchState, on_roll: bool) -> int:
    return state.on_roll if on_roll else 1 - state.on_roll


def _effective_points(level: int, view: CubeView) -> float:
    """What winning ``level`` is worth to the view's player, capped where more cannot
    matter: beyond the points that end the match, or gammons under the Jacoby rule."""
    if view.money:
        return 1.0 if view.jacoby and view.owner == CENTRED else float(level)
    return float(min(level * view.cube, view.away[ME]))


def resignation_to_offer(board: np.ndarray, probs, state: MatchState, *, on_roll: bool) -> int:
    """0 (play on), or 1/2/3 to resign a single game, a gammon or a backgammon.

    ``probs`` (ours) are not needed by the proof and may be None; they are checked
    when given, so a caller mixing up sides is told at once.
    """
    if probs is not None:
        _check_probs(probs)
    outcomes = race_outcomes(board, on_roll=on_roll)
    if not outcomes:
        return NONE
    # the opponent's view of the points: what each of our losses gives them
    view = CubeView.of(state, 1 - _our_player(state, on_roll))
    worth = {level: _effective_points(level, view) for level in outcomes}
    if len(set(worth.values())) != 1:
        return NONE
    value = next(iter(worth.values()))
    return min(level for level in (SINGLE, GAMMON, BACKGAMMON) if _effective_points(level, view) >= value)


def _check_probs(probs) -> np.ndarray:
    p = np.asarray(probs, dtype=np.float64).reshape(-1)
    if p.shape != (5,) or not np.all(np.isfinite(p)) or np.any(p < -1e-6) or np.any(p > 1 + 1e-6):
        raise ResignError(f"expected our 5 probabilities in 0..1, got {probs!r}")
    return np.clip(p, 0.0, 1.0)


def play_on_equity(board: np.ndarray, probs, state: MatchState, *, on_roll: bool) -> float:
    """Our cubeful equity of playing on (EMG in a match), normalised to the cube."""
    p = _check_probs(probs)
    board = np.asarray(board)
    if on_roll:
        return cube_decision(p, state, cube_life=cube_life(board)).best_equity
    theirs = cube_decision(invert_probabilities(p), state, cube_life=cube_life(board[::-1]))
    return -theirs.best_equity


def accept_resignation(
    board: np.ndarray, probs, state: MatchState, offered_level: int, *, on_roll: bool, play_on: float | None = None
) -> bool:
    """True when winning ``offered_level`` now is worth at least playing on: our
    cubeful equity after the proper cube action, ``play_on`` where the caller looked
    deeper (``engine.cube.cubeful``), else Janowski's from ``probs``."""
    if offered_level not in (SINGLE, GAMMON, BACKGAMMON):
        raise ResignError(f"a resignation is 1 (single), 2 (gammon) or 3 (backgammon), got {offered_level!r}")
    board = np.asarray(board)
    view = CubeView.of(state, _our_player(state, on_roll))
    offered = _effective_points(offered_level, view)
    their_outcomes = race_outcomes(board[::-1], on_roll=not on_roll)
    if their_outcomes and all(_effective_points(level, view) <= offered for level in their_outcomes):
        return True
    if view.money:
        resign_value = float(offered_level)
    else:
        resign_value = mwc_to_equity(view.mwc(ME, offered_level * view.cube, winner=ME), view)
    if play_on is None:
        play_on = play_on_equity(board, probs, state, on_roll=on_roll)
    return resign_value >= play_on - 1e-9
