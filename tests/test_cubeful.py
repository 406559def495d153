"""engine.cube.cubeful: cubeful values n plies deep, checked against a plain recursion.

The tree evaluates a whole level at once and carries every cube position down in
one pass; the reference below walks one node at a time, the way gnubg's
``EvaluatePositionCubeful4`` reads, so the bookkeeping (which column is which cube
position, who may double, the side flips) is checked position by position.
"""

from __future__ import annotations

import numpy as np
import pytest

from engine.cube.cubeful import CubefulTree, cash_value, cube_equities, flip_view, reply_weights, view_may_double
from engine.cube.decision import cube_decision, cube_life, may_double
from engine.cube.janowski import cubeful
from engine.cube.met import ME, THEM, CubeView, cubeless_mwc, mwc_to_equity
from engine.eval.evaluator import Evaluator
from engine.eval.net import Net
from engine.players.agent import Agent
from engine.rollout.selfplay_sample import sample_positions
from engine.rules.boards import kernel_board
from engine.rules.ids import CENTRED, MatchState
from engine.rules.moves import MoveBuffers
from engine.rules.position import Position
from engine.search.nply import ROLL_WEIGHTS, choose_replies
from tests.board_builder import make_board
from tests.tiny_net import tiny_evaluator


@pytest.fixture(scope="module")
def agent() -> Agent:
    return Agent(tiny_evaluator(), ply=2)


def contact_positions(count: int, seed: int = 21) -> list[np.ndarray]:
    return [s.board for s in sample_positions(count * 3, seed) if Position(s.board).has_contact()][:count]


def other(value: float, view: CubeView) -> float:
    return -value if view.money else 1.0 - value


def reference(
    agent: Agent, board: np.ndarray, view: CubeView, plies: int, top: bool, chooser: CubeView | None = None
) -> float:
    """One node at a time: the value for the side on roll of ``board`` under ``view``;
    the side on roll picks its replies by its gammon values seen as ``chooser`` (the
    tree takes them from the first cube position it was asked about)."""
    chooser = chooser or view
    if board[1].sum() == 0:  # the other side has borne off: a finished game, dead cube
        probs = np.array([0.0, 0.0, 0.0, 0.0, 0.0])
        return float(cubeful(probs, view, 0.0)[0])
    if plies == 0:
        probs = agent.probabilities(board, 0)
        nd = float(cubeful(probs, view, cube_life(board))[0])
        if top or not view_may_double(view):
            return nd
        dt = float(cubeful(probs, view.doubled(), cube_life(board))[0])
        return decided(view, nd, dt)
    replies = np.zeros((21, 2, 25), np.int8)
    reply_probs = np.zeros((21, 5), np.float32)
    choose_replies(
        agent.ctx,
        kernel_board(board),  # writeable: a read-only board compiles the replies apart
        MoveBuffers().args(),
        np.zeros(5, np.float32),
        replies,
        reply_probs,
        reply_weights(chooser),
    )

    def averaged(v: CubeView) -> float:
        total = 0.0
        for r in range(21):
            child = np.ascontiguousarray(replies[r][::-1])
            if child[1].sum() == 0:  # the mover won: its exact outcome, the cube dead
                mover = reply_probs[r].astype(np.float64)
                loser = np.array([1.0 - mover[0], mover[3], mover[4], mover[1], mover[2]])
                value = float(cubeful(loser, flip_view(v), 0.0)[0])
            else:
                value = reference(agent, child, flip_view(v), plies - 1, top=False, chooser=flip_view(chooser))
            total += ROLL_WEIGHTS[r] * other(value, v)
        return total

    nd = averaged(view)
    if top or not view_may_double(view):
        return nd
    return decided(view, nd, averaged(view.doubled()))


def decided(view: CubeView, nd: float, dt: float) -> float:
    dp = cash_value(view)
    return min(dt, dp) if dt >= nd and dp >= nd else nd


VIEWS = [
    CubeView((0, 0)),
    CubeView((0, 0), cube=2, owner=ME),
    CubeView((0, 0), cube=2, owner=THEM, jacoby=True),
    CubeView((0, 0), jacoby=True),
    CubeView((5, 3)),
    CubeView((4, 4), cube=2, owner=ME),
    CubeView((3, 6), cube=2, owner=THEM),
    CubeView((2, 1), crawford=True),
    CubeView((3, 1)),  # post-Crawford, the trailer on roll
    CubeView((1, 4)),  # post-Crawford, the leader on roll: no cube for it
]


@pytest.mark.parametrize("plies", [0, 1, 2])
def test_the_tree_equals_a_node_by_node_recursion(agent, plies):
    boards = contact_positions(2 if plies == 2 else 4)
    tree = CubefulTree(agent.ctx)
    for view_group in (VIEWS[:4], VIEWS[4:]):
        probs = np.array([agent.probabilities(b, 0) for b in boards])
        for top in (True, False):
            values = tree.values(np.stack(boards), probs, view_group, plies, decide_at_root=not top)
            for i, board in enumerate(boards):
                for j, view in enumerate(view_group):
                    expected = reference(agent, board, view, plies, top, chooser=view_group[0])
                    assert values[i, j] == pytest.approx(expected, abs=2e-5)


def test_zero_plies_gives_the_janowski_decision_of_engine_cube(agent):
    tree = CubefulTree(agent.ctx)
    for board in contact_positions(5, seed=3):
        probs = agent.probabilities(board, 0)
        for state in (
            MatchState(),
            MatchState(match_length=7, score=(2, 4)),
            MatchState(match_length=5, score=(1, 0), cube=2, cube_owner=0),
        ):
            ours = cube_equities(tree, board, probs, state, 0)
            gnubg_style = cube_decision(probs, state, cube_life=cube_life(board)).equities
            assert ours == pytest.approx(gnubg_style, abs=1e-9)


def test_a_dead_cube_leaves_the_winning_chance_whatever_the_cube(agent):
    """At double match point the cube can change nothing: the cubeful value is the
    same for a centred cube and one owned by either side, at every depth, and at 0
    plies it is the winning chance itself."""
    tree = CubefulTree(agent.ctx)
    board = contact_positions(1, seed=8)[0]
    state = MatchState(match_length=7, score=(6, 6))
    assert not may_double(state)
    view = CubeView.of(state)
    views = [view, CubeView(view.away, 2, ME), CubeView(view.away, 2, THEM)]
    probs = agent.probabilities(board, 0)
    for plies in (0, 1, 2):
        values = tree.values(board[None], probs[None], views, plies, decide_at_root=True)[0]
        assert values == pytest.approx([values[0]] * 3, abs=1e-12)
    zero = tree.values(board[None], probs[None], views[:1], 0, decide_at_root=True)[0, 0]
    assert zero == pytest.approx(cubeless_mwc(probs, view)) and zero == pytest.approx(probs[0])


def test_no_double_in_the_crawford_game_nor_past_the_match(agent):
    board = contact_positions(1, seed=9)[0]
    crawford = MatchState(match_length=5, score=(4, 2), crawford=True)
    past = MatchState(match_length=5, score=(3, 1), cube=2, cube_owner=0)  # a redouble to 4 wins nothing more
    for state in (crawford, past):
        assert not may_double(state)
        choice = agent.double_decision(board, state)
        assert not choice.double and choice.action == "no double"


def test_a_gammon_won_with_any_roll_is_worth_two_cubes_and_too_good_to_double():
    """Two checkers on the ace point against fifteen, none off: every roll bears both
    off for a gammon, so at 1 and 2 plies "no double" is worth exactly 2 cubes and
    "double, take" 4 (money, no Jacoby rule): the side plays on.  Under the Jacoby
    rule the gammon counts only once the cube is turned: playing on is worth what
    cashing is."""
    board = make_board({1: 2}, {6: 15})
    net = Evaluator(Net.create("gnubg5", "contact", 8, seed=1), Net.create("gnubg5", "race", 8, seed=2), name="t")
    agent = Agent(net, ply=2)
    state = MatchState(cube=1, cube_owner=CENTRED, jacoby=False)
    jacoby = MatchState(cube=1, cube_owner=CENTRED, jacoby=True)
    for plies in (1, 2):
        equities = cube_equities(agent.tree, board, agent.probabilities(board, 0), state, plies)
        assert equities == pytest.approx({"no_double": 2.0, "double_take": 4.0, "double_drop": 1.0})
        equities = cube_equities(agent.tree, board, agent.probabilities(board, 0), jacoby, plies)
        assert equities == pytest.approx({"no_double": 1.0, "double_take": 4.0, "double_drop": 1.0})
    assert agent.double_decision(board, state).action == "too good"
    # 2-away/2-away: the gammon wins the match whatever the cube
    match = MatchState(match_length=5, score=(3, 3))
    equities = cube_equities(agent.tree, board, agent.probabilities(board, 0), match, 1)
    view = CubeView.of(match)
    assert equities["no_double"] == pytest.approx(mwc_to_equity(1.0, view))
    assert equities["double_drop"] == pytest.approx(1.0)
