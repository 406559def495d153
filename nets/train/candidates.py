"""The candidates of a decision that a net must rank: the results a move filter passes on.

A net chooses a move by ranking the results of one roll, so the positions worth
labelling from a played decision are not only the position itself but the results
its move filter keeps (the first stage of ``engine.players.agent.DEFAULT_FILTERS``: at most 12
within 0.24 of the best 0-ply equity).  Round 8 of the shipped nets learned most from
exactly these, taken from games against a weaker player (nets/runs/sage-labels).
"""

from __future__ import annotations

import numpy as np

from engine.eval.evaluator import Evaluator
from engine.players.agent import DEFAULT_FILTERS
from engine.rules.moves import MoveBuffers, generate_moves

FILTER_KEEP = int(DEFAULT_FILTERS[0])
FILTER_WINDOW = float(DEFAULT_FILTERS[1])


def filter_candidates(
    evaluator: Evaluator, candidates: np.ndarray, keep: int = FILTER_KEEP, window: float = FILTER_WINDOW
) -> tuple[int, list[np.ndarray]]:
    """The 0-ply best of ``candidates`` (results with the mover in row 0) and the kept
    ones, best first, turned to the opponent on roll; a result that ends the game
    needs no label and is left out."""
    equities, _ = evaluator.move_equities(np.ascontiguousarray(candidates))
    order = np.argsort(-equities, kind="stable")
    best = int(order[0])
    kept = [
        np.ascontiguousarray(candidates[i][::-1])
        for i in order[:keep]
        if equities[i] >= equities[best] - window and candidates[i][0].sum() > 0
    ]
    return best, kept


def decision_candidates(
    evaluator: Evaluator,
    board: np.ndarray,
    d1: int,
    d2: int,
    buffers: MoveBuffers | None = None,
    keep: int = FILTER_KEEP,
    window: float = FILTER_WINDOW,
) -> list[np.ndarray]:
    """The kept results of rolling (d1, d2) in ``board`` (side on roll in row 0)."""
    buffers = buffers or MoveBuffers()
    n = generate_moves(np.ascontiguousarray(board, np.int8), d1, d2, *buffers.args())
    if n < 2:
        return []
    return filter_candidates(evaluator, buffers.boards[:n], keep, window)[1]
