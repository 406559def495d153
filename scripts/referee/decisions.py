"""The decisions the match-play referee judges: positions from self-play, each given a score and cube.

Checker decisions are contact turns with a real choice from pubeval self-play, as
``scripts/referee/judge_checker_play.py`` samples them, but three drawn at random from each
game rather than a few games' every turn; the stream of such turns is dealt
alternately to match play and money play (even turns to match, odd to money), so a
run asking for more of one kind keeps the decisions of the other.  Cube decisions
are positions before the roll where a double is plausible, from our net's 0-ply
self-play, as ``scripts/cube_check`` samples them.  Every decision takes the next
scenario of its list in turn; lists are prefix-stable, so decision ``i`` is the same
whatever the counts asked for.

Match play is seven-point matches; money play has Jacoby off, as on FIBS.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from engine.cube.cubeful import view_may_double
from engine.cube.met import CubeView
from engine.rollout.selfplay_sample import sample_positions
from engine.rules.ids import CENTRED, MatchState, xgid
from engine.rules.moves import MoveBuffers, generate_moves
from engine.rules.position import Position

MATCH_LENGTH = 7
PER_GAME = 3  # checker decisions drawn from one self-play game
CHECKER, CUBE = "checker", "cube"
MATCH, MONEY = "match", "money"
_OWNERS = {"centred": CENTRED, "roller": 0, "opponent": 1}


@dataclass(frozen=True)
class Scenario:
    """A score and cube seen by the side on roll (player 0)."""

    label: str
    away: tuple[int, int] = (0, 0)  # (side on roll, opponent) points away; (0, 0): money
    cube: int = 1
    owner: str = "centred"  # "centred", "roller" or "opponent"
    crawford: bool = False

    @property
    def play(self) -> str:
        return MONEY if self.away == (0, 0) else MATCH

    def state(self, dice: tuple[int, int] | None = None) -> MatchState:
        dice = dice or (0, 0)
        owner = _OWNERS[self.owner]
        if self.play == MONEY:
            return MatchState(cube=self.cube, cube_owner=owner, on_roll=0, dice=dice, jacoby=False)
        score = (MATCH_LENGTH - self.away[0], MATCH_LENGTH - self.away[1])
        return MatchState(
            cube=self.cube,
            cube_owner=owner,
            on_roll=0,
            crawford=self.crawford,
            dice=dice,
            match_length=MATCH_LENGTH,
            score=score,
            jacoby=False,
        )


def _match(roller: int, other: int, **cube) -> Scenario:
    kind = ""
    if 1 in (roller, other) and roller != other:
        kind = " Crawford" if cube.get("crawford") else " post-Crawford"
    owner = cube.get("owner", "centred")
    cube_text = "centred" if owner == "centred" else f"cube {cube.get('cube', 1)} {owner}'s"
    return Scenario(f"{roller}-away/{other}-away{kind} {cube_text}", (roller, other), **cube)


MATCH_CHECKER_SCENARIOS = (
    _match(7, 7),
    _match(5, 3),
    _match(3, 6),
    _match(4, 4, cube=2, owner="roller"),
    _match(6, 4, cube=2, owner="opponent"),
    _match(2, 5),
    _match(1, 4, crawford=True),
    _match(5, 1, crawford=True),
    _match(1, 3),  # post-Crawford: the opponent, trailing, may double freely
    _match(3, 1),  # post-Crawford: the side on roll trails
    _match(3, 3, cube=2, owner="opponent"),
    _match(5, 5, cube=2, owner="roller"),
)
MONEY_CHECKER_SCENARIOS = (
    Scenario("money centred"),
    Scenario("money cube 2 roller's", cube=2, owner="roller"),
    Scenario("money cube 2 opponent's", cube=2, owner="opponent"),
)
# The side on roll must be free to double: no Crawford game, no cube of the opponent's.
# Money comes every third decision so that both kinds of play gather in step.
CUBE_SCENARIOS = (
    _match(7, 7),
    _match(5, 4),
    Scenario("money centred"),
    _match(3, 5),
    _match(4, 2),
    Scenario("money cube 2 roller's", cube=2, owner="roller"),
    _match(5, 5, cube=2, owner="roller"),
    _match(6, 3, cube=2, owner="roller"),
    Scenario("money centred"),
    _match(4, 1),  # post-Crawford: the trailer's double
    _match(2, 3),
    Scenario("money cube 2 roller's", cube=2, owner="roller"),
)


@dataclass(frozen=True)
class Decision:
    kind: str  # CHECKER or CUBE
    index: int  # within its kind and play
    board: np.ndarray  # before the move or the roll, side on roll in row 0
    scenario: Scenario
    dice: tuple[int, int] | None = None  # a checker decision's roll

    @property
    def play(self) -> str:
        return self.scenario.play

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.kind, self.play, self.index)

    @property
    def state(self) -> MatchState:
        """The score and cube (no dice): what our agents and the rollouts are given."""
        return self.scenario.state()

    @property
    def xgid(self) -> str:
        """With the roll of a checker decision: the position gnubg is asked about."""
        return xgid(self.board, self.scenario.state(self.dice))


def _choice_turns(seed: int) -> Iterator[tuple[np.ndarray, tuple[int, int]]]:
    """Contact turns with more than one legal result from pubeval self-play, endless:
    ``PER_GAME`` of each game's, drawn at random, so that the decisions spread over
    many games and over the whole of each."""
    rng = np.random.default_rng(seed)
    buffers = MoveBuffers()
    game, turns = None, []
    for sample in sample_positions(2**62, seed, players=("pubeval",)):
        if sample.game_seed != game:
            if turns:
                chosen = rng.choice(len(turns), size=min(PER_GAME, len(turns)), replace=False)
                yield from (turns[i] for i in sorted(chosen))
            game, turns = sample.game_seed, []
        board = np.ascontiguousarray(sample.board, np.int8)
        if Position(board).has_contact() and generate_moves(board, *sample.dice, *buffers.args()) > 1:
            turns.append((board, (int(sample.dice[0]), int(sample.dice[1]))))


def checker_decisions(match_count: int, money_count: int, seed: int) -> list[Decision]:
    """``match_count`` match-play then ``money_count`` money-play checker decisions."""
    wanted = {MATCH: match_count, MONEY: money_count}
    scenarios = {MATCH: MATCH_CHECKER_SCENARIOS, MONEY: MONEY_CHECKER_SCENARIOS}
    found: dict[str, list[Decision]] = {MATCH: [], MONEY: []}
    if match_count or money_count:
        for turn, (board, dice) in enumerate(_choice_turns(seed)):
            play = MATCH if turn % 2 == 0 else MONEY
            index = len(found[play])
            if index < wanted[play]:
                found[play].append(Decision(CHECKER, index, board, scenarios[play][index % len(scenarios[play])], dice))
            if all(len(found[p]) >= wanted[p] for p in found):
                break
    return found[MATCH] + found[MONEY]


def cube_decisions(count: int, seed: int) -> list[Decision]:
    """``count`` cube decisions of the side on roll, match and money play mixed."""
    if count < 1:
        return []
    from engine.eval.evaluator import Evaluator
    from nets.player import resolve_net_path
    from scripts.cube_check.cases import choose_cases, gnubg_nn_source, net_source

    evaluator = Evaluator.load(resolve_net_path("default"))
    try:
        theirs = gnubg_nn_source()
    except ImportError:
        theirs = None
    cases = choose_cases(count, seed, net_source(evaluator), theirs, evaluator)
    out = []
    for index, case in enumerate(cases):
        scenario = CUBE_SCENARIOS[index % len(CUBE_SCENARIOS)]
        if not view_may_double(CubeView.of(scenario.state())):
            raise AssertionError(f"cube scenario {scenario.label!r} does not let the side on roll double")
        out.append(Decision(CUBE, index, np.ascontiguousarray(case.board, np.int8), scenario))
    return out


def interleaved(groups: list[list[Decision]]) -> list[Decision]:
    """All decisions, each group spread evenly over the whole, so that a run stopped
    early holds every kind in proportion."""
    ranked = [
        ((i + 0.5) / len(group), g, decision) for g, group in enumerate(groups) for i, decision in enumerate(group)
    ]
    return [decision for _, _, decision in sorted(ranked, key=lambda item: item[:2])]
