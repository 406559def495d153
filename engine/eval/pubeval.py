"""Tesauro's pubeval: the public linear evaluator every bot is measured against.

Scores a position *after* the mover's move, seen by the mover (row 0).  Inputs per
point p = 24..1 of the mover: opponent blot, own 1, own >= 2, own == 3, own >= 4
as (n - 3) / 2; then opponent checkers on the bar / 2 and own checkers off / 15.
The race weights apply when the position before the move had no contact.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

import numpy as np
from numba import njit

WIN_SCORE = 99999999.0
RACE, CONTACT = 0, 1


@lru_cache(maxsize=1)
def pubeval_weights() -> np.ndarray:
    """(2, 122) float64: row RACE, row CONTACT, as published."""
    text = resources.files("engine").joinpath("data/pubeval_weights.json").read_text()
    data = json.loads(text)
    return np.array([data["race"], data["contact"]], dtype=np.float64)


@njit(cache=True)
def board_has_contact(board):
    ours = -1
    theirs = -1
    for i in range(24, -1, -1):
        if board[0, i] > 0:
            ours = i
            break
    for i in range(24, -1, -1):
        if board[1, i] > 0:
            theirs = i
            break
    if ours < 0 or theirs < 0:
        return False
    return ours + theirs >= 24


@njit(cache=True)
def pubeval_score(weights, board):
    """Score of a post-move board for the mover with the given 122 weights."""
    off = 15
    for i in range(25):
        off -= board[0, i]
    if off == 15:
        return WIN_SCORE
    score = 0.0
    for col in range(24):
        block = 5 * (23 - col)
        if board[1, 23 - col] == 1:
            score += weights[block]
        n = board[0, col]
        if n == 1:
            score += weights[block + 1]
        elif n >= 2:
            score += weights[block + 2]
            if n == 3:
                score += weights[block + 3]
            elif n >= 4:
                score += weights[block + 4] * (n - 3) / 2.0
    score += weights[120] * board[1, 24] / 2.0
    score += weights[121] * off / 15.0
    return score


@njit(cache=True)
def pubeval_choose(weights, board, n, candidates):
    """Index of the candidate (post-move boards, mover in row 0) pubeval likes best."""
    w = weights[CONTACT] if board_has_contact(board) else weights[RACE]
    best = 0
    best_score = -1e300
    for i in range(n):
        s = pubeval_score(w, candidates[i])
        if s > best_score:
            best_score = s
            best = i
    return best
