"""What a position allows of its five probabilities, applied after every evaluation.

A net's outputs are estimates: nothing in them stops a gammon lost by a side that has
borne a checker off, or a backgammon lost in a race by a side with nothing left in
the winner's home board.  ``keep_possible`` puts them back within what the position
allows, as gnubg's evaluator does after each evaluation (its sanity check):

* probabilities in [0, 1], in cumulative order (backgammon <= gammon <= win, a
  gammon loss <= the loss);
* no gammon (nor backgammon) lost by a side that has borne a checker off;
* in a race (no contact left), bounds from how far each side still has to go.  A
  side needs ``crossings`` moves of a checker from one quadrant into the next (the
  bar, the other's home, the other's outer board, its own outer board, its home,
  off); no move of one die crosses more than one boundary, so a roll makes at most
  four.  A checker can always be moved six pips in two turns (three pips a roll at
  least, nothing blocking), so a side needs at most two turns a crossing.  From
  these: a certain win or loss, an impossible or certain gammon, and the same for a
  backgammon from the loser's checkers in the winner's home board (gnubg bounds that
  one with tables of its own; the crossings bound it cheaply);
* in contact, gammon and backgammon figures under 1/10000 are noise, and are 0.

A side with every checker in its home board finishes within ``home_max_turns``
rolls, the most any roll sequence takes in the one-sided bearoff database
(``engine.eval.bearoff``), in closed form: equal to the database's for all 54,264
home boards (``tests/test_sanity.py``).

Every rule is decided by the board alone: ``keep_possible`` for the side in row 0 on
roll, ``keep_possible_flipped`` for row 1 (a result as the side to roll next sees it,
without a flipped copy).  This runs after every evaluation, so it is compiled into its
callers (inline) and reads the board in place (a call of its own and views of the
board's rows cost a small net's evaluation 14-15% more, measured; inline, the check
adds about 6-10% to the pruning and race nets' and 3% to the default contact net's);
the usual contact position costs a scan for each side's rearmost checker and a sum of
its checkers.
"""

from __future__ import annotations

import numpy as np
from numba import njit

NOISE = 1.0e-4  # gnubg's: a contact position's gammon figure below this is 0
# columns of a row: 0-5 its home board, 6-11 its outer board, 12-17 the other's outer
# board, 18-23 the other's home board, 24 the bar; a column's quadrant is column // 6
THEIR_HOME = 18
BAR = 24


@njit(cache=True, inline="always")
def _rearmost(board, side):
    """The highest occupied column of a side's row (-1 where it is empty)."""
    for i in range(BAR, -1, -1):
        if board[side, i] > 0:
            return i
    return -1


@njit(cache=True, inline="always")
def _checkers(board, side):
    total = np.int64(0)
    for i in range(BAR + 1):
        total += board[side, i]
    return total


@njit(cache=True, inline="always")
def home_max_turns(board, side):
    """The most rolls a side with every checker in its home board can need to bear
    them all off: each roll brings at least three pips and at least two dice, and a
    checker on point p needs at least ceil(p / 2) dice (those of a 2-1 roll)."""
    pips = np.int64(0)
    dice = np.int64(0)
    for i in range(6):
        n = np.int64(board[side, i])
        pips += n * (i + 1)
        dice += n * ((i + 2) // 2)
    return max((pips + 2) // 3, (dice + 1) // 2)


@njit(cache=True, inline="always")
def _race_counts(board, side, back):
    """(crossings to bear every checker off, crossings to save the gammon: all home
    and one off, checkers in the other's home board, the most rolls it can take)."""
    crossings = np.int64(0)
    gammon_crossings = np.int64(1)
    stragglers = np.int64(0)
    for i in range(back + 1):
        n = np.int64(board[side, i])
        quadrant = i // 6  # the bar's is 4: five crossings, four to come home
        crossings += n * (quadrant + 1)
        gammon_crossings += n * quadrant
        if i >= THEIR_HOME:
            stragglers += n
    turns = home_max_turns(board, side) if back < 6 else 2 * crossings
    return crossings, gammon_crossings, stragglers, turns


@njit(cache=True, inline="always")
def _unit(p):
    return min(max(p, 0.0), 1.0)


@njit(cache=True, inline="always")
def _keep(board, me, probs):
    """``probs``, the five of the side on roll (``board``'s row ``me``), within what the
    position allows, in place."""
    they = 1 - me
    win = _unit(probs[0])
    win_g, win_bg = _unit(probs[1]), _unit(probs[2])
    lose_g, lose_bg = _unit(probs[3]), _unit(probs[4])
    my_back = _rearmost(board, me)
    their_back = _rearmost(board, they)
    contact = my_back >= 0 and their_back >= 0 and my_back + their_back >= 24
    if contact:
        if _checkers(board, they) < 15:
            win_g = win_bg = 0.0
        if _checkers(board, me) < 15:
            lose_g = lose_bg = 0.0
    else:
        my_cross, my_gammon_cross, my_stragglers, my_turns = _race_counts(board, me, my_back)
        their_cross, their_gammon_cross, their_stragglers, their_turns = _race_counts(board, they, their_back)
        my_turns = max(my_turns, 1)
        # the side on roll finishes on its roll ``my_turns`` at the latest, after
        # ``my_turns - 1`` of the other's; the other side on its ``their_turns``-th,
        # after as many of the side on roll's
        if their_cross > 4 * (my_turns - 1):
            win = 1.0
        if _checkers(board, they) < 15:
            win_g = win_bg = 0.0
        else:
            if my_cross > 8 * their_gammon_cross:
                win_g = 0.0
            elif their_gammon_cross > 4 * (my_turns - 1):
                win_g = 1.0
            if my_cross > 8 * their_stragglers:
                win_bg = 0.0
            elif their_stragglers > 4 * (my_turns - 1):
                win_bg = 1.0
        if my_cross > 4 * their_turns:
            win = 0.0
        if _checkers(board, me) < 15:
            lose_g = lose_bg = 0.0
        else:
            if their_cross > 8 * my_gammon_cross - 4:
                lose_g = 0.0
            elif my_gammon_cross > 4 * their_turns:
                lose_g = 1.0
            if their_cross > 8 * my_stragglers - 4:
                lose_bg = 0.0
            elif my_stragglers > 4 * their_turns:
                lose_bg = 1.0
    win_g = min(win_g, win)
    lose_g = min(lose_g, 1.0 - win)
    win_bg = min(win_bg, win_g)
    lose_bg = min(lose_bg, lose_g)
    if contact:
        win_g = 0.0 if win_g < NOISE else win_g
        win_bg = 0.0 if win_bg < NOISE else win_bg
        lose_g = 0.0 if lose_g < NOISE else lose_g
        lose_bg = 0.0 if lose_bg < NOISE else lose_bg
    probs[0] = win
    probs[1] = win_g
    probs[2] = win_bg
    probs[3] = lose_g
    probs[4] = lose_bg


@njit(cache=True, inline="always")
def keep_possible(board, probs):
    """Keep ``probs`` (the five of the side on roll, ``board``'s row 0) within what the
    position allows, in place."""
    _keep(board, 0, probs)


@njit(cache=True, inline="always")
def keep_possible_flipped(board, probs):
    """``keep_possible`` of the five of the side in row 1, on roll: a result of a move
    (mover in row 0) as the side to roll next sees it."""
    _keep(board, 1, probs)
