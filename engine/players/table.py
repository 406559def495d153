"""Cubeful decisions of a searching agent, and the table level's deeper look.

Every decision taken with a match state is cubeful (``engine.cube.cubeful``): moves are
ranked by the mover's cubeful equity (match winning chance at the score, as EMG),
the cube by cubeful "no double", "double, take" and "double, drop", at the agent's
depth.  The cubeless search (``engine.search.nply``) still does what it is fast at:
scoring every legal move and filtering them to the few worth a deeper look.

The table level (``net:NAME@table``) is the 2-ply agent with a deeper look: the
decision is taken at cubeful 2-ply, and where a move decision is close (the best
moves within ``CLOSE_MOVE`` of each other) the close leaders are looked at one ply
deeper: always the best two, a third while the estimated work fits ``DEEPER_WORK``.
Work is counted in net evaluations, not seconds, so a decision is the same on any
machine, at any load and with any number of threads.  Cube decisions always take
the mean of the cubeful 2-ply and 3-ply equities (``cube_equities_for``).

The agent's ``think`` is only a safety cap: a deeper look still running that many
seconds into a decision stops at the next move and says so (a structlog warning,
``table_look_cut``).  The shipped cap is far above what a decision takes on two
busy cores, so it never decides anything in ordinary play.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np
import structlog

from engine.cube.cubeful import CubefulTree, cube_equities, move_equities
from engine.eval.static import WON
from engine.rules.ids import MatchState

CLOSE_MOVE = 0.04  # EMG between the best two moves at 2-ply that earns a 3-ply look
DEEPER_MOVES = 3  # at most this many moves get the deeper look
PROMISED_MOVES = 2  # a close decision always compares its best two at 3-ply, whatever the work estimate
# a ply deeper evaluates about this many times as many positions: 21 rolls a node; with the
# shipped pruning net, 18.7 on the bench's 403 two-ply and 158 three-ply looks
BRANCHING = 21
# net evaluations a move decision's deeper look may be estimated to cost; a pruned 3-ply look
# at one move costs at most 38,170 (median 31,240) on the bench's decisions, so the shipped
# net's close decisions all get their three moves, and an unpruned net (every reply scored
# by the full net, several times the work) its best two
DEEPER_WORK = 120_000


@dataclass(frozen=True)
class Budget:
    """The table level's safety cap, in seconds (0: no deeper look), and when the decision
    started: the cap only stops a deeper look that runs far past any ordinary decision."""

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


def evaluations(tree: CubefulTree) -> int:
    """Net evaluations the tree's contexts have looked up since their caches were cleared:
    every lookup counts, hit or miss, so the count of a look depends only on the positions
    (and not on the cache, the threads or the clock)."""
    return sum(int(ctx.cache_counts[0]) for ctx, _ in tree.workers)


def deeper_count(close: int, per_move: float) -> int:
    """How many of ``close`` close leaders get the deeper look when one costs an estimated
    ``per_move`` evaluations: the best ``PROMISED_MOVES`` always, more while the estimate fits
    ``DEEPER_WORK``."""
    count = min(close, PROMISED_MOVES)
    while count < close and (count + 1) * per_move <= DEEPER_WORK:
        count += 1
    return count


def rerank(tree: CubefulTree, ranked: list, state: MatchState | None, budget: Budget | None) -> list:
    """``ranked`` (``engine.players.agent.RankedMove``s, best first by the cubeless search,
    the mover on roll in ``state``) ranked again by cubeful equity (cubeless money
    without a ``state``): the moves that reached the search's deepest ply, at that
    depth, the others below them as they were.  A move that ends the game stays
    first.  With a ``budget`` (the table level), close leaders are looked at one ply
    deeper (see the module notes)."""
    if not ranked or ranked[0].ply == WON:
        return ranked
    depth = max(move.ply for move in ranked)
    top = [move for move in ranked if move.ply == depth]
    rest = [move for move in ranked if move.ply != depth]
    before = evaluations(tree)
    top = _scored(tree, top, state, depth)
    if budget is None or budget.think <= 0 or len(top) < 2:
        return top + rest
    close = close_leaders(top)
    if len(close) < 2:
        return top + rest
    per_move = BRANCHING * (evaluations(tree) - before) / len(top)
    deeper = _looked(tree, close[: deeper_count(len(close), per_move)], state, depth + 1, budget)
    if len(deeper) < 2:  # a single deeper figure would outrank its rivals for its depth alone
        return top + rest
    deeper.sort(key=lambda move: -move.equity)
    looked = close[: len(deeper)]
    return deeper + [move for move in top if all(move is not c for c in looked)] + rest


def _looked(tree: CubefulTree, close: list, state: MatchState | None, plies: int, budget: Budget) -> list:
    """``close`` scored ``plies`` deep one move at a time (the figures are those of one
    call), until the safety cap stops the look."""
    deeper: list = []
    for move in close:
        if budget.left() <= 0:
            structlog.get_logger("engine.players.table").warning(
                "table_look_cut",
                cap_s=budget.think,
                seconds=round(time.perf_counter() - budget.start, 3),
                looked=len(deeper),
                close=len(close),
            )
            break
        deeper += _scored(tree, [move], state, plies)
    return deeper


def _scored(tree: CubefulTree, moves: list, state: MatchState | None, plies: int) -> list:
    """``moves`` with their cubeful equities ``plies`` deep, best first."""
    boards = np.stack([move.board for move in moves])
    probs = np.array([move.probs for move in moves])
    equities = move_equities(tree, boards, probs, state, plies)
    order = np.argsort(-equities, kind="stable")
    return [replace(moves[i], equity=float(equities[i]), ply=plies) for i in order]


def cube_equities_for(
    tree: CubefulTree, board, probs, state: MatchState, plies: int, deeper: bool = False
) -> tuple[dict[str, float], int]:
    """The cube equities of ``state.on_roll`` at ``plies`` and the depth used; with
    ``deeper`` (the table level), the mean of the equities at ``plies`` and one ply
    deeper (reported as the deeper depth).  The deeper look is one position's tree, its
    work fixed by the position (0.1-0.3 s here with two threads), so it is always taken.

    Odd and even depths lean opposite ways (the side on roll has the last roll at
    odd depths); their mean judged better than either alone by Open Sage's cubeful
    3-ply on 300 positions (seed 90125: cube error 0.48 thousandths a decision,
    against 0.83 at 2-ply, 0.67 at 3-ply and 0.62 for gnubg's 2-ply)."""
    equities = cube_equities(tree, board, probs, state, plies)
    if not deeper:
        return equities, plies
    further = cube_equities(tree, board, probs, state, plies + 1)
    return {key: 0.5 * (equities[key] + further[key]) for key in equities}, plies + 1
