"""Labeller specs, and the bgsage adapter checked against bgsage's own API."""

from __future__ import annotations

import numpy as np
import pytest

from engine.players.agent import Agent
from engine.rules.boards import flip_into, initial_board
from engine.rules.moves import MoveBuffers, generate_moves
from nets.player import load_agent
from nets.train.labellers import (
    BgsageLabeller,
    LabellerError,
    NetLabeller,
    RolloutLabeller,
    finished_label,
    parse_labeller,
    sage_board,
)
from nets.train.labels import label_positions, selfplay_positions


@pytest.fixture(scope="module")
def agent() -> Agent:
    return load_agent("net:default", ply=0)


@pytest.fixture(scope="module")
def positions(agent) -> np.ndarray:
    return selfplay_positions(agent, 4, seed=77, explore=0.3)


def test_specs_name_their_labellers():
    assert parse_labeller("net:default@2") == NetLabeller("default", 2)
    assert parse_labeller("net:nets/x.npz@0") == NetLabeller("nets/x.npz", 0)
    assert parse_labeller("rollout:36") == RolloutLabeller(36, "default")
    assert parse_labeller("rollout:8:td900k") == RolloutLabeller(8, "td900k")
    assert parse_labeller("bgsage@3", threads=2) == BgsageLabeller(3, 2)
    for spec in ("net:default@2", "rollout:36", "rollout:8:td900k", "bgsage@3"):
        assert parse_labeller(spec).spec == spec


@pytest.mark.parametrize(
    "spec",
    [
        "",
        "net:default",
        "net:default@3",
        "net:@1",
        "rollout:0",
        "rollout:x",
        "bgsage@0",
        "bgsage@5",
        "bgsage",
        "gnubg@2",
    ],
)
def test_bad_specs_are_clear_errors(spec):
    with pytest.raises(LabellerError, match="unknown labeller"):
        parse_labeller(spec)


def test_net_labeller_is_our_search(agent, positions, monkeypatch):
    import nets.train.labels

    monkeypatch.setitem(nets.train.labels._agents, "net:default", agent)
    boards = positions[:5]
    assert np.array_equal(NetLabeller("default", 1).label(boards), label_positions(agent, boards, 1))


def test_a_finished_game_is_labelled_exactly():
    board = np.zeros((2, 25), np.int8)
    board[0, 20] = 15  # the side on roll never left the opponent's home board: lost a backgammon
    assert finished_label(board).tolist() == [0.0, 0.0, 0.0, 1.0, 1.0]
    board[0] = 0
    board[0, 3] = 1  # one checker left, on its own home board: a single loss
    assert finished_label(board).tolist() == [0.0, 0.0, 0.0, 0.0, 0.0]
    assert finished_label(initial_board()) is None


def test_missing_bgsage_is_a_clear_error(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_bgsage(name, *args, **kwargs):
        if name.startswith("bgsage"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_bgsage)
    with pytest.raises(LabellerError, match=r"pip install 'fibsbot\[bgsage\]'"):
        BgsageLabeller(1).require()


bgsage = pytest.importorskip("bgsage", reason="bgsage (the optional labeller) is not installed")


def test_sage_board_of_the_opening_is_bgsages():
    from bgsage.board import STARTING_BOARD

    assert sage_board(initial_board()) == STARTING_BOARD


def test_our_moves_are_bgsages_moves(positions):
    """The board's orientation, bars included: both engines list the same results."""
    from bgsage.board import possible_moves

    buffers = MoveBuffers()
    checked = 0
    for i, board in enumerate(positions[::3]):
        d1, d2 = 1 + i % 6, 1 + (i * 5 + 2) % 6
        n = generate_moves(board, d1, d2, *buffers.args())
        ours = {tuple(sage_board(buffers.boards[k])) for k in range(n)}
        theirs = {tuple(b) for b in possible_moves(sage_board(board), d1, d2)}
        if n == 1 and not theirs:  # no legal move: we list the board unchanged, bgsage nothing
            assert (buffers.boards[0] == board).all()
            continue
        assert ours == theirs
        checked += 1
    assert checked > 40
    assert any(board[0, 24] or board[1, 24] for board in positions[::3]), "no position with a checker on a bar"


def test_labels_are_before_the_roll_for_the_side_on_roll(positions):
    """bgsage's own post-move value of the same position, seen by the side that just
    moved and inverted, is our label: orientation and timing of the probabilities."""
    from bgsage.batch import batch_post_move_evaluate

    boards = positions[:12]
    labels = BgsageLabeller(1).label(boards)
    after = np.empty((2, 25), np.int8)
    mover_views = []
    for board in boards:
        flip_into(board, after)
        mover_views.append({"board": sage_board(after), "cube_owner": "centered"})
    mover = np.array([r.probs.to_list() for r in batch_post_move_evaluate(mover_views, eval_level="1ply", n_threads=1)])
    expected = np.column_stack([1 - mover[:, 0], mover[:, 3], mover[:, 4], mover[:, 1], mover[:, 2]])
    assert labels == pytest.approx(expected, abs=1e-6)


def test_a_crushing_position_is_a_near_certain_gammon_for_the_side_on_roll():
    board = np.zeros((2, 25), np.int8)
    board[0, 0] = 2  # two checkers left on the ace point
    board[1, 18] = 13  # the opponent's 19 point is our 6 point: in our home board
    board[1, 24] = 2  # and two on the bar, nothing borne off: we bear off next roll and win a backgammon
    win, win_gammon, win_bg, lose_gammon, lose_bg = BgsageLabeller(1).label(board[None])[0]
    assert win > 0.99 and win_gammon > 0.99 and win_bg > 0.99 and lose_gammon < 0.01 and lose_bg < 0.01
