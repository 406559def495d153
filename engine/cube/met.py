"""Match equity: the Kazaross-XG2 table, results of a game, take and cash points.

The table (``engine/data/met_kazaross_xg2.json``, 25 points, pre- and post-Crawford)
is extended the way GNU Backgammon extends a table it loads: pre-Crawford entries
beyond 25-away by David Montgomery's normal-distribution formula, post-Crawford
entries from 25-away on by Zadeh's recurrence with a gammon rate of 0.25.  Every
function here follows gnubg (``matchequity.c``) closely, so that cube decisions built
on it can be compared with gnubg's figure for figure.

Throughout, a player is described by how many points it still needs ("away").  A
``CubeView`` is a game seen from one player ("me", index 0) against the other
(index 1); money play has ``away == (0, 0)``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

import numpy as np

from engine.rules.ids import CENTRED, MatchState

# the gammon shares below may be one position's or a whole array's (engine.cube.janowski)
FloatOrArray = TypeVar("FloatOrArray", float, np.ndarray)

MET_PATH = Path(__file__).resolve().parents[1] / "data" / "met_kazaross_xg2.json"
# gnubg's MAXSCORE: its tables stop here; longer matches use the formulas directly
TABLE_SIZE = 64
_POST_CRAWFORD_EXTRA = 256  # post-Crawford equities beyond this are below 1e-12
_MONTGOMERY_STDDEV = (0.0, 1.24, 1.27, 1.47, 1.50, 1.60, 1.61, 1.66, 1.68, 1.70, 1.72, 1.77)
_POST_CRAWFORD_GAMMON_RATE = 0.25

ME, THEM = 0, 1


class MetError(ValueError):
    """A match equity question that has no answer (bad aways, money play...)."""


@dataclass(frozen=True)
class MatchEquityTable:
    """``pre[i][j]``: MWC needing i+1 against j+1 (before the Crawford game, or in it
    for the 1-away side); ``post[j]``: MWC of the trailer needing j+1 after it."""

    name: str
    pre: np.ndarray
    post: np.ndarray
    native_length: int

    def pre_crawford(self, away_me: int, away_them: int) -> float:
        if away_me <= TABLE_SIZE and away_them <= TABLE_SIZE:
            return float(self.pre[away_me - 1, away_them - 1])
        if away_me >= away_them:
            return _montgomery(away_me, away_them)
        return 1.0 - _montgomery(away_them, away_me)

    def post_crawford_trailer(self, away_trailer: int) -> float:
        index = away_trailer - 1
        return float(self.post[index]) if index < len(self.post) else 0.0


def _montgomery(away_high: int, away_low: int) -> float:
    """gnubg's ExtendMET: MWC of the side needing ``away_high >= away_low`` points."""
    sd_high = 1.77 if away_high > 10 else _MONTGOMERY_STDDEV[away_high]
    sd_low = 1.77 if away_low > 10 else _MONTGOMERY_STDDEV[away_low]
    games = (away_high + away_low) / 2.0
    sigma = math.sqrt(sd_high**2 + sd_low**2) * math.sqrt(games)
    if 6.0 * sigma <= away_high - away_low:
        return 0.0
    phi = lambda x: 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))  # noqa: E731
    return phi(6.0) - phi((away_high - away_low) / sigma)


@lru_cache(maxsize=1)
def load_met(path: str | None = None) -> MatchEquityTable:
    """The match equity table, read once and extended as gnubg does."""
    source = Path(path) if path else MET_PATH
    try:
        data = json.loads(source.read_text())
        native = np.asarray(data["pre_crawford"]["table"], dtype=np.float64)
        post_native = np.asarray(data["post_crawford"]["table"], dtype=np.float64)
    except (OSError, KeyError, ValueError, TypeError) as exc:
        raise MetError(f"cannot read the match equity table {source}: {exc}") from exc
    length = native.shape[0]
    if native.shape != (length, length) or post_native.shape[0] < length - 1:
        raise MetError(f"{source}: the pre-Crawford table must be square and the post-Crawford one as long")
    pre = np.empty((TABLE_SIZE, TABLE_SIZE))
    pre[:length, :length] = native
    for i in range(length, TABLE_SIZE):
        for j in range(i + 1):
            pre[i, j] = _montgomery(i + 1, j + 1)
    for i in range(TABLE_SIZE):
        for j in range(max(length, i + 1), TABLE_SIZE):
            pre[i, j] = 1.0 - pre[j, i]
    # gnubg keeps the post-Crawford entries up to (length-1)-away and recomputes the rest
    post = np.empty(_POST_CRAWFORD_EXTRA)
    post[: length - 1] = post_native[: length - 1]
    rate = _POST_CRAWFORD_GAMMON_RATE
    for i in range(length - 1, len(post)):
        post[i] = rate * 0.5 * (post[i - 4] if i >= 4 else 1.0) + (1 - rate) * 0.5 * (post[i - 2] if i >= 2 else 1.0)
    pre.setflags(write=False)
    post.setflags(write=False)
    return MatchEquityTable(str(data.get("name", source.stem)), pre, post, length)


def match_winning_chance(away_me: int, away_them: int, *, post_crawford: bool = False) -> float:
    """Chance to win the match needing ``away_me`` points against ``away_them``.

    ``post_crawford`` picks the post-Crawford table when a side is 1-away (without it,
    a 1-away side is about to play the Crawford game).  Zero or less away has won.
    """
    if away_me <= 0 and away_them <= 0:
        raise MetError(f"both players cannot have won ({away_me} and {away_them} away)")
    if away_me <= 0:
        return 1.0
    if away_them <= 0:
        return 0.0
    met = load_met()
    if post_crawford and (away_me == 1 or away_them == 1):
        if away_me == 1:
            return 1.0 - met.post_crawford_trailer(away_them)
        return met.post_crawford_trailer(away_me)
    return met.pre_crawford(away_me, away_them)


def mwc_after_game(away_me: int, away_them: int, points: int, *, won: bool, crawford: bool = False) -> float:
    """My MWC after this game ends with ``points`` going to me (``won``) or to them.

    The next game is post-Crawford when this one is the Crawford game or a side is
    already 1-away (gnubg's ``getME``).
    """
    after_me = away_me - points if won else away_me
    after_them = away_them if won else away_them - points
    post = crawford or away_me == 1 or away_them == 1
    return match_winning_chance(after_me, after_them, post_crawford=post)


# ---------------------------------------------------------------- a game seen by one player


@dataclass(frozen=True)
class CubeView:
    """A game from one player's side: ``away`` = (me, them), ``owner`` -1 centred,
    0 me, 1 them.  Money play: ``away == (0, 0)``."""

    away: tuple[int, int]
    cube: int = 1
    owner: int = CENTRED
    crawford: bool = False
    jacoby: bool = False
    beavers: bool = False

    @classmethod
    def of(cls, state: MatchState, player: int | None = None) -> CubeView:
        """The view of ``player`` (default: the player on roll)."""
        me = state.on_roll if player is None else player
        if me not in (0, 1):
            raise MetError(f"player {me!r} must be 0 or 1")
        owner = CENTRED if state.cube_owner == CENTRED else (ME if state.cube_owner == me else THEM)
        if state.is_money:
            away = (0, 0)
        else:
            away = (state.match_length - state.score[me], state.match_length - state.score[1 - me])
            if min(away) <= 0:
                raise MetError(f"the match is over: score {state.score} in a {state.match_length}-point match")
        return cls(away, state.cube, owner, state.crawford, bool(state.jacoby) and state.is_money, state.beavers)

    @property
    def money(self) -> bool:
        return self.away == (0, 0)

    def doubled(self) -> CubeView:
        """After I double and the opponent takes: twice the cube, theirs."""
        return replace(self, cube=2 * self.cube, owner=THEM)

    def mwc(self, player: int, points: int, *, winner: int) -> float:
        """MWC of ``player`` (0 me, 1 them) when ``winner`` scores ``points``."""
        if self.money:
            raise MetError("money play has no match winning chances")
        away_p, away_o = self.away if player == ME else self.away[::-1]
        return mwc_after_game(away_p, away_o, points, won=winner == player, crawford=self.crawford)


def mwc_after_result(state: MatchState, player: int, result: int, *, won: bool) -> float:
    """``player``'s MWC once this game ends in ``result`` (1 single, 2 gammon,
    3 backgammon) at the present cube, won or lost by ``player``."""
    if result not in (1, 2, 3):
        raise MetError(f"a game result is 1, 2 or 3, got {result!r}")
    view = CubeView.of(state, player)
    return view.mwc(ME, result * view.cube, winner=ME if won else THEM)


def outcome_ratios(probs) -> tuple[float, float, float, float]:
    """(gammon, backgammon) shares of my wins, then of my losses, as gnubg's
    Cl2CfMatch computes them: gammons here exclude backgammons."""
    p = [float(x) for x in probs]
    win, lose = p[0], 1.0 - p[0]
    g_me = (p[1] - p[2]) / win if win > 0 else 0.0
    bg_me = p[2] / win if win > 0 else 0.0
    g_them = (p[3] - p[4]) / lose if lose > 0 else 0.0
    bg_them = p[4] / lose if lose > 0 else 0.0
    return g_me, bg_me, g_them, bg_them


def weighted_mwc(
    view: CubeView, player: int, cube: int, *, winner: int, gammon: FloatOrArray, backgammon: FloatOrArray
) -> FloatOrArray:
    """MWC of ``player`` when ``winner`` wins at ``cube``, a ``gammon`` share of
    those wins being gammons and ``backgammon`` backgammons."""
    single = 1.0 - gammon - backgammon
    return (
        single * view.mwc(player, cube, winner=winner)
        + gammon * view.mwc(player, 2 * cube, winner=winner)
        + backgammon * view.mwc(player, 3 * cube, winner=winner)
    )


def cubeless_mwc(probs, view: CubeView) -> float:
    """My MWC if the game is played to the end at the present cube."""
    p = [float(x) for x in probs]
    outcomes = (
        (p[0] - p[1], 1, ME),
        (p[1] - p[2], 2, ME),
        (p[2], 3, ME),
        (1 - p[0] - p[3], 1, THEM),
        (p[3] - p[4], 2, THEM),
        (p[4], 3, THEM),
    )
    return sum(chance * view.mwc(ME, n * view.cube, winner=winner) for chance, n, winner in outcomes)


def mwc_to_equity(mwc: FloatOrArray, view: CubeView) -> FloatOrArray:
    """gnubg's ``mwc2eq``: +1 is winning the present cube, -1 losing it."""
    win, lose = view.mwc(ME, view.cube, winner=ME), view.mwc(ME, view.cube, winner=THEM)
    return (2.0 * mwc - (win + lose)) / (win - lose)


def equity_to_mwc(equity: float, view: CubeView) -> float:
    win, lose = view.mwc(ME, view.cube, winner=ME), view.mwc(ME, view.cube, winner=THEM)
    return 0.5 * (equity * (win - lose) + (win + lose))


def gammon_values(view: CubeView) -> tuple[float, float, float, float]:
    """gnubg's gammon prices for me: the extra equity of winning a gammon, of losing
    one, of a backgammon over a gammon won and lost, where winning the present cube
    is +1.  Money: 1 each (0 with the Jacoby rule and a centred cube)."""
    if view.money:
        value = 0.0 if view.jacoby and view.owner == CENTRED else 1.0
        return value, value, value, value
    eq = lambda points, winner: mwc_to_equity(view.mwc(ME, points * view.cube, winner=winner), view)  # noqa: E731
    win_gammon, lose_gammon = eq(2, ME) - 1.0, -eq(2, THEM) - 1.0
    win_bg, lose_bg = eq(3, ME) - eq(2, ME), eq(2, THEM) - eq(3, THEM)
    return max(win_gammon, 0.0), max(lose_gammon, 0.0), max(win_bg, 0.0), max(lose_bg, 0.0)


# ---------------------------------------------------------------- cash and take points


def _cube_prime(away_a: int, away_b: int, cube: int) -> int:
    """gnubg's GetCubePrimeValue on aways: a side that wins the match with a doubled
    cube redoubles at once (for free) when the other side is still far away."""
    return 2 * cube if away_a - 1 < 2 * cube <= away_b - 1 else cube


def live_cash_points(view: CubeView, probs) -> tuple[float, float]:
    """gnubg's GetPoints: the winning chance at which each player's double (me, them)
    is a drop, redoubles included down from the level where the cube dies."""
    return live_cash_points_from_ratios(view, outcome_ratios(probs))


def live_cash_points_from_ratios(view: CubeView, rates):
    """``live_cash_points`` from the gammon and backgammon shares of ``outcome_ratios``
    (floats, or numpy arrays of many positions at once)."""
    gammon = (rates[0], rates[2])
    backgammon = (rates[1], rates[3])
    i, j = view.away[0] - 1, view.away[1] - 1
    levels = [view.cube]
    while i >= 2 * levels[-1] and j >= 2 * levels[-1]:
        levels.append(2 * levels[-1])
    live: dict[tuple[int, int], float] = {}
    for cube in reversed(levels):
        primes = (_cube_prime(view.away[0], view.away[1], cube), _cube_prime(view.away[1], view.away[0], cube))
        for k in (ME, THEM):
            other = 1 - k
            cash = view.mwc(k, cube, winner=k)
            if i < 2 * cube or j < 2 * cube:
                # the doubled cube is dead (bar the other side's automatic redouble)
                c = primes[k]
                lose = weighted_mwc(view, k, 2 * c, winner=other, gammon=gammon[other], backgammon=backgammon[other])
                win = weighted_mwc(view, k, 2 * c, winner=k, gammon=gammon[k], backgammon=backgammon[k])
                live[k, cube] = (lose - cash) / (lose - win)
            else:
                redouble_drop = view.mwc(k, 2 * cube, winner=other)
                win = weighted_mwc(view, k, 2 * cube, winner=k, gammon=gammon[k], backgammon=backgammon[k])
                live[k, cube] = 1.0 - live[other, 2 * cube] * (cash - win) / (redouble_drop - win)
    return live[ME, view.cube], live[THEM, view.cube]


def _money_take_point(view: CubeView, probs, live: bool) -> float:
    """Janowski for the taker (them): W, L are the taker's average win and loss."""
    p = [float(x) for x in (probs if probs is not None else (0.5, 0, 0, 0, 0))]
    taker_wins, taker_loses = 1.0 - p[0], p[0]
    value_w = 1.0 + (p[3] + p[4]) / taker_wins if taker_wins > 0 else 1.0
    value_l = 1.0 + (p[1] + p[2]) / taker_loses if taker_loses > 0 else 1.0
    return (value_l - 0.5) / (value_w + value_l + (0.5 if live else 0.0))


def take_point(state: MatchState, probs=None, *, live: bool = False) -> float:
    """Least winning chance the player doubled by ``state.on_roll`` needs to take.

    ``probs``: the doubler's five probabilities, for the gammon rates (default none).
    Dead cube: risk against gain with the doubled cube never turned again.  Live
    cube: the taker's recube vig included (Janowski in money play, gnubg's
    GetPoints in a match).
    """
    view = CubeView.of(state)
    if view.money:
        return _money_take_point(view, probs, live)
    probs = probs if probs is not None else (0.5, 0.0, 0.0, 0.0, 0.0)
    if live:
        return 1.0 - live_cash_points(view, probs)[ME]
    g_me, bg_me, g_them, bg_them = outcome_ratios(probs)
    doubled = 2 * view.cube
    drop = view.mwc(THEM, view.cube, winner=ME)
    take_win = weighted_mwc(view, THEM, doubled, winner=THEM, gammon=g_them, backgammon=bg_them)
    take_lose = weighted_mwc(view, THEM, doubled, winner=ME, gammon=g_me, backgammon=bg_me)
    if take_win <= take_lose:
        raise MetError("taking can neither gain nor lose here")
    return (drop - take_lose) / (take_win - take_lose)


def cash_point(state: MatchState, probs=None, *, live: bool = False) -> float:
    """Winning chance from which ``state.on_roll``'s double should be dropped."""
    return 1.0 - take_point(state, probs, live=live)
