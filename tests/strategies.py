"""Hypothesis strategies and seeded generators for positions and match states.

Boards are in the engine layout (int8 (2, 25), row 0 on roll, column 24 = bar):
any number of checkers from 0 to 15 per side, never both sides on one point,
checkers on the bar allowed.  They need not be reachable in a real game.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from engine.rules.ids import CENTRED, GameState, MatchState, Resignation
from engine.rules.position import BAR, NUM_CHECKERS

ALL_COLUMNS = tuple(range(BAR + 1))


def _facing(column: int) -> int | None:
    """The opponent's column for the same point, or None for the bar."""
    return None if column == BAR else 23 - column


def _board_from_columns(ours: list[int], theirs: list[int]) -> np.ndarray:
    board = np.zeros((2, 25), dtype=np.int8)
    for column in ours:
        board[0, column] += 1
    for column in theirs:
        board[1, column] += 1
    return board


@st.composite
def boards(
    draw,
    min_checkers: int = 0,
    max_checkers: int = NUM_CHECKERS,
    allow_bar: bool = True,
) -> np.ndarray:
    """A legal arrangement of checkers; each side gets min..max checkers."""
    columns = ALL_COLUMNS if allow_bar else ALL_COLUMNS[:BAR]
    ours = draw(st.lists(st.sampled_from(columns), min_size=min_checkers, max_size=max_checkers))
    blocked = {_facing(c) for c in ours}
    free = [c for c in columns if c not in blocked]
    theirs = draw(st.lists(st.sampled_from(free), min_size=min_checkers, max_size=max_checkers))
    return _board_from_columns(ours, theirs)


def random_board(
    rng: np.random.Generator,
    min_checkers: int = 0,
    max_checkers: int = NUM_CHECKERS,
    allow_bar: bool = True,
) -> np.ndarray:
    """The same kind of board as ``boards()``, from a seeded numpy generator."""
    columns = ALL_COLUMNS if allow_bar else ALL_COLUMNS[:BAR]
    ours = list(rng.choice(columns, size=rng.integers(min_checkers, max_checkers + 1)))
    blocked = {_facing(int(c)) for c in ours}
    free = [c for c in columns if c not in blocked]
    theirs = list(rng.choice(free, size=rng.integers(min_checkers, max_checkers + 1)))
    return _board_from_columns([int(c) for c in ours], [int(c) for c in theirs])


def random_and_played_boards(seed: int, count: int = 150) -> list[np.ndarray]:
    """``count`` random boards and ``count`` met in self-play (random and pubeval), both
    from ``seed``: odd corners and realistic positions for a feature's definition."""
    from engine.rollout.selfplay_sample import sample_positions

    rng = np.random.default_rng(seed)
    return [random_board(rng) for _ in range(count)] + [s.board for s in sample_positions(count, seed=seed)]


def dice() -> st.SearchStrategy[tuple[int, int]]:
    """A roll, larger die first."""
    return st.tuples(st.integers(1, 6), st.integers(1, 6)).map(lambda d: (max(d), min(d)))


@st.composite
def match_states(draw, max_length: int = 25, money: bool | None = None) -> MatchState:
    """A consistent match state (money game or a match of up to ``max_length``)."""
    if money is None:
        money = draw(st.booleans())
    length = 0 if money else draw(st.integers(1, max_length))
    if money:
        score = (draw(st.integers(0, 50)), draw(st.integers(0, 50)))
        crawford = False
    else:
        score = (draw(st.integers(0, length - 1)), draw(st.integers(0, length - 1)))
        crawford = length - 1 in score and draw(st.booleans())
    on_roll = draw(st.integers(0, 1))
    rolled = draw(st.booleans())
    doubled = not rolled and not crawford and draw(st.booleans())
    resigned = Resignation(draw(st.integers(0, 3))) if not doubled else Resignation.NONE
    to_decide = 1 - on_roll if (doubled or resigned) else on_roll
    return MatchState(
        cube=1 if crawford else 1 << draw(st.integers(0, 6)),
        cube_owner=draw(st.sampled_from((CENTRED, 0, 1))),
        on_roll=on_roll,
        crawford=crawford,
        game_state=draw(st.sampled_from(tuple(GameState))) if draw(st.booleans()) else GameState.PLAYING,
        to_decide=to_decide,
        doubled=doubled,
        resigned=resigned,
        dice=draw(dice()) if rolled else (0, 0),
        match_length=length,
        score=score,
        jacoby=draw(st.booleans()),
        beavers=draw(st.booleans()) if money else False,
    )


def random_match_state(rng: np.random.Generator, max_length: int = 25) -> MatchState:
    """A consistent, still-playing match state from a seeded numpy generator."""
    length = 0 if rng.random() < 0.4 else int(rng.integers(1, max_length + 1))
    if length:
        score = (int(rng.integers(0, length)), int(rng.integers(0, length)))
        crawford = length - 1 in score and bool(rng.random() < 0.5)
    else:
        score = (int(rng.integers(0, 20)), int(rng.integers(0, 20)))
        crawford = False
    on_roll = int(rng.integers(0, 2))
    rolled = rng.random() < 0.7
    doubled = not rolled and not crawford and bool(rng.random() < 0.3)
    roll = sorted(int(d) for d in rng.integers(1, 7, size=2))
    return MatchState(
        cube=1 if crawford else 1 << int(rng.integers(0, 7)),
        cube_owner=int(rng.choice([CENTRED, 0, 1])),
        on_roll=on_roll,
        crawford=crawford,
        to_decide=1 - on_roll if doubled else on_roll,
        doubled=doubled,
        dice=(roll[1], roll[0]) if rolled else (0, 0),
        match_length=length,
        score=score,
        jacoby=bool(rng.random() < 0.5) if not length else False,
        beavers=bool(rng.random() < 0.5) if not length else False,
    )


def random_race_board(rng: np.random.Generator) -> np.ndarray:
    """A race (no contact, nobody on the bar): each side's rearmost checker somewhere
    that the other's cannot meet, so bear-ins, bear-offs and a side still in the other's
    home board all come up; each side has all 15 checkers half the time (gammons at
    stake), else 1 to 14."""
    board = np.zeros((2, 25), dtype=np.int8)
    first = int(rng.integers(0, 2))  # whose rearmost point is drawn first
    backs = [0, 0]
    backs[first] = int(rng.integers(0, 23))
    backs[1 - first] = int(rng.integers(0, 23 - backs[first]))  # at 23 they would share a point
    for side in range(2):
        count = NUM_CHECKERS if rng.random() < 0.5 else int(rng.integers(1, NUM_CHECKERS))
        board[side, backs[side]] = 1
        for column in rng.integers(0, backs[side] + 1, size=count - 1):
            board[side, column] += 1
    return board
