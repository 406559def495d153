"""The positions ``check_cube_vs_gnubg.py`` asks about, and our sources of cube decisions.

Positions come from 0-ply self-play of a net, kept where a cube decision is
plausible, each given one of ``SCENARIOS`` (a score and cube state) in turn.  A
probability source maps a board to the five probabilities of the side on roll;
a ``PlayerDecider`` gives a whole player's cube decision instead.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from engine.eval.evaluator import Evaluator, best_candidate
from engine.rules.dice import game_seed, opening_roll, roll
from engine.rules.ids import CENTRED, MatchState
from engine.rules.moves import MoveBuffers, generate_moves
from engine.rules.position import Position

ProbabilitySource = Callable[[np.ndarray], np.ndarray]
PLAUSIBLE = (0.55, 0.95)
MAX_PER_GAME = 4
MAX_TURNS = 400


@dataclass(frozen=True)
class Scenario:
    """A score and cube seen from the side on roll (player 0 here)."""

    label: str
    away_roller: int = 0  # 0 and 0: money
    away_other: int = 0
    cube: int = 1
    owned: bool = False  # by the side on roll; else centred

    def state(self) -> MatchState:
        owner = 0 if self.owned else CENTRED
        if not self.away_roller:
            return MatchState(cube=self.cube, cube_owner=owner, on_roll=0, jacoby=True)
        length = max(self.away_roller, self.away_other) + 2
        return MatchState(
            cube=self.cube,
            cube_owner=owner,
            on_roll=0,
            match_length=length,
            score=(length - self.away_roller, length - self.away_other),
        )


SCENARIOS = (
    Scenario("money centred"),
    Scenario("money cube 2 owned", cube=2, owned=True),
    Scenario("3-away/3-away", 3, 3),
    Scenario("2-away/4-away", 2, 4),
    Scenario("4-away/2-away", 4, 2),
    Scenario("3-away/1-away post-Crawford", 3, 1),
    Scenario("5-away/5-away", 5, 5),
    Scenario("5-away/5-away cube 2 owned", 5, 5, cube=2, owned=True),
    Scenario("7-away/4-away", 7, 4),
)


@dataclass
class Case:
    board: np.ndarray
    scenario: Scenario
    game: int
    turn: int

    @property
    def state(self) -> MatchState:
        return self.scenario.state()


class PlayerDecider:
    """A whole player's cube decision (``net:NAME@LEVEL``: cubeful at its depth),
    not a probability source fed through 0-ply Janowski."""

    def __init__(self, spec: str) -> None:
        from nets.player import load_agent

        self.agent = load_agent(spec)

    def decide(self, board: np.ndarray, state: MatchState):
        choice = self.agent.double_decision(np.ascontiguousarray(board, np.int8), state)
        return choice, np.asarray(choice.probs) if choice.probs else np.zeros(5)


def net_source(evaluator: Evaluator) -> ProbabilitySource:
    return lambda board: np.asarray(evaluator.probabilities(board), dtype=np.float64)


def gnubg_nn_source() -> ProbabilitySource:
    import gnubg_nn  # gnubg-nn boards have the side on roll in row 1

    return lambda board: np.asarray(gnubg_nn.probabilities(board[::-1].tolist(), 0), dtype=np.float64)


def selfplay_boards(evaluator: Evaluator, seed: int) -> Iterator[tuple[np.ndarray, int, int]]:
    """(board before the roll, game, turn) from endless 0-ply self-play of the net."""
    buffers = MoveBuffers()
    game = 0
    while True:
        seed_value = np.uint64(int(game_seed(seed, game)))
        board = Position.initial().board.copy()
        dice = opening_roll(seed_value)
        for turn in range(MAX_TURNS):
            if turn:
                dice = roll(seed_value, turn)
                yield board.copy(), game, turn
            n = generate_moves(board, int(dice[0]), int(dice[1]), *buffers.args())
            equities, _ = evaluator.move_equities(buffers.boards[:n])
            after = buffers.boards[best_candidate(buffers.boards[:n], n, equities)]
            if after[0].sum() == 0:
                break
            board = after[::-1].copy()
        game += 1


def choose_cases(
    count: int, seed: int, ours: ProbabilitySource, theirs: ProbabilitySource | None, evaluator: Evaluator
) -> list[Case]:
    rng = np.random.default_rng(seed)
    cases: list[Case] = []
    per_game: dict[int, int] = defaultdict(int)
    low, high = PLAUSIBLE
    for board, game, turn in selfplay_boards(evaluator, seed):
        if per_game[game] >= MAX_PER_GAME or rng.random() < 0.5:
            continue  # spread the sample over many games
        wins = [ours(board)[0]] + ([theirs(board)[0]] if theirs else [])
        if not any(low <= w <= high for w in wins):
            continue
        per_game[game] += 1
        cases.append(Case(board, SCENARIOS[len(cases) % len(SCENARIOS)], game, turn))
        if len(cases) == count:
            return cases
    raise AssertionError("unreachable")
