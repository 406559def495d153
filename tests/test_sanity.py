"""Every evaluation possible: ``engine.eval.sanity.keep_possible`` on hand-made boards,
against the bearoff database and GNU Backgammon, and at the end of every evaluation
path (``hint``, the agent at 0 and 1 ply, interpreted or compiled, the bare nets, a
roll's results, TD targets)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from engine.eval.bearoff import load_bearoff_db
from engine.eval.bearoff_gen import all_bearoff_positions
from engine.eval.net import GNUBG5, SYMMETRIC, TESAURO3, cubeless_equities
from engine.eval.sanity import home_max_turns, keep_possible, keep_possible_flipped
from engine.rules.boards import initial_board
from engine.rules.ids import board_from_position_id, position_id
from fibsbot.cli import main
from nets.player import load_agent
from nets.train.td_kernel import keep_raw_possible
from tests.board_builder import make_board
from tests.gnubg_cli import gnubg_available, run_blocks
from tests.strategies import random_race_board

# Races the side on roll loses a gammon in, with nothing in the winner's home board:
# worth -2 exactly.  Before the figures were kept possible `hint` gave, at 0, 1 and 2 ply,
# -2.221, -3.000, -2.000 (15 on its 12 point against 2 on the ace), -2.288, -2.950,
# -2.148 and -2.229, -2.647, -2.196: the nets' backgammons (0.22 to 0.29 at 0-ply)
HOPELESS_RACES = ("AwAAAMD/HwAAAA", "4AMAAMD/HwAAAA", "YAAAAP7/AAAAAA")


@pytest.mark.parametrize("ply", [0, 1, 2])
@pytest.mark.parametrize("position", HOPELESS_RACES)
def test_a_race_that_is_a_certain_gammon_is_worth_minus_two_at_every_ply(capsys, position, ply):
    assert main(["hint", "--position-id", position, "--json", "--ply", str(ply)]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["equities"]["no_double"] == pytest.approx(-2.0, abs=0.01)
    assert answer["probs"][2] == answer["probs"][4] == 0.0


def test_the_interpreted_first_start_path_keeps_them_possible_too():
    """Before the search is compiled every figure comes from ``engine.eval.pytwin``'s
    interpreted kernels, which run the same rules."""
    cold = load_agent("net:default@0")
    cold.search_ready = False
    for position in HOPELESS_RACES:
        probs = cold.probabilities(board_from_position_id(position))
        assert probs[2] == probs[4] == 0.0
        assert cubeless_equities(probs) == pytest.approx(-2.0, abs=0.01)


def kept(board: np.ndarray, probs) -> list[float]:
    out = np.array(probs, np.float32)
    keep_possible(board, out)
    return [float(p) for p in out]


# ---- the rules, on hand-made boards ------------------------------------------------


def test_no_gammon_is_lost_by_a_side_that_has_borne_a_checker_off():
    board = initial_board()
    board[0, 23] = 1  # one of the back checkers is off: contact, 14 on the board
    assert kept(board, [0.4, 0.1, 0.01, 0.2, 0.02]) == pytest.approx([0.4, 0.1, 0.01, 0.0, 0.0])
    flipped = board[::-1].copy()  # the other side on roll wins no gammon
    assert kept(flipped, [0.6, 0.2, 0.02, 0.1, 0.01]) == pytest.approx([0.6, 0.0, 0.0, 0.1, 0.01])


def test_in_contact_a_side_with_nothing_back_can_still_be_backgammoned():
    board = make_board({6: 5, 8: 3, 13: 7}, {6: 5, 8: 3, 13: 5, 24: 2})  # it may yet be hit
    assert kept(board, [0.3, 0.05, 0.01, 0.3, 0.05]) == pytest.approx([0.3, 0.05, 0.01, 0.3, 0.05])


def test_in_a_race_no_backgammon_is_lost_with_nothing_in_the_winners_home_board():
    board = make_board({8: 8, 7: 7}, {6: 5, 5: 5, 4: 5})  # the gammon is still open
    assert kept(board, [0.1, 0.0, 0.0, 0.5, 0.2]) == pytest.approx([0.1, 0.0, 0.0, 0.5, 0.0])


def test_a_straggler_that_escapes_before_the_winner_can_finish_saves_the_backgammon():
    # one checker on the winner's 6 point (two rolls bring it out); the winner needs four
    board = make_board({19: 1, 6: 14}, {5: 15})
    assert kept(board, [0.0, 0.0, 0.0, 1.0, 0.4]) == pytest.approx([0.0, 0.0, 0.0, 1.0, 0.0])


def test_bearing_off_the_last_checkers_with_any_roll_wins_and_backgammons_a_straggler():
    board = make_board({1: 2}, {19: 1, 6: 14})
    assert kept(board, [0.9, 0.6, 0.3, 0.05, 0.0]) == [1.0, 1.0, 1.0, 0.0, 0.0]
    assert kept(make_board({2: 1}, {1: 15}), [0.9, 0.2, 0.1, 0.0, 0.0]) == [1.0, 1.0, 0.0, 0.0, 0.0]


def test_a_race_that_cannot_be_won_before_the_other_side_finishes_is_lost():
    board = make_board({4: 1, 22: 1}, {3: 1})  # 6-6 brings 24 pips: both checkers need 26
    assert kept(board, [0.05, 0.0, 0.0, 0.0, 0.0]) == [0.0, 0.0, 0.0, 0.0, 0.0]


def test_no_gammon_where_the_loser_bears_a_checker_off_before_the_winner_can_finish():
    board = make_board({1: 8, 2: 7}, {14: 1, 22: 1})  # it bears one off this roll
    assert kept(board, [0.15, 0.0, 0.0, 0.05, 0.0]) == pytest.approx([0.15, 0.0, 0.0, 0.0, 0.0])


def test_figures_are_probabilities_in_cumulative_order():
    board = initial_board()
    assert kept(board, [1.2, 1.3, 0.9, 0.5, 0.6]) == pytest.approx([1.0, 1.0, 0.9, 0.0, 0.0])
    assert kept(board, [-0.1, 0.2, 0.3, 0.7, 0.8]) == pytest.approx([0.0, 0.0, 0.0, 0.7, 0.7])
    assert kept(board, [0.6, 0.2, 0.3, 0.5, 0.6]) == pytest.approx([0.6, 0.2, 0.2, 0.4, 0.4])


def test_tiny_gammons_are_noise_in_contact_but_not_in_a_race():
    assert kept(initial_board(), [0.5, 5e-5, 1e-5, 0.1, 2e-5]) == pytest.approx([0.5, 0.0, 0.0, 0.1, 0.0])
    race = make_board({8: 8, 7: 7}, {6: 5, 5: 5, 4: 5})
    assert kept(race, [0.1, 0.0, 0.0, 5e-5, 0.0]) == pytest.approx([0.1, 0.0, 0.0, 5e-5, 0.0])


def test_the_flipped_form_reads_the_board_from_the_side_not_on_roll():
    rng = np.random.default_rng(7)
    for _ in range(50):
        board = random_race_board(rng)
        probs = rng.random(5).astype(np.float32)
        flipped = probs.copy()
        keep_possible_flipped(board, flipped)
        assert kept(board[::-1].copy(), probs) == [float(p) for p in flipped]


def test_home_max_turns_is_the_longest_bear_off_in_the_one_sided_database():
    off = load_bearoff_db().off
    longest = off.shape[1] - 1 - np.argmax(off[:, ::-1] > 0, axis=1)
    board = np.zeros((2, 25), np.int8)
    turns = np.empty(len(off), np.int64)
    for index, counts in enumerate(all_bearoff_positions()):
        board[1, :6] = counts
        turns[index] = home_max_turns(board, 1)
    np.testing.assert_array_equal(turns, longest)


def test_td_targets_are_kept_possible_where_a_nets_outputs_are_probabilities():
    board = board_from_position_id(HOPELESS_RACES[0])  # the side on roll: a certain gammon loss
    scratch = np.empty(5, np.float32)
    gnubg5 = np.array([0.01, 0.002, 0.001, 0.97, 0.3], np.float32)
    keep_raw_possible(GNUBG5, board, gnubg5, scratch)
    assert gnubg5.tolist() == [0.0, 0.0, 0.0, 1.0, 0.0]
    tesauro3 = np.array([0.01, 0.002, 0.97], np.float32)  # win, gammon win, gammon loss
    keep_raw_possible(TESAURO3, board, tesauro3, scratch)
    assert tesauro3.tolist() == [0.0, 0.0, 1.0]
    symmetric = np.array([0.01, 0.3], np.float32)  # a win and a conditional gammon: as they are
    keep_raw_possible(SYMMETRIC, board, symmetric, scratch)
    assert symmetric.tolist() == pytest.approx([0.01, 0.3])


# ---- what comes out of the evaluation paths -----------------------------------------

TOLERANCE = 1e-6  # a 1-ply figure is an average of kept figures, rounded to float32


def impossible(board: np.ndarray, probs) -> list[str]:
    """What five figures for the side in row 0 of a race claim that cannot be, read from
    the board alone (a side's own columns 18-23 are the other's home board, 24 its bar)."""
    win, win_g, win_bg, lose_g, lose_bg = (float(p) for p in probs)
    found = []
    if not (
        -TOLERANCE <= win_bg <= win_g + TOLERANCE
        and win_g <= win + TOLERANCE
        and win <= 1 + TOLERANCE
        and -TOLERANCE <= lose_bg <= lose_g + TOLERANCE
        and lose_g <= 1 - win + TOLERANCE
    ):
        found.append("not cumulative probabilities")
    if board[0].sum() < 15 and lose_g > 0:
        found.append("a gammon lost by a side with checkers off")
    if board[1].sum() < 15 and win_g > 0:
        found.append("a gammon won against a side with checkers off")
    if board[0, 18:].sum() == 0 and lose_bg > 0:
        found.append("a backgammon lost with nothing in the winner's home board or on the bar")
    if board[1, 18:].sum() == 0 and win_bg > 0:
        found.append("a backgammon won against nothing in our home board or on the bar")
    return found


@pytest.fixture(scope="module")
def agent():
    return load_agent("net:default@0")


@pytest.fixture(scope="module")
def races() -> list[np.ndarray]:
    rng = np.random.default_rng(51)
    return [random_race_board(rng) for _ in range(1500)]


def test_no_impossible_figure_from_the_agent_at_0_ply_or_the_bare_nets(agent, races):
    bare = agent.evaluator.probabilities(np.array(races))  # the race net alone, no bearoff database
    for board, probs in zip(races, bare):
        assert impossible(board, probs) == [], (position_id(board), probs)
        probs = agent.probabilities(board, 0)
        assert impossible(board, probs) == [], (position_id(board), probs)


def test_no_impossible_figure_among_a_rolls_results(agent, races):
    rng = np.random.default_rng(52)
    for board in races[:300]:
        d1, d2 = (int(d) for d in rng.integers(1, 7, size=2))
        for move in agent.rank_moves(board, d1, d2, ply=0):  # the mover's figures, mover in row 0
            assert impossible(move.board, move.probs) == [], (position_id(board), d1, d2, move.probs)


def test_no_impossible_figure_at_1_ply(agent, races):
    for board in races[:40]:
        probs = agent.probabilities(board, 1)
        assert impossible(board, probs) == [], (position_id(board), probs)


# ---- GNU Backgammon as referee -------------------------------------------------------

_STATIC = re.compile(r"static:\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)")
# figures the rules give whatever the net said: the same from these five starts
_STARTS = ([0.5, 0.25, 0.1, 0.25, 0.1], [0.5] * 5, [0.0] * 5, [1.0, 1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0, 1.0])


@pytest.mark.skipif(not gnubg_available(), reason="GNU Backgammon (/usr/games/gnubg) not installed")
def test_what_the_rules_force_gnubg_evaluates_too():
    """In races, every figure the rules decide on their own (a certain or impossible
    win, gammon or backgammon) is gnubg's 0-ply figure (its three decimals)."""
    rng = np.random.default_rng(53)
    boards = [random_race_board(rng) for _ in range(150)]
    texts = run_blocks([["new game", f"set board {position_id(board)}", "eval"] for board in boards])
    forced_count = 0
    for board, text in zip(boards, texts):
        found = _STATIC.search(text)
        assert found, text[-500:]
        gnubg = np.array([float(x) for x in found.groups()])
        results = np.array([kept(board, start) for start in _STARTS])
        forced = (results == results[0]).all(axis=0)
        forced_count += int(forced.sum())
        np.testing.assert_allclose(results[0][forced], gnubg[forced], atol=0.0015, err_msg=position_id(board))
    assert forced_count > 150  # the rules decide something in most races
