"""FIBS board lines: parsing, validation, the four colour/direction seats, writing."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.rules.position import Position
from fibsbot.protocol.board import UNLIMITED, BoardLineError, FibsBoard, O, X, format_board_line, parse_board_line
from tests.fibs_samples import (
    MID_O_UP,
    MID_X_DOWN,
    OPENING_O_DOWN,
    OPENING_O_UP,
    OPENING_X_DOWN,
    OPENING_X_UP,
    SEATS,
    with_fields,
)
from tests.strategies import boards


def expected_mid_rows() -> tuple[np.ndarray, np.ndarray]:
    ours = np.zeros(25, dtype=np.int8)
    ours[[0, 3, 4, 5, 24]] = [2, 2, 3, 4, 1]
    theirs = np.zeros(25, dtype=np.int8)
    theirs[[0, 1, 2, 21, 24]] = [4, 4, 3, 1, 2]
    return ours, theirs


@pytest.mark.parametrize("line", [OPENING_X_DOWN, OPENING_O_UP, OPENING_X_UP, OPENING_O_DOWN])
def test_opening_position_in_every_seat(line):
    board = parse_board_line(line)
    assert board.position_from_our_view() == Position.initial()
    assert board.position_for_side_on_roll() == Position.initial()
    assert board.position_from_our_view().pip_counts() == (167, 167)
    # our two back checkers sit on the server cell of our 24 point
    assert board.board[board.server_point(24)] == 2 * board.colour
    assert board.board[board.server_point(6)] == 5 * board.colour
    assert board.our_dice == (6, 2) and board.we_must_move


@pytest.mark.parametrize("line", list(SEATS))
def test_middle_game_in_every_seat(line):
    board = parse_board_line(line)
    assert (board.colour, board.direction) == SEATS[line]
    ours, theirs = board.our_rows()
    expected_ours, expected_theirs = expected_mid_rows()
    np.testing.assert_array_equal(ours, expected_ours)
    np.testing.assert_array_equal(theirs, expected_theirs)
    position = board.position_for_side_on_roll()
    assert position.pip_counts() == (2 * 1 + 2 * 4 + 3 * 5 + 4 * 6 + 25, 4 + 8 + 9 + 22 + 2 * 25)
    assert (position.off(0), position.off(1)) == (3, 1)
    assert (board.our_bar, board.their_bar) == (1, 2)
    # bob's lone checker on his 22 point is on our 3 point
    assert board.board[board.server_point(3)] == -board.colour
    assert board.board[board.bar] == board.colour and board.board[board.home] == -2 * board.colour
    assert board.is_our_turn and board.we_must_move and not board.we_must_roll_or_double


@pytest.mark.parametrize("line", list(SEATS))
def test_bar_counts_come_from_the_board_not_fields_47_48(line):
    board = parse_board_line(with_fields(line, f47=0, f48=0))
    assert (board.our_bar, board.their_bar) == (1, 2)
    assert board.position_from_our_view() == parse_board_line(line).position_from_our_view()


def test_point_numbering_follows_direction():
    down, up = parse_board_line(MID_X_DOWN), parse_board_line(MID_O_UP)
    assert [down.server_point(p) for p in (0, 1, 6, 24, 25)] == [0, 1, 6, 24, 25]
    assert [up.server_point(p) for p in (0, 1, 6, 24, 25)] == [25, 24, 19, 1, 0]
    assert all(up.our_point(up.server_point(p)) == p for p in range(26))
    assert (down.home, down.bar, up.home, up.bar) == (0, 25, 25, 0)
    with pytest.raises(ValueError):
        up.server_point(26)


def test_side_on_roll_follows_the_turn_field():
    theirs_to_play = parse_board_line(with_fields(MID_X_DOWN, f32=1, f33=0, f34=0, f35=4, f36=2))
    assert not theirs_to_play.is_our_turn and not theirs_to_play.we_must_move
    assert theirs_to_play.their_dice == (4, 2) and theirs_to_play.our_dice is None
    assert theirs_to_play.position_for_side_on_roll() == theirs_to_play.position_from_our_view().flip()
    to_roll = parse_board_line(with_fields(MID_O_UP, f33=0, f34=0))
    assert to_roll.we_must_roll_or_double and not to_roll.we_must_move


def test_opponent_doubled_us():
    # bob doubled: the turn field shows our colour, was_doubled is set, flags cleared
    line = with_fields(MID_X_DOWN, f33=0, f34=0, f38=0, f39=0, f40=1)
    board = parse_board_line(line)
    assert board.opponent_doubled and board.double_pending and board.is_our_turn
    assert not board.we_must_move and not board.we_must_roll_or_double
    # the doubler is the side on roll
    assert board.position_for_side_on_roll() == board.position_from_our_view().flip()


def test_our_own_pending_double_is_recognised_by_the_cleared_flags():
    line = with_fields(MID_X_DOWN, f32=1, f33=0, f34=0, f38=0, f39=0)
    board = parse_board_line(line)
    assert not board.opponent_doubled and board.double_pending and not board.is_our_turn
    assert board.position_for_side_on_roll() == board.position_from_our_view()


def test_between_games_there_is_no_side_on_roll():
    board = parse_board_line(with_fields(OPENING_X_DOWN, f32=0, f33=0, f34=0))
    assert board.position_for_side_on_roll() is None
    assert not board.is_our_turn and not board.we_must_roll_or_double


def test_crawford_flags_as_servers_set_them():
    crawford = with_fields(OPENING_X_DOWN, f4=4, f5=2)
    assert parse_board_line(crawford).is_crawford_game
    assert not parse_board_line(with_fields(crawford, f51=1)).is_crawford_game
    # FIBS writes 3 into field 50 for matches without the Crawford rule
    no_crawford = parse_board_line(with_fields(crawford, f50=3))
    assert no_crawford.no_crawford and not no_crawford.is_crawford_game
    unlimited = parse_board_line(with_fields(crawford, f3=UNLIMITED))
    assert unlimited.is_unlimited and not unlimited.is_crawford_game


def test_unreliable_fields_47_to_49_are_kept_but_never_rejected():
    board = parse_board_line(with_fields(MID_X_DOWN, f47=-1, f48=7, f49=9))
    assert (board.player_bar_field, board.opponent_bar_field, board.can_move) == (-1, 7, 9)
    assert (board.our_bar, board.their_bar) == (1, 2)


def test_gnubg_style_line_with_dice_in_both_fields_and_signed_double():
    line = with_fields(OPENING_O_DOWN, f35=6, f36=2, f40=-1, f38=0, f39=0)
    board = parse_board_line(line)
    assert board.opponent_doubled and board.was_doubled == -1


@pytest.mark.parametrize(
    "line, fragment",
    [
        (OPENING_X_DOWN + ":0", "expected 53 fields, got 54"),
        (OPENING_X_DOWN.rsplit(":", 1)[0], "expected 53 fields, got 52"),
        (OPENING_X_DOWN.replace("board:", "bored:"), "field 0"),
        (with_fields(OPENING_X_DOWN, f20="x"), "field 20 is not an integer"),
        (with_fields(OPENING_X_DOWN, f20=""), "field 20 is not an integer"),
        (with_fields(OPENING_X_DOWN, f41=0), "colour"),
        (with_fields(OPENING_X_DOWN, f42=1), "do not fit direction"),
        (with_fields(OPENING_X_DOWN, f43=25, f44=0), "do not fit direction"),
        (with_fields(OPENING_X_DOWN, f30=-1), "player has 14 checkers"),
        (with_fields(OPENING_X_DOWN, f7=3), "opponent has 16 checkers"),
        (with_fields(OPENING_X_DOWN, f45=1), "player has 15 checkers on the board and 1 off"),
        (with_fields(OPENING_X_DOWN, f33=7), "player_dice"),
        (with_fields(OPENING_X_DOWN, f34=0), "half set"),
        (with_fields(OPENING_X_DOWN, f38=2), "field 38 must be 0 or 1"),
        (with_fields(OPENING_X_DOWN, f32=2), "turn"),
        (with_fields(OPENING_X_DOWN, f37=0), "cube"),
    ],
)
def test_invalid_lines_raise_board_line_error(line, fragment):
    with pytest.raises(BoardLineError) as caught:
        parse_board_line(line)
    assert fragment in str(caught.value)
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize("line", [OPENING_X_DOWN, OPENING_O_DOWN, *SEATS])
def test_hand_lines_survive_parse_and_write(line):
    assert parse_board_line(line + "  ").to_line() == line


@pytest.mark.parametrize("colour, direction", [(X, -1), (X, 1), (O, -1), (O, 1)])
@settings(max_examples=60, deadline=None)
@given(board=boards(), we_are_on_roll=st.booleans(), dice=st.tuples(st.integers(1, 6), st.integers(1, 6)))
def test_format_then_parse_round_trip(colour, direction, board, we_are_on_roll, dice):
    position = Position(board)
    line = format_board_line(
        position,
        we_are_on_roll=we_are_on_roll,
        opponent="bob",
        match_length=5,
        player_score=1,
        opponent_score=3,
        player_dice=dice if we_are_on_roll else (0, 0),
        opponent_dice=(0, 0) if we_are_on_roll else dice,
        colour=colour,
        direction=direction,
    )
    parsed = parse_board_line(line)
    assert parsed.position_for_side_on_roll() == position
    assert parsed.is_our_turn == we_are_on_roll
    assert (parsed.colour, parsed.direction) == (colour, direction)
    assert parsed.to_line() == line
    ours = position.board[0] if we_are_on_roll else position.board[1]
    assert (parsed.player_bar_field, parsed.player_off) == (ours[24], 15 - ours.sum())


def test_format_between_games_writes_turn_zero():
    line = format_board_line(Position.initial(), we_are_on_roll=True, game_over=True, opponent="bob", match_length=3)
    assert line.split(":")[32] == "0"
    assert parse_board_line(line).position_from_our_view() == Position.initial()


def test_from_rows_matches_the_hand_lines():
    ours, theirs = expected_mid_rows()
    for line, (colour, direction) in SEATS.items():
        board = FibsBoard.from_rows(
            ours,
            theirs,
            on_roll="us",
            opponent="bob",
            match_length=7,
            player_score=2,
            opponent_score=3,
            player_dice=(5, 3),
            cube=2,
            player_may_double=False,
            colour=colour,
            direction=direction,
            can_move=2,
        )
        assert board.to_line() == line
