"""Cubeful decisions of a searching agent, and the table level that uses its time.

Every decision taken with a match state is cubeful (``engine.cube.cubeful``): moves are
ranked by the mover's cubeful equity (match winning chance at the score, as EMG),
the cube by cubeful "no double", "double, take" and "double, drop", at the agent's
depth.  The cubeless search (``engine.search.nply``) still does what it is fast at:
scoring every legal move and filtering them to the few worth a deeper look.

The table level (``net:NAME@table``) is the 2-ply agent with a time budget: the
decision is taken at cubeful 2-ply, and where a move decision is close (the best
moves within ``CLOSE_MOVE`` of each other) the few candidates that matter are
looked at one ply deeper, as long as the estimated cost fits in the budget.  A
2-ply cubeful look at one position takes 10-40 ms here and a 3-ply look about 21
times as long, so a one-second budget buys a 3-ply look at two or three moves.
Cube decisions take the mean of the cubeful 2-ply and 3-ply equities
(``cube_equities_for``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np

from engine.cube.cubeful import CubefulTree, cube_equities, move_equities
from engine.eval.static import WON
from engine.rules.ids import MatchState

CLOSE_MOVE = 0.04  # EMG between the best two moves at 2-ply that earns a 3-ply look
DEEPER_MOVES = 3  # at most this many moves get the deeper look
BRANCHING = 21  # a ply deeper costs about this many times as much
SAFETY = 1.5  # the estimate of a deeper look is short by up to this much (doubles, big trees)
CUBE_DEEPER_THINK = 0.5  # seconds of budget from which a cube decision looks a ply deeper


@dataclass(frozen=True)
class Budget:
    """Seconds a decision may take (0: no deeper look) and when it started."""

    think: float
    start: float

    @classmethod
    def starting(cls, think: float) -> Budget:
        return cls(think, time.perf_counter())

    def left(self) -> float:
        return self.think - (time.perf_counter() - self.start)


def close_leaders(top: list, moves: int = DEEPER_MOVES, close: float = CLOSE_MOVE) -> list:
    """The first ``moves`` of ``top`` (ranked moves, best first) within ``close`` of the best:
    the candidates a deeper look is spent on."""
    return [move for move in top[:moves] if top[0].equity - move.equity < close]


def rerank(tree: CubefulTree, ranked: list, state: MatchState | None, budget: Budget | None) -> list:
    """``ranked`` (``engine.players.agent.RankedMove``s, best first by the cubeless search,
    the mover on roll in ``state``) ranked again by cubeful equity (cubeless money
    without a ``state``): the moves that reached the search's deepest ply, at that
    depth, the others below them as they were.  A move that ends the game stays
    first.  With a ``budget``, close leaders are looked at one ply deeper (see the
    module notes)."""
    if not ranked or ranked[0].ply == WON:
        return ranked
    depth = max(move.ply for move in ranked)
    top = [move for move in ranked if move.ply == depth]
    rest = [move for move in ranked if move.ply != depth]
    started = time.perf_counter()
    top = _scored(tree, top, state, depth)
    spent = time.perf_counter() - started
    if budget is not None and budget.think > 0 and len(top) > 1:
        close = close_leaders(top)
        per_move = SAFETY * BRANCHING * spent / len(top)
        while len(close) > 1 and per_move * len(close) > budget.left():
            close = close[:-1]
        if len(close) > 1:
            deeper = _scored(tree, close, state, depth + 1)
            top = deeper + [move for move in top if all(move is not c for c in close)]
    return top + rest


def _scored(tree: CubefulTree, moves: list, state: MatchState | None, plies: int) -> list:
    """``moves`` with their cubeful equities ``plies`` deep, best first."""
    boards = np.stack([move.board for move in moves])
    probs = np.array([move.probs for move in moves])
    equities = move_equities(tree, boards, probs, state, plies)
    order = np.argsort(-equities, kind="stable")
    return [replace(moves[i], equity=float(equities[i]), ply=plies) for i in order]


def cube_equities_for(
    tree: CubefulTree, board, probs, state: MatchState, plies: int, budget: Budget | None = None
) -> tuple[dict[str, float], int]:
    """The cube equities of ``state.on_roll`` at ``plies`` and the depth used; with a
    budget of ``CUBE_DEEPER_THINK`` seconds or more, the mean of the equities at
    ``plies`` and one ply deeper (reported as the deeper depth).  The deeper look
    costs 0.3-1 s here; it does not depend on the clock, so a decision is the same
    on any machine.

    Odd and even depths lean opposite ways (the side on roll has the last roll at
    odd depths); their mean judged better than either alone by Open Sage's cubeful
    3-ply on 300 positions (seed 90125: cube error 0.48 thousandths a decision,
    against 0.83 at 2-ply, 0.67 at 3-ply and 0.62 for gnubg's 2-ply)."""
    equities = cube_equities(tree, board, probs, state, plies)
    if budget is None or budget.think < CUBE_DEEPER_THINK:
        return equities, plies
    deeper = cube_equities(tree, board, probs, state, plies + 1)
    return {key: 0.5 * (equities[key] + deeper[key]) for key in equities}, plies + 1
