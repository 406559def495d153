"""Rules of checker play on hand-made positions (points in the mover's numbering)."""

from __future__ import annotations

import numpy as np
import pytest

from engine.rules.moves import MoveBuffers, apply_steps, generate_moves, legal_moves
from engine.rules.position import BAR, Position, PositionError
from tests.board_builder import BAR_POINT, make_position, mover_results, opponent_holds

# opponent checkers that block nothing, so the game is not over
WAITING = {BAR_POINT: 2}
# the mover's entry points are 19..24; the opponent holds them as its points 1..6
ENTRY_POINTS = range(19, 25)


def as_set(results: list[dict[int, int]]) -> set[frozenset]:
    return {frozenset(r.items()) for r in results}


def expect(*results: dict[int, int]) -> set[frozenset]:
    return as_set(list(results))


# ------------------------------------------------------------------ bar entry


def test_checker_on_bar_must_enter_before_any_other_moves():
    position = make_position({BAR_POINT: 1, 13: 5, 6: 5}, {6: 5})
    results = legal_moves(position, 6, 1)
    assert results
    for move, after in results:
        assert move[0][0] == BAR_POINT, move
        assert after.board[0, BAR] == 0


def test_closed_board_blocks_entry_and_everything_else():
    position = make_position({BAR_POINT: 1, 13: 5, 8: 3}, opponent_holds(*ENTRY_POINTS))
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            results = legal_moves(position, d1, d2)
            assert results == [((), position)], (d1, d2)


def test_second_bar_checker_stuck_means_the_other_die_is_lost():
    # only the 6 enters (on the mover's 19 point); the second bar checker stays out,
    # so nothing else may move, not even with the 1
    blocked = opponent_holds(*(p for p in ENTRY_POINTS if p != 19))
    position = make_position({BAR_POINT: 2, 13: 5}, blocked)
    assert as_set(mover_results(position, 6, 1)) == expect({BAR_POINT: 1, 19: 1, 13: 5})


def test_entering_with_one_die_then_playing_the_other_anywhere():
    blocked = opponent_holds(*(p for p in ENTRY_POINTS if p != 20))  # only the 5 enters
    position = make_position({BAR_POINT: 1, 13: 1}, blocked)
    assert as_set(mover_results(position, 6, 5)) == expect({20: 1, 7: 1}, {14: 1, 13: 1})


def test_doubles_enter_every_bar_checker_then_move_with_the_rest():
    blocked = opponent_holds(*(p for p in ENTRY_POINTS if p != 21))  # only the 4 enters
    position = make_position({BAR_POINT: 2, 6: 1}, blocked)
    results = as_set(mover_results(position, 4, 4))
    assert expect({21: 1, 13: 1, 6: 1}) <= results
    assert expect({21: 1, 17: 1, 2: 1}) <= results
    for result in map(dict, results):
        assert BAR_POINT not in result and sum(result.values()) == 3


def test_doubles_with_more_on_the_bar_than_can_enter():
    blocked = opponent_holds(*(p for p in ENTRY_POINTS if p != 21))
    position = make_position({BAR_POINT: 4, 6: 1}, blocked)
    assert as_set(mover_results(position, 4, 4)) == expect({21: 4, 6: 1})
    blocked_all = make_position({BAR_POINT: 4, 6: 1}, opponent_holds(*ENTRY_POINTS))
    assert legal_moves(blocked_all, 4, 4) == [((), blocked_all)]


# ------------------------------------------------------------------ using the dice


def test_both_dice_must_be_used_when_possible():
    # 9/3 is blocked, so the 6 can only be played after the 1: 9/8/2 is forced,
    # and neither 9/8 alone nor any one-die play may be offered
    position = make_position({9: 1}, opponent_holds(3))
    assert as_set(mover_results(position, 6, 1)) == expect({2: 1})
    assert as_set(mover_results(position, 1, 6)) == expect({2: 1})


def test_larger_die_when_either_but_not_both_can_be_played():
    # 12/6 and 12/7 are each legal, but the ace point blocks the second die
    position = make_position({12: 1}, opponent_holds(1))
    assert as_set(mover_results(position, 6, 5)) == expect({6: 1})
    assert as_set(mover_results(position, 5, 6)) == expect({6: 1})


def test_smaller_die_when_the_larger_cannot_be_played():
    position = make_position({12: 1}, opponent_holds(6, 1))
    assert as_set(mover_results(position, 6, 5)) == expect({7: 1})


def test_doubles_play_as_many_as_possible_up_to_four():
    open_board = make_position({24: 1}, WAITING)
    assert as_set(mover_results(open_board, 3, 3)) == expect({12: 1})
    wall = make_position({20: 1}, opponent_holds(8))  # the third 4 is blocked
    assert as_set(mover_results(wall, 4, 4)) == expect({12: 1})
    # 20/16/12 and 10/6 can be played, but no fourth 4 by either checker
    two_checkers = make_position({20: 1, 10: 1}, opponent_holds(8, 2))
    assert as_set(mover_results(two_checkers, 4, 4)) == expect({12: 1, 6: 1})


# ------------------------------------------------------------------ bearing off


def test_bear_off_with_exact_dice():
    position = make_position({6: 1, 3: 1}, WAITING)
    # 6/off 3/off; or 6/3 with the 3 and then the 6 takes one checker off the 3 point
    assert as_set(mover_results(position, 6, 3)) == expect({}, {3: 1})
    assert as_set(mover_results(make_position({5: 1, 1: 1}, WAITING), 5, 1)) == expect({}, {1: 1})


def test_larger_die_bears_off_from_the_highest_point():
    position = make_position({4: 1, 2: 1}, WAITING)
    assert as_set(mover_results(position, 6, 5)) == expect({})


def test_larger_die_may_not_bear_off_below_an_occupied_higher_point():
    # the 5 and the 4 cannot take the 3 off while the 6 point is occupied
    position = make_position({6: 1, 3: 1}, WAITING)
    assert as_set(mover_results(position, 5, 4)) == expect({1: 1}, {2: 1})


def test_no_bearing_off_with_a_checker_outside():
    position = make_position({8: 1, 2: 1}, WAITING)
    for result in mover_results(position, 2, 1):
        assert sum(result.values()) == 2, result


def test_bearing_off_once_the_last_checker_comes_home():
    position = make_position({7: 1, 2: 1}, WAITING)
    assert as_set(mover_results(position, 2, 1)) == expect({4: 1, 2: 1}, {5: 1, 1: 1}, {6: 1})


def test_doubles_bear_off_from_the_highest_after_exact_moves():
    position = make_position({5: 2, 1: 1}, WAITING)
    assert as_set(mover_results(position, 6, 6)) == expect({})


# ------------------------------------------------------------------ results


def test_blocked_roll_returns_the_same_position_once():
    position = make_position({8: 1}, opponent_holds(2))
    assert legal_moves(position, 6, 6) == [((), position)]
    buffers = MoveBuffers()
    n = generate_moves(position.board, 6, 6, *buffers.args())
    assert n == 1 and (buffers.steps[0] == -1).all()


def test_hit_sends_the_blot_to_the_bar():
    position = make_position({13: 1}, {25 - 7: 1, 6: 3})
    moves = dict((m, after) for m, after in legal_moves(position, 6, 5))
    assert ((13, 7), (7, 2)) in moves or ((13, 8), (8, 2)) in moves
    hits = [after for m, after in legal_moves(position, 6, 5) if after.board[1, BAR] == 1]
    assert len(hits) == 1  # 13/7*/2 and 13/8/2 differ only in the hit
    assert hits[0].board[1, 25 - 7 - 1] == 0 and hits[0].off(1) == 11


def test_orders_reaching_the_same_position_are_reported_once():
    opening = Position.initial()
    results = legal_moves(opening, 3, 1)
    assert len(results) == 16
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            boards = [after.board.tobytes() for _, after in legal_moves(opening, d1, d2)]
            assert len(boards) == len(set(boards)), (d1, d2)


def test_move_steps_replay_to_the_reported_result():
    position = make_position({BAR_POINT: 1, 13: 4, 8: 3, 6: 5, 2: 2}, {25 - 5: 1, 6: 5, 8: 3})
    for d1, d2 in [(6, 5), (4, 4), (2, 1), (3, 3)]:
        for move, after in legal_moves(position, d1, d2):
            assert np.array_equal(apply_steps(position.board, move), after.board), move


def test_dice_out_of_range_and_finished_games_are_rejected():
    with pytest.raises(ValueError):
        legal_moves(Position.initial(), 0, 3)
    with pytest.raises(ValueError):
        legal_moves(Position.initial(), 7, 3)
    with pytest.raises(PositionError):
        legal_moves(make_position({}, {6: 2}), 3, 1)
