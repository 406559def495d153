"""Cube decisions from cubeless probabilities, as GNU Backgammon makes them at 0-ply.

Cubeful equity is interpolated between the dead cube (the game played out at the
present cube) and a fully live cube, with the cube life ``x`` as the weight
(Janowski): ``E = (1 - x) * E_dead + x * E_live``.  In money play ``E_live`` is
Janowski's piecewise-linear function of the winning chance through the take and
cash points; in a match it is the same construction in match winning chances,
with the cash points of ``engine.cube.met.live_cash_points`` (gnubg's ``Cl2CfMatch``).
gnubg's cube life: 0.68 in contact, 0.6 to 0.7 in races by the pip count of the
side on roll, 0.6 in bear-offs.

The equities of "no double", "double, take" and "double, drop" are given, as gnubg
shows them, in money units normalised to the present cube (+1 = winning the cube
as it is); in a match they are gnubg's "EMG", the match winning chance mapped
linearly so that winning the present cube is +1 and losing it -1.  The evaluated
side is always the player on roll (``state.on_roll``), whose five probabilities
``[win, win gammon, win backgammon, lose gammon, lose backgammon]`` (cumulative,
before the roll) are given.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.cube import janowski
from engine.cube.janowski import BEAROFF_CUBE_LIFE, CONTACT_CUBE_LIFE, RACE_CUBE_LIFE  # noqa: F401  (part of this face)
from engine.cube.met import ME, CubeView, mwc_to_equity
from engine.rules.ids import CENTRED, MatchState

MAX_CUBE = 1 << 15  # the Match ID's cube field

NO_DOUBLE = "no double"
DOUBLE_TAKE = "double, take"
DOUBLE_DROP = "double, drop"
TOO_GOOD = "too good"
ACTIONS = (NO_DOUBLE, DOUBLE_TAKE, DOUBLE_DROP, TOO_GOOD)


class CubeError(ValueError):
    """Probabilities or a match state a cube decision cannot be made from."""


@dataclass(frozen=True)
class CubeDecision:
    """What the player on roll should do with the cube, and how the opponent answers.

    ``double``: double now; ``take``: the opponent should take if doubled (computed
    also when no double is right or possible, as information); ``beaver``: in money
    play with beavers allowed, the taker should beaver.  ``may_double`` is False when
    the rules or the score leave the cube unavailable (action then "no double").
    ``equities``: ``no_double``, ``double_take``, ``double_drop`` for the doubler.
    """

    action: str
    double: bool
    take: bool
    may_double: bool
    equities: dict[str, float] = field(default_factory=dict)
    beaver: bool = False
    cube_life: float = CONTACT_CUBE_LIFE

    @property
    def best_equity(self) -> float:
        """The doubler's equity after the proper action (and the proper answer)."""
        eq = self.equities
        if not self.double:
            return eq["no_double"]
        return min(eq["double_take"], eq["double_drop"])


def may_double(state: MatchState) -> bool:
    """gnubg's rule: the cube is centred or the roller's, it is not the Crawford game,
    and the present cube does not already win the match for the roller (which also
    stops the post-Crawford leader and both sides at double match point)."""
    if state.cube_owner not in (CENTRED, state.on_roll) or 2 * state.cube > MAX_CUBE:
        return False
    if state.is_money:
        return True
    return not state.crawford and state.score[state.on_roll] + state.cube < state.match_length


def cube_life(board: np.ndarray) -> float:
    """gnubg's cube efficiency for a board with the side on roll in row 0."""
    return float(janowski.cube_lives(board)[0])


def _check_probs(probs) -> np.ndarray:
    p = np.asarray(probs, dtype=np.float64).reshape(-1)
    if p.shape != (5,) or not np.all(np.isfinite(p)):
        raise CubeError(f"expected 5 finite probabilities, got {probs!r}")
    if np.any(p < -1e-6) or np.any(p > 1 + 1e-6):
        raise CubeError(f"probabilities must lie in 0..1, got {p.tolist()}")
    return np.clip(p, 0.0, 1.0)


# ---------------------------------------------------------------- one position


def cubeless_money_equity(p: np.ndarray, view: CubeView) -> float:
    """gnubg's Utility for money: gammons count unless the Jacoby rule holds them."""
    return float(janowski.money_dead(np.asarray(p, np.float64).reshape(1, 5), view)[0])


def money_cubeful_equity(p: np.ndarray, view: CubeView, x: float) -> float:
    """gnubg's Cl2CfMoney: cubeful equity per unit of ``view.cube``."""
    return float(janowski.money_cubeful(np.asarray(p, np.float64).reshape(1, 5), view, np.array([x]))[0])


def match_cubeful_mwc(p: np.ndarray, view: CubeView, x: float) -> float:
    """gnubg's Cl2CfMatch: my cubeful match winning chance."""
    return float(janowski.match_cubeful(np.asarray(p, np.float64).reshape(1, 5), view, np.array([x]))[0])


# ---------------------------------------------------------------- the decision


def cubeful_equities(probs, state: MatchState, *, cube_life: float) -> dict[str, float]:
    """No double, double/take, double/drop for the player on roll (see module doc)."""
    p = _check_probs(probs)
    view = CubeView.of(state)
    if view.money:
        equities = (
            money_cubeful_equity(p, view, cube_life),
            2.0 * money_cubeful_equity(p, view.doubled(), cube_life),
            1.0,
        )
    else:
        equities = (
            mwc_to_equity(match_cubeful_mwc(p, view, cube_life), view),
            mwc_to_equity(match_cubeful_mwc(p, view.doubled(), cube_life), view),
            mwc_to_equity(view.mwc(ME, view.cube, winner=ME), view),
        )
    return dict(zip(("no_double", "double_take", "double_drop"), map(float, equities)))


def _choose(nd: float, dt: float, dp: float, can_win_gammon: bool) -> str:
    """gnubg's FindBestCubeDecision, without its 'optional' and beaver labels.
    Playing on for a gammon is "too good" only when a gammon can be won."""
    if dt >= nd and dp >= nd:
        return DOUBLE_TAKE if dp > dt else DOUBLE_DROP
    if nd > dt > dp:  # they would pass, and waiting is better than cashing
        return TOO_GOOD if can_win_gammon else DOUBLE_DROP
    if nd > dt and nd > dp:  # ND > DP >= DT: they would take, waiting is better still
        return TOO_GOOD if can_win_gammon else NO_DOUBLE
    if nd > dt:  # DP >= ND > DT
        return NO_DOUBLE
    return TOO_GOOD if can_win_gammon else DOUBLE_DROP  # DT >= ND > DP


def cube_decision(probs, state: MatchState, *, race: bool = False, cube_life: float | None = None) -> CubeDecision:
    """The cube action of ``state.on_roll`` with cubeless ``probs`` (its own, before
    rolling), the cube and its owner as they stand before any double (the
    ``doubled`` and ``to_decide`` fields are ignored).  ``cube_life`` defaults to
    gnubg's contact (0.68) or race (0.6) value; pass ``engine.cube.decision.cube_life(board)``
    to follow gnubg exactly."""
    x = cube_life if cube_life is not None else (RACE_CUBE_LIFE if race else CONTACT_CUBE_LIFE)
    if not 0.0 <= x <= 1.0:
        raise CubeError(f"cube life {x} must lie in 0..1")
    return decide(
        cubeful_equities(probs, state, cube_life=x),
        state,
        can_win_gammon=float(_check_probs(probs)[1]) > 0.0,
        cube_life=x,
    )


def decide(
    equities: dict[str, float], state: MatchState, *, can_win_gammon: bool, cube_life: float = CONTACT_CUBE_LIFE
) -> CubeDecision:
    """The action from the three equities of ``state.on_roll`` (``no_double``,
    ``double_take``, ``double_drop``, normalised to the present cube), however deep
    they were computed (``engine.cube.cubeful`` gives them n plies deep)."""
    x = cube_life
    nd, dt, dp = equities["no_double"], equities["double_take"], equities["double_drop"]
    take = dp > dt
    allowed = may_double(state)
    beaver = bool(state.is_money and state.beavers and -2.0 <= dt <= 0.0 and take)
    if not allowed:
        return CubeDecision(NO_DOUBLE, False, take, False, equities, beaver, x)
    action = _choose(nd, dt, dp, can_win_gammon)
    if action == DOUBLE_TAKE and beaver and 2.0 * dt < nd:
        action = NO_DOUBLE  # the beaver would cost more than waiting
    return CubeDecision(action, action in (DOUBLE_TAKE, DOUBLE_DROP), take, True, equities, beaver, x)


def should_take(doubler_probs, state: MatchState, *, race: bool = False, cube_life: float | None = None) -> bool:
    """The taker's answer to a double by ``state.on_roll`` whose probabilities are
    ``doubler_probs`` (the taker's own are these inverted)."""
    return cube_decision(doubler_probs, state, race=race, cube_life=cube_life).take


def invert_probabilities(probs) -> np.ndarray:
    """The other side's five probabilities."""
    p = _check_probs(probs)
    return np.array([1.0 - p[0], p[3], p[4], p[1], p[2]])
