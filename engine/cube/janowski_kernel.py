"""Janowski's cubeful values for one position at a time, as numba kernels.

``engine.cube.janowski`` turns many positions' probabilities into cubeful values at
once with numpy, for the lookahead; a cubeful rollout needs the same figures one
position at a time inside its compiled game loop, for every cube decision and every
candidate move.  The functions here compute exactly what ``engine.cube.janowski``
computes (gnubg's ``Cl2CfMoney`` and ``Cl2CfMatch``; ``tests/test_janowski_kernel.py``
checks them against it), on plain scalars.

A game is seen in absolute terms: player 0 is the side on roll when the rollout
starts, player 1 the other.  The cube is a value and an owner (-1 centred, else the
player who holds it).  ``CubeRules`` carries what a game cannot change: money or
match, Jacoby, beavers, the Crawford game, and for a match every match winning
chance a game's end can give (``outcome_mwc``).  Values are a player's own: money
in points (the per-cube equity times the cube), a match in match winning chance.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from engine.cube.janowski import (
    BEAROFF_CUBE_LIFE,
    CONTACT_CUBE_LIFE,
    RACE_LIFE_BASE,
    RACE_LIFE_MAX,
    RACE_LIFE_MIN,
    RACE_LIFE_PER_PIP,
)
from engine.cube.met import ME, THEM, CubeView
from engine.rules.ids import CENTRED

_EPSILON = 1e-7  # gnubg's guard against dividing by a (nearly) impossible outcome
_OPTIONAL = 1e-5  # gnubg's isOptional: cube values closer than this (normalised) are equal
MAX_CUBE = 1 << 15  # the Match ID's cube field

# what a side on roll does with the cube (gnubg's cube decisions, as a rollout plays them)
NO_DOUBLE = 0
DOUBLE_TAKE = 1
DOUBLE_DROP = 2
DOUBLE_BEAVER = 3


class CubeRules(NamedTuple):
    """What a game's cube play cannot change, player 0 being the side on roll at its start."""

    money: bool
    jacoby: bool  # money only: gammons count once the cube has been turned
    beavers: bool  # money only: a taker may redouble at once, keeping the cube
    crawford: bool  # this game is the Crawford game: nobody may double
    away: np.ndarray  # int64[2]: points each player still needs (0, 0 in money play)
    outcome_mwc: np.ndarray  # float64[2, 2, P]: [player, winner, points] MWC of player after the game


def cube_rules(view: CubeView) -> CubeRules:
    """The rules of a game seen by ``view`` (the side on roll is player 0)."""
    away = np.array(view.away, np.int64)
    if view.money:
        table = np.zeros((2, 2, 1))
    else:
        # a winner's points beyond what it needs are worth what winning the match is
        most = int(max(view.away))
        table = np.empty((2, 2, most + 1))
        for player in (ME, THEM):
            for winner in (ME, THEM):
                for points in range(most + 1):
                    table[player, winner, points] = view.mwc(player, max(points, 1), winner=winner)
    jacoby = view.money and view.jacoby
    return CubeRules(view.money, jacoby, view.money and view.beavers, view.crawford, away, table)


def cube_owner(view: CubeView) -> int:
    """The owner of ``view``'s cube in a game's absolute terms (-1 centred, else player)."""
    return CENTRED if view.owner == CENTRED else (0 if view.owner == ME else 1)


@njit(cache=True, inline="always")
def _mwc(rules, player, winner, points):
    table = rules.outcome_mwc
    return table[player, winner, min(points, table.shape[2] - 1)]


@njit(cache=True)
def cube_life(board, on_roll_row):
    """gnubg's cube efficiency of ``board`` with the side of row ``on_roll_row`` on roll
    (``engine.cube.janowski.cube_lives`` for one board)."""
    rear0 = -1
    rear1 = -1
    for k in range(25):
        if board[0, k] > 0:
            rear0 = k
        if board[1, k] > 0:
            rear1 = k
    if rear0 >= 0 and rear1 >= 0 and rear0 + rear1 >= 24:
        return CONTACT_CUBE_LIFE
    if rear0 < 6 and rear1 < 6:
        return BEAROFF_CUBE_LIFE
    pips = 0
    for k in range(25):
        pips += board[on_roll_row, k] * (k + 1)
    return min(max(pips * RACE_LIFE_PER_PIP + RACE_LIFE_BASE, RACE_LIFE_MIN), RACE_LIFE_MAX)


# ---------------------------------------------------------------- money play


@njit(cache=True)
def money_per_cube(p, owner_rel, jacoby, x):
    """gnubg's Cl2CfMoney: the cubeful equity per cube of the side on roll, whose five
    probabilities are ``p``; ``owner_rel`` -1 centred, 0 the side on roll, 1 the other."""
    gammon_value = 0.0 if (jacoby and owner_rel == CENTRED) else 1.0
    dead = 2.0 * p[0] - 1.0 + (p[1] - p[3]) * gammon_value + (p[2] - p[4]) * gammon_value
    win = p[0]
    if win <= _EPSILON or win >= 1.0 - _EPSILON:
        return dead
    w = 1.0 + (p[1] + p[2]) / win
    lose = 1.0 + (p[3] + p[4]) / (1.0 - win)
    take = (lose - 0.5) / (w + lose + 0.5)
    cash = (lose + 1.0) / (w + lose + 0.5)
    above_cash = 1.0 + (w - 1.0) * (win - cash) / (1.0 - cash)
    below_take = -lose + (lose - 1.0) * win / take
    if owner_rel == CENTRED:
        if win < take:
            live = -1.0 if jacoby else below_take
        elif win < cash:
            live = -1.0 + 2.0 * (win - take) / (cash - take)
        else:
            live = 1.0 if jacoby else above_cash
    elif owner_rel == ME:
        live = -lose + (1.0 + lose) * win / cash if win < cash else above_cash
    else:
        live = below_take if win < take else -1.0 + (w + 1.0) * (win - take) / (1.0 - take)
    return dead * (1.0 - x) + live * x


# ---------------------------------------------------------------- match play


@njit(cache=True, inline="always")
def _seen(rules, viewer, k, points, winner_rel):
    """``CubeView.mwc`` from ``viewer``'s side: MWC of ``k`` (ME or THEM) when
    ``winner_rel`` (ME or THEM) scores ``points``."""
    player = viewer if k == ME else 1 - viewer
    winner = viewer if winner_rel == ME else 1 - viewer
    return _mwc(rules, player, winner, points)


@njit(cache=True, inline="always")
def _weighted(rules, viewer, k, cube, winner_rel, gammon, backgammon):
    single = 1.0 - gammon - backgammon
    return (
        single * _seen(rules, viewer, k, cube, winner_rel)
        + gammon * _seen(rules, viewer, k, 2 * cube, winner_rel)
        + backgammon * _seen(rules, viewer, k, 3 * cube, winner_rel)
    )


@njit(cache=True, inline="always")
def _cube_prime(away_a, away_b, cube):
    return 2 * cube if away_a - 1 < 2 * cube <= away_b - 1 else cube


@njit(cache=True)
def _live_cash_points(rules, viewer, cube, g_me, bg_me, g_them, bg_them):
    """gnubg's GetPoints (``engine.cube.met.live_cash_points_from_ratios``): the winning
    chance at which each side's double (viewer's, other's) is a drop, climbing down
    from the highest cube both sides can still turn (each level needs only the one above)."""
    away_me = rules.away[viewer]
    away_them = rules.away[1 - viewer]
    i, j = away_me - 1, away_them - 1
    top = cube
    while 2 * top <= MAX_CUBE and i >= 2 * top and j >= 2 * top:
        top *= 2
    live_me, live_them = 0.0, 0.0  # of the level above
    c = top
    while c >= cube:
        cash_me = _seen(rules, viewer, ME, c, ME)
        cash_them = _seen(rules, viewer, THEM, c, THEM)
        if i < 2 * c or j < 2 * c:
            prime_me = _cube_prime(away_me, away_them, c)
            prime_them = _cube_prime(away_them, away_me, c)
            lose = _weighted(rules, viewer, ME, 2 * prime_me, THEM, g_them, bg_them)
            win = _weighted(rules, viewer, ME, 2 * prime_me, ME, g_me, bg_me)
            new_me = (lose - cash_me) / (lose - win)
            lose = _weighted(rules, viewer, THEM, 2 * prime_them, ME, g_me, bg_me)
            win = _weighted(rules, viewer, THEM, 2 * prime_them, THEM, g_them, bg_them)
            new_them = (lose - cash_them) / (lose - win)
        else:
            redouble_drop = _seen(rules, viewer, ME, 2 * c, THEM)
            win = _weighted(rules, viewer, ME, 2 * c, ME, g_me, bg_me)
            new_me = 1.0 - live_them * (cash_me - win) / (redouble_drop - win)
            redouble_drop = _seen(rules, viewer, THEM, 2 * c, ME)
            win = _weighted(rules, viewer, THEM, 2 * c, THEM, g_them, bg_them)
            new_them = 1.0 - live_me * (cash_them - win) / (redouble_drop - win)
        live_me, live_them = new_me, new_them
        c //= 2
    return live_me, live_them


@njit(cache=True, inline="always")
def _ramp(start, end, t, t0, t1):
    return start + (end - start) * (t - t0) / (t1 - t0) if t1 - t0 > 0 else start


@njit(cache=True)
def match_mwc(rules, viewer, cube, owner_rel, p, x):
    """gnubg's Cl2CfMatch: the cubeful MWC of ``viewer`` (on roll, probabilities ``p``)."""
    dead = 0.0
    dead += (p[0] - p[1]) * _seen(rules, viewer, ME, cube, ME)
    dead += (p[1] - p[2]) * _seen(rules, viewer, ME, 2 * cube, ME)
    dead += p[2] * _seen(rules, viewer, ME, 3 * cube, ME)
    dead += (1.0 - p[0] - p[3]) * _seen(rules, viewer, ME, cube, THEM)
    dead += (p[3] - p[4]) * _seen(rules, viewer, ME, 2 * cube, THEM)
    dead += p[4] * _seen(rules, viewer, ME, 3 * cube, THEM)
    me, them = rules.away[viewer], rules.away[1 - viewer]
    if (me <= cube and them <= cube) or (me == 2 and them == 2) or rules.crawford:
        return dead
    win, lose = p[0], 1.0 - p[0]
    g_me = (p[1] - p[2]) / win if win > 0 else 0.0
    bg_me = p[2] / win if win > 0 else 0.0
    g_them = (p[3] - p[4]) / lose if lose > 0 else 0.0
    bg_them = p[4] / lose if lose > 0 else 0.0
    cash_me, cash_them = _live_cash_points(rules, viewer, cube, g_me, bg_me, g_them, bg_them)
    mwc_cash = _seen(rules, viewer, ME, cube, ME)
    mwc_opp_cash = _seen(rules, viewer, ME, cube, THEM)
    all_lost = _weighted(rules, viewer, ME, cube, THEM, g_them, bg_them)
    all_won = _weighted(rules, viewer, ME, cube, ME, g_me, bg_me)
    opp_too_good = 1.0 - cash_them
    too_good = cash_me
    if owner_rel == ME:
        if win <= too_good:
            live = _ramp(all_lost, mwc_cash, win, 0.0, too_good)
        else:
            live = _ramp(mwc_cash, all_won, win, too_good, 1.0)
    elif owner_rel == THEM:
        if win <= opp_too_good:
            live = _ramp(all_lost, mwc_opp_cash, win, 0.0, opp_too_good)
        else:
            live = _ramp(mwc_opp_cash, all_won, win, opp_too_good, 1.0)
    elif win <= opp_too_good:
        live = _ramp(all_lost, mwc_opp_cash, win, 0.0, opp_too_good)
    elif win < too_good:
        live = _ramp(mwc_opp_cash, mwc_cash, win, opp_too_good, too_good)
    else:
        live = _ramp(mwc_cash, all_won, win, too_good, 1.0)
    return dead * (1.0 - x) + live * x


# ---------------------------------------------------------------- a side's cube


@njit(cache=True)
def cubeful_value(rules, viewer, cube, owner, p, x):
    """The cubeful value of ``viewer``, on roll with probabilities ``p`` and cube life
    ``x``, the cube at ``cube`` held by ``owner`` (absolute): points or MWC."""
    owner_rel = CENTRED if owner == CENTRED else (ME if owner == viewer else THEM)
    if rules.money:
        return money_per_cube(p, owner_rel, rules.jacoby, x) * cube
    return match_mwc(rules, viewer, cube, owner_rel, p, x)


@njit(cache=True)
def may_double(rules, viewer, cube, owner):
    """Whether ``viewer`` (on roll) may double (gnubg's GetDPEq): the cube is centred or
    its own, and in a match not the Crawford game nor a cube that already wins it."""
    if (owner != CENTRED and owner != viewer) or 2 * cube > MAX_CUBE:
        return False
    return rules.money or (not rules.crawford and rules.away[viewer] > cube)


@njit(cache=True)
def cash_value(rules, viewer, cube):
    """What ``viewer`` gets when its double of ``cube`` is dropped."""
    return float(cube) if rules.money else _mwc(rules, viewer, viewer, cube)


@njit(cache=True)
def game_value(rules, player, winner, points, cube, owner):
    """``player``'s value once ``winner`` ends the game with ``points`` (1-3) at ``cube``:
    with Jacoby a gammon is a single while the cube is centred."""
    if rules.money:
        won = 1 if (rules.jacoby and owner == CENTRED) else points
        return float(won * cube) if winner == player else -float(won * cube)
    return _mwc(rules, player, winner, points * cube)


@njit(cache=True, inline="always")
def _same(rules, viewer, cube, a, b):
    """gnubg's isOptional: two values equal within 1e-5 of normalised equity."""
    if rules.money:
        return abs(a - b) <= _OPTIONAL * cube
    spread = _mwc(rules, viewer, viewer, cube) - _mwc(rules, viewer, 1 - viewer, cube)
    return abs(a - b) * 2.0 <= _OPTIONAL * spread


@njit(cache=True)
def cube_action(rules, viewer, cube, owner, p, x):
    """What ``viewer`` on roll does with the cube at 0-ply, and the value of the
    position for it after that action: gnubg's FindBestCubeDecision as its rollouts
    act on it (an optional double, one equal to waiting, is not made; a side too good
    to double plays on for its gammons, and doubles out a position it cannot win a
    gammon from)."""
    no_double = cubeful_value(rules, viewer, cube, owner, p, x)
    if not may_double(rules, viewer, cube, owner):
        return NO_DOUBLE, no_double
    double_take = cubeful_value(rules, viewer, 2 * cube, 1 - viewer, p, x)
    drop = cash_value(rules, viewer, cube)
    can_win_gammon = p[1] > 0.0
    if double_take >= no_double and drop >= no_double:
        if drop > double_take:
            if _same(rules, viewer, cube, double_take, no_double):
                return NO_DOUBLE, no_double
            if rules.beavers and double_take <= 0.0 and 4 * cube <= MAX_CUBE:
                # the taker is the favourite and beavers: the cube at four times, the taker's
                beavered = cubeful_value(rules, viewer, 4 * cube, 1 - viewer, p, x)
                if beavered < no_double:
                    return NO_DOUBLE, no_double
                return DOUBLE_BEAVER, beavered
            return DOUBLE_TAKE, double_take
        optional = _same(rules, viewer, cube, no_double, drop) and can_win_gammon
        if optional and (not rules.money or owner != CENTRED or not rules.jacoby):
            return NO_DOUBLE, no_double
        return DOUBLE_DROP, drop
    if drop < no_double and double_take > drop and not can_win_gammon:
        return DOUBLE_DROP, drop  # "too good" with no gammon to play for: cash
    return NO_DOUBLE, no_double


@njit(cache=True)
def decided_value(rules, viewer, cube, owner, p, x):
    """``viewer``'s value on roll, free to double first, as gnubg values a 0-ply leaf
    (``engine.cube.cubeful``'s ``_decided``): the double is made when both answers
    leave it at least as well off as waiting, and then it gets the lesser of the two."""
    no_double = cubeful_value(rules, viewer, cube, owner, p, x)
    if not may_double(rules, viewer, cube, owner):
        return no_double
    double_take = cubeful_value(rules, viewer, 2 * cube, 1 - viewer, p, x)
    drop = cash_value(rules, viewer, cube)
    if double_take >= no_double and drop >= no_double:
        return min(double_take, drop)
    return no_double
