"""Cubeless probabilities to cubeful equity for many positions at once (Janowski).

GNU Backgammon turns a position's cubeless probabilities into a cubeful value by
interpolating between the dead cube (the game played out at the present cube) and a
fully live cube, with the cube life ``x`` as the weight:
``E = (1 - x) * E_dead + x * E_live`` (eval.c's ``Cl2CfMoney`` and ``Cl2CfMatch``).
A lookahead needs this for every leaf of its tree under every cube position it
meets, so the functions here take an ``(N, 5)`` array of probabilities (the side on
roll's ``[win, win gammon, win backgammon, lose gammon, lose backgammon]``) and an
``(N,)`` array of cube lives, and return ``N`` values for one ``CubeView``.
``engine.cube.decision`` decides a single position through the same functions.

Money values are per unit of ``view.cube``; match values are the viewer's match
winning chance.
"""

from __future__ import annotations

import numpy as np

from engine.cube.met import ME, THEM, CubeView, gammon_values, live_cash_points_from_ratios, weighted_mwc
from engine.rules.ids import CENTRED

_EPSILON = 1e-7  # gnubg's guard against dividing by a (nearly) impossible outcome

CONTACT_CUBE_LIFE = 0.68
RACE_CUBE_LIFE = 0.6
BEAROFF_CUBE_LIFE = 0.6
# gnubg: race cube life = pips of the side on roll * 0.00125 + 0.55, within 0.6..0.7
RACE_LIFE_PER_PIP, RACE_LIFE_BASE, RACE_LIFE_MIN, RACE_LIFE_MAX = 0.00125, 0.55, 0.6, 0.7
_PIPS = np.arange(1, 26, dtype=np.int64)
_COLUMNS = np.arange(25, dtype=np.int64)


def cube_lives(boards: np.ndarray) -> np.ndarray:
    """gnubg's cube efficiency of each board (side on roll in row 0): 0.68 in contact,
    0.6 to 0.7 in races by the pips of the side on roll, 0.6 once both sides are home."""
    boards = np.asarray(boards).reshape(-1, 2, 25)
    rear = np.where(boards > 0, _COLUMNS, -1).max(axis=2)  # each side's rearmost column
    contact = (rear[:, 0] >= 0) & (rear[:, 1] >= 0) & (rear[:, 0] + rear[:, 1] >= 24)
    pips = boards[:, 0].astype(np.int64) @ _PIPS
    race = np.clip(pips * RACE_LIFE_PER_PIP + RACE_LIFE_BASE, RACE_LIFE_MIN, RACE_LIFE_MAX)
    home = boards[:, :, 6:].sum(axis=(1, 2)) == 0
    return np.where(contact, CONTACT_CUBE_LIFE, np.where(home, BEAROFF_CUBE_LIFE, race))


def _ratio(numerator, denominator):
    """``numerator / denominator`` where the denominator is positive, else 0."""
    safe = np.where(denominator > 0, denominator, 1.0)
    return np.where(denominator > 0, numerator / safe, 0.0)


def outcome_ratios(p: np.ndarray) -> tuple[np.ndarray, ...]:
    """(gammon, backgammon) shares of the wins, then of the losses (gammons without
    backgammons), as ``Cl2CfMatch`` computes them."""
    win, lose = p[:, 0], 1.0 - p[:, 0]
    return (
        _ratio(p[:, 1] - p[:, 2], win),
        _ratio(p[:, 2], win),
        _ratio(p[:, 3] - p[:, 4], lose),
        _ratio(p[:, 4], lose),
    )


# ---------------------------------------------------------------- money play


def money_dead(p: np.ndarray, view: CubeView) -> np.ndarray:
    """Cubeless money equity (gnubg's Utility): gammons count unless Jacoby holds them."""
    value = gammon_values(view)[0]
    return 2.0 * p[:, 0] - 1.0 + (p[:, 1] - p[:, 3]) * value + (p[:, 2] - p[:, 4]) * value


def _money_live(win_value, loss_value, p, view: CubeView) -> np.ndarray:
    """Janowski's live-cube equity, piecewise linear in the winning chance ``p``."""
    take = (loss_value - 0.5) / (win_value + loss_value + 0.5)
    cash = (loss_value + 1.0) / (win_value + loss_value + 0.5)
    above_cash = 1.0 + (win_value - 1.0) * (p - cash) / (1.0 - cash)
    below_take = -loss_value + (loss_value - 1.0) * p / take
    if view.owner == CENTRED:
        low = -1.0 if view.jacoby else below_take
        high = 1.0 if view.jacoby else above_cash
        return np.where(p < take, low, np.where(p < cash, -1.0 + 2.0 * (p - take) / (cash - take), high))
    if view.owner == ME:
        return np.where(p < cash, -loss_value + (1.0 + loss_value) * p / cash, above_cash)
    return np.where(p < take, below_take, -1.0 + (win_value + 1.0) * (p - take) / (1.0 - take))


def money_cubeful(p: np.ndarray, view: CubeView, x: np.ndarray) -> np.ndarray:
    """gnubg's Cl2CfMoney: cubeful equity per unit of ``view.cube``."""
    dead = money_dead(p, view)
    win = p[:, 0]
    decided = (win <= _EPSILON) | (win >= 1.0 - _EPSILON)
    inner = np.where(decided, 0.5, win)  # keeps the arithmetic finite where the dead value is used
    win_value = 1.0 + (p[:, 1] + p[:, 2]) / inner
    loss_value = 1.0 + (p[:, 3] + p[:, 4]) / (1.0 - inner)
    live = _money_live(win_value, loss_value, inner, view)
    return np.where(decided, dead, dead * (1.0 - x) + live * x)


# ---------------------------------------------------------------- match play


def cube_alive(view: CubeView) -> bool:
    """gnubg's fDoCubeful: no cube leverage when the cube wins the match for both
    sides, at 2-away/2-away, or in the Crawford game."""
    me, them = view.away
    return not ((me <= view.cube and them <= view.cube) or (me == 2 and them == 2) or view.crawford)


def match_dead(p: np.ndarray, view: CubeView) -> np.ndarray:
    """My match winning chance if the game is played out at the present cube."""
    outcomes = (
        (p[:, 0] - p[:, 1], 1, ME),
        (p[:, 1] - p[:, 2], 2, ME),
        (p[:, 2], 3, ME),
        (1.0 - p[:, 0] - p[:, 3], 1, THEM),
        (p[:, 3] - p[:, 4], 2, THEM),
        (p[:, 4], 3, THEM),
    )
    dead = np.zeros(len(p))
    for chance, n, winner in outcomes:
        dead = dead + chance * view.mwc(ME, n * view.cube, winner=winner)
    return dead


def _ramp(start, end, t, t0, t1):
    """The line from ``start`` at ``t0`` to ``end`` at ``t1``, read at ``t`` (``start``
    where the interval is empty)."""
    width = t1 - t0
    safe = np.where(width > 0, width, 1.0)
    return np.where(width > 0, start + (end - start) * (t - t0) / safe, start)


def match_cubeful(p: np.ndarray, view: CubeView, x: np.ndarray) -> np.ndarray:
    """gnubg's Cl2CfMatch: my cubeful match winning chance."""
    dead = match_dead(p, view)
    if not cube_alive(view):
        return dead
    g_me, bg_me, g_them, bg_them = outcome_ratios(p)
    cash_me, cash_them = live_cash_points_from_ratios(view, (g_me, bg_me, g_them, bg_them))
    win = p[:, 0]
    mwc_cash = view.mwc(ME, view.cube, winner=ME)
    mwc_opp_cash = view.mwc(ME, view.cube, winner=THEM)
    all_lost = weighted_mwc(view, ME, view.cube, winner=THEM, gammon=g_them, backgammon=bg_them)
    all_won = weighted_mwc(view, ME, view.cube, winner=ME, gammon=g_me, backgammon=bg_me)
    opp_too_good = 1.0 - cash_them  # below this they cash (or play on for more)
    too_good = cash_me
    if view.owner == ME:
        live = np.where(
            win <= too_good, _ramp(all_lost, mwc_cash, win, 0.0, too_good), _ramp(mwc_cash, all_won, win, too_good, 1.0)
        )
    elif view.owner == THEM:
        live = np.where(
            win <= opp_too_good,
            _ramp(all_lost, mwc_opp_cash, win, 0.0, opp_too_good),
            _ramp(mwc_opp_cash, all_won, win, opp_too_good, 1.0),
        )
    else:
        live = np.where(
            win <= opp_too_good,
            _ramp(all_lost, mwc_opp_cash, win, 0.0, opp_too_good),
            np.where(
                win < too_good,
                _ramp(mwc_opp_cash, mwc_cash, win, opp_too_good, too_good),
                _ramp(mwc_cash, all_won, win, too_good, 1.0),
            ),
        )
    return dead * (1.0 - x) + live * x


def cubeful(p: np.ndarray, view: CubeView, x: np.ndarray) -> np.ndarray:
    """Cubeful value of each row of ``p`` for the side on roll: money in points (the
    per-cube equity times ``view.cube``), a match in match winning chance."""
    p = np.asarray(p, dtype=np.float64).reshape(-1, 5)
    x = np.broadcast_to(np.asarray(x, dtype=np.float64), (len(p),))
    if view.money:
        return money_cubeful(p, view, x) * view.cube
    return match_cubeful(p, view, x)
