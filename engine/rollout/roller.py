"""The roller: short cubeful rollouts of a decision's close candidates, a deeper look the
table level can take instead of 3-ply (XG's "Roller" levels, Open Sage's truncated
levels).

Where the cubeful 2-ply leaves a decision close, each close candidate is rolled out
``games`` times for ``turns`` turns, cubefully, with variance reduction, on the same
dice (one game per first roll), and the candidates are ranked by the rollout; a cube
decision's "no double" and "double, take" are rolled out the same way.  The dice seed
is fixed, so a decision is the same every time it is asked.  What it costs and whether
it helps are measured by the referee (``scripts/referee/judge_match_play.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from engine.cube.met import CubeView
from engine.players.table import close_leaders
from engine.rollout.cubeful import CubefulSettings, mover_equities, rollout_after_moves, rollout_cube_decision
from engine.rules.ids import MatchState

CLOSE_MOVE = 0.04  # EMG between the best and a candidate at 2-ply that earns it a rollout
SEED = 9


@dataclass(frozen=True)
class Roller:
    games: int = 36  # each first roll once
    turns: int = 5
    moves: int = 3  # at most this many candidates are rolled out
    prune: int = 8

    def settings(self) -> CubefulSettings:
        return CubefulSettings(seed=SEED, varredn=True, max_turns=self.turns, prune=self.prune)

    def rank_moves(self, agent, top: list, state: MatchState | None) -> list:
        """``top`` (ranked moves, best first by cubeful 2-ply, the mover being player 0
        on roll in ``state``) with the close leaders ranked again by their rollouts."""
        if state is None or len(top) < 2:
            return top
        close = close_leaders(top, self.moves, CLOSE_MOVE)
        if len(close) < 2:
            return top
        view = CubeView.of(state)
        results = rollout_after_moves([move.board for move in close], view, self.games, self.settings(), agent)
        rolled = [
            replace(move, equity=float(mover_equities(result, view).mean())) for move, result in zip(close, results)
        ]
        rolled.sort(key=lambda move: -move.equity)
        return rolled + [move for move in top if all(move is not c for c in close)]

    def cube_equities(self, agent, board, state: MatchState, equities: dict[str, float]) -> dict[str, float]:
        """The cube equities of ``state.on_roll`` (row 0 of ``board``) by the rollout,
        where the 2-ply ``equities`` leave the decision close; else those."""
        if not _close_cube(equities):
            return equities
        answer = rollout_cube_decision(np.ascontiguousarray(board), state, self.games, self.settings(), agent)
        return dict(answer["equities"])


def _close_cube(equities: dict[str, float]) -> bool:
    """Whether a cube decision is close enough to roll out: doubling or not, or taking or
    not, within ``CLOSE_MOVE`` at 2-ply."""
    no_double, take, drop = equities["no_double"], equities["double_take"], equities["double_drop"]
    return abs(min(take, drop) - no_double) < CLOSE_MOVE or abs(take - drop) < CLOSE_MOVE
