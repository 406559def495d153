"""scripts/labels/build_rollout_set.py: which positions a rollout set takes."""

from __future__ import annotations

import numpy as np

from scripts.diagnosis.tags import AGAINST_BACK_GAME, BACK_GAME
from tests.script_loader import load_script


def back_game(on_roll_behind: bool) -> np.ndarray:
    """The side on roll holds the opponent's 3 and 4 points (its own 22 and 21) with
    three checkers each; in contact; its pips lead or trail by a lot."""
    board = np.zeros((2, 25), np.int8)
    board[0, 20], board[0, 21] = 3, 3  # its points 21 and 22: in the opponent's home board
    board[0, 5], board[0, 7] = 5, 4
    board[1, 5], board[1, 6], board[1, 7], board[1, 9] = 4, 4, 4, 3  # the opponent: home and outfield
    if not on_roll_behind:  # the opponent's checkers pushed back: it trails
        board[1] = 0
        board[1, 23], board[1, 22], board[1, 21] = 5, 5, 5
    return board


def test_a_back_game_counts_only_where_its_holder_trails_by_the_margin():
    module = load_script("labels.build_rollout_set")
    trailing, leading = back_game(True), back_game(False)
    assert module.back_game_lead(trailing, BACK_GAME) >= 40
    assert module.back_game_lead(leading, BACK_GAME) < 0
    classes = ["contact", "crashed"]
    assert module.wanted(trailing, classes, None, BACK_GAME, 40)
    assert not module.wanted(leading, classes, None, BACK_GAME, 40)  # two anchors back but ahead: no back game
    assert module.wanted(leading, classes, None, BACK_GAME, -1000)
    assert not module.wanted(trailing, classes, None, AGAINST_BACK_GAME, 0)  # the other side holds nothing
    assert not module.wanted(trailing, classes, None, None, 40, without=(BACK_GAME,))
    assert module.wanted(leading, classes, None, None, 40, without=(BACK_GAME,))


def test_the_set_leaves_out_duplicates_and_excluded_positions(tmp_path, capsys):
    module = load_script("labels.build_rollout_set")
    trailing = back_game(True)
    other = trailing.copy()
    other[0, 5], other[0, 4] = 4, 1  # the same structure, another position
    boards = np.stack([trailing, trailing, other])
    labels = np.full((3, 5), 0.5, np.float16)
    np.savez(tmp_path / "a.npz", boards=boards, sage1=labels)
    np.savez(tmp_path / "test.npz", boards=other[None])
    common = [str(tmp_path / "a.npz"), "--class", "contact", "crashed", "--phase", "any"]
    common += ["--structure", BACK_GAME, "--behind", "40", "--seed", "1"]
    module.main([*common, "--count", "2", "--out", str(tmp_path / "both.npz")])
    with np.load(tmp_path / "both.npz") as data:
        assert len(data["boards"]) == 2 and "2 of the 2 distinct" in str(data["sources"][0])
    module.main([*common, "--count", "1", "--exclude", str(tmp_path / "test.npz"), "--out", str(tmp_path / "one.npz")])
    with np.load(tmp_path / "one.npz") as data:
        assert (data["boards"] == trailing).all() and data["sage1"].shape == (1, 5)
