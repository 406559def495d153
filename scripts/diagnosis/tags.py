"""The classes and tags a decision's position is broken down by.

All are read from the position before the move (side on roll in row 0, columns 0..23
its points 1..24, column 24 its bar), so the same tags serve our duels' decisions
and the match-play looks files.  A decision has one class, one phase, one closeness
and any number of the structure tags.

- class: gnubg's (``engine.rules.position.classify``): contact, crashed, or race
  (bear-off positions counted with the race);
- back game: the side on roll holds two or more points (two or more checkers each)
  in the opponent's home board, its own points 19-24; against a back game: the
  opponent holds two or more in the side on roll's home board.  No race condition, so
  an early position with two anchors back counts too;
- prime: either side has four or more consecutive made points (2+ checkers), bar
  not counted;
- bear-in against contact: the side on roll has every checker on its points 1-12
  (home board and outfield, none on the bar) while contact remains;
- phase: by the pip count of both sides together (334 at the start);
- closeness: how far apart our 0-ply puts the two choices (absolute equity).
"""

from __future__ import annotations

import numpy as np

from engine.rules.position import BAR, ON_ROLL, OPPONENT, Phase, classify, has_contact

CONTACT, CRASHED, RACE = "contact", "crashed", "race"
CLASSES = (CONTACT, CRASHED, RACE)
BACK_GAME, AGAINST_BACK_GAME, PRIME, BEAR_IN = "back game", "against a back game", "prime", "bear-in vs contact"
STRUCTURES = (BACK_GAME, AGAINST_BACK_GAME, PRIME, BEAR_IN)
# (label, least total pips) from the start down
PHASES = (("early (260+ pips)", 260), ("middle (180-259 pips)", 180), ("late (<180 pips)", 0))
# (label, upper bound of |our 0-ply equity difference|)
CLOSENESS = (("close <0.01", 0.01), ("0.01-0.04", 0.04), ("0.04-0.1", 0.1), ("clear >=0.1", float("inf")))
ANCHORS = 2  # points held in the other side's home board that make a back game
PRIME_LENGTH = 4


def position_class(board: np.ndarray) -> str:
    phase = classify(board)
    if phase == Phase.CONTACT:
        return CONTACT
    if phase == Phase.CRASHED:
        return CRASHED
    return RACE


def longest_run(row: np.ndarray) -> int:
    """The longest run of consecutive made points (2+ checkers) on points 1-24."""
    best = run = 0
    for count in row[:BAR]:
        run = run + 1 if count >= 2 else 0
        best = max(best, run)
    return best


def structures(board: np.ndarray) -> list[str]:
    board = np.asarray(board)
    out = []
    if int((board[ON_ROLL, 18:BAR] >= 2).sum()) >= ANCHORS:
        out.append(BACK_GAME)
    if int((board[OPPONENT, 18:BAR] >= 2).sum()) >= ANCHORS:
        out.append(AGAINST_BACK_GAME)
    if max(longest_run(board[ON_ROLL]), longest_run(board[OPPONENT])) >= PRIME_LENGTH:
        out.append(PRIME)
    if board[ON_ROLL].sum() and not board[ON_ROLL, 12:].any() and has_contact(board):
        out.append(BEAR_IN)
    return out


def phase(board: np.ndarray) -> str:
    pips = np.arange(1, BAR + 2)
    total = int(np.dot(np.asarray(board, np.int64).sum(axis=0), pips))
    return next(label for label, least in PHASES if total >= least)


def closeness(equity_gap: float) -> str:
    gap = abs(equity_gap)
    return next(label for label, bound in CLOSENESS if gap < bound)


def position_tags(board: np.ndarray) -> dict:
    """The tags of a position that do not depend on the choices: class, structures, phase."""
    return {"class": position_class(board), "tags": structures(board), "phase": phase(board)}


def labels(tags: dict) -> list[str]:
    """The table rows a position counts in (closeness aside: it needs two choices)."""
    return ["all", tags["class"], *tags["tags"], tags["phase"]]
