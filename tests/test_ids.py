"""Position ID and Match ID: round trips, validation, agreement with gnubg_nn and the gnubg binary."""

from __future__ import annotations

import base64
from dataclasses import replace

import gnubg_cli
import gnubg_nn
import numpy as np
import pytest
from board_builder import make_board
from hypothesis import given
from strategies import boards, match_states, random_board, random_match_state

from engine.rules.ids import (
    GameState,
    IdError,
    MatchState,
    MatchStateError,
    Resignation,
    board_from_position_id,
    match_id,
    match_state_from_id,
    position_id,
    position_key,
)
from engine.rules.position import Position

OPENING_ID = "4HPwATDgc/ABMA"


def raw_position_id(not_on_roll: list[int], on_roll: list[int]) -> str:
    """Pack counts without any checks, to build IDs the decoder must reject."""
    bits, offset = 0, 0
    for count in not_on_roll + on_roll:
        bits |= ((1 << count) - 1) << offset
        offset += count + 1
    return unpadded_base64(bits.to_bytes(10, "little"))


def unpadded_base64(key: bytes) -> str:
    return base64.b64encode(key).decode().rstrip("=")


# ---------------------------------------------------------------- Position ID


def test_opening_position_id():
    assert position_id(Position.initial().board) == OPENING_ID
    assert np.array_equal(board_from_position_id(OPENING_ID), Position.initial().board)


def test_not_on_roll_side_is_encoded_first():
    # verified with the binary: X on roll on its 8 point, O on its 6 point
    board = make_board({8: 1}, {6: 1})
    assert position_id(board) == "IAAAAAIAAAAAAA"
    assert position_id(board[::-1]) == "gAAAgAAAAAAAAA"


def test_position_key_is_ten_bytes_and_matches_the_id():
    key = position_key(Position.initial().board)
    assert len(key) == 10
    assert unpadded_base64(key) == OPENING_ID


def test_decoded_board_is_int8_and_validated():
    board = board_from_position_id(OPENING_ID)
    assert board.dtype == np.int8 and board.shape == (2, 25)
    Position(board)


@given(boards())
def test_position_id_round_trip(board):
    pid = position_id(board)
    assert len(pid) == 14
    assert np.array_equal(board_from_position_id(pid), board)


@given(boards())
def test_position_id_agrees_with_gnubg_nn(board):
    gnubg_order = board[::-1].tolist()  # gnubg_nn lists the side not on roll first
    pid = position_id(board)
    assert gnubg_nn.position_id(gnubg_order) == pid
    assert np.array_equal(np.array(gnubg_nn.board_from_position_id(pid))[::-1], board)


@pytest.mark.parametrize(
    ("pid", "reason"),
    [
        ("", "0 characters"),
        ("4HPwATDgc/ABM", "13 characters"),
        ("4HPwATDgc/ABMAA", "15 characters"),
        ("4HPwATDgc/AB*A", "invalid character '*' at position 13"),
        ("4HPwATDgc/ABM=", "invalid character '='"),
        ("4HPwATDgc/ABMB", "beyond the 80-bit key"),
        ("/////////////w", "too many checkers"),
        (raw_position_id([16] + [0] * 24, [0] * 25), "16 checkers"),
        (raw_position_id([0] * 25, [8, 8] + [0] * 23), "16 checkers"),
        (raw_position_id([1] + [0] * 24, [0] * 23 + [1, 0]), "both sides"),
        (raw_position_id([0] * 25, [0] * 25)[:-1] + "Q", "not zero"),
    ],
)
def test_malformed_position_ids_are_rejected_clearly(pid, reason):
    with pytest.raises(IdError, match=reason.replace("*", r"\*")):
        board_from_position_id(pid)


def test_position_id_rejects_non_strings():
    with pytest.raises(IdError, match="must be a string"):
        board_from_position_id(None)  # type: ignore[arg-type]


# ---------------------------------------------------------------- Match ID

# (commands given to gnubg 1.07 after a prologue of human players, Match ID shown, state)
GNUBG_MATCH_IDS = [
    (["new session", "set turn 1", "set dice 3 1"], "cIkFAAAAAAAA", MatchState(on_roll=1, dice=(3, 1), jacoby=True)),
    (
        ["new match 9", "set score 2 4", "set cube value 2", "set cube owner 0", "set turn 1", "set dice 5 2"],
        "QYkqASAAIAAE",
        MatchState(cube=2, cube_owner=0, on_roll=1, dice=(5, 2), match_length=9, score=(2, 4)),
    ),
    (
        ["new match 7", "set score 6 3", "set crawford on", "set turn 0", "set dice 6 6"],
        "sAH7AGAAGAAE",
        MatchState(on_roll=0, crawford=True, dice=(6, 6), match_length=7, score=(6, 3)),
    ),
    (
        ["new match 5", "set score 4 4", "set turn 1"],
        "cAmgAEAAIAAE",
        MatchState(on_roll=1, match_length=5, score=(4, 4)),
    ),
    (
        ["new session", "set cube value 8", "set cube owner 1", "set turn 0", "set dice 4 2"],
        "EwEKAAAAAAAA",
        MatchState(cube=8, cube_owner=1, on_roll=0, dice=(4, 2)),
    ),
    (
        ["new match 25", "set score 20 17", "set cube value 4", "set cube owner 1", "set turn 0"],
        "EgEgA0ABiAAE",
        MatchState(cube=4, cube_owner=1, on_roll=0, match_length=25, score=(20, 17)),
    ),
    (
        ["new match 7", "set turn 1", "double"],
        "cBHgAAAAAAAE",
        MatchState(on_roll=1, to_decide=0, doubled=True, match_length=7),
    ),
    (
        ["new match 7", "set turn 0", "set dice 2 1", "resign gammon"],
        "MEnlAAAAAAAE",
        MatchState(on_roll=0, to_decide=1, resigned=Resignation.GAMMON, dice=(2, 1), match_length=7),
    ),
    (
        ["set jacoby off", "new session", "set turn 0", "set dice 6 5"],
        "MAEXAAAAAAAE",
        MatchState(on_roll=0, dice=(6, 5), jacoby=False),
    ),
    (
        ["set jacoby on", "new session", "set turn 1", "resign backgammon"],
        "cGEAAAAAAAAA",
        MatchState(on_roll=1, to_decide=0, resigned=Resignation.BACKGAMMON),
    ),
    (
        ["set automatic game off", "new match 5", "set turn 1", "resign single", "accept"],
        "cCOgABAAAAAE",
        MatchState(
            on_roll=1,
            to_decide=0,
            game_state=GameState.RESIGNED,
            resigned=Resignation.SINGLE,
            match_length=5,
            score=(1, 0),
        ),
    ),
    (
        ["set automatic game off", "new match 5", "set score 1 2", "set turn 0", "double", "drop"],
        "MAygACAAEAAE",
        MatchState(on_roll=0, to_decide=1, game_state=GameState.DROPPED, match_length=5, score=(2, 2)),
    ),
]


@pytest.mark.parametrize(("commands", "mid", "state"), GNUBG_MATCH_IDS, ids=[row[1] for row in GNUBG_MATCH_IDS])
def test_gnubg_match_ids_decode_and_encode(commands, mid, state):
    assert match_state_from_id(mid) == state
    assert match_id(state) == mid


def test_manual_example_match_id():
    state = match_state_from_id("QYkqASAAIAAA")
    assert state == MatchState(cube=2, cube_owner=0, on_roll=1, dice=(5, 2), match_length=9, score=(2, 4), jacoby=True)
    assert match_id(state) == "QYkqASAAIAAA"


@given(match_states())
def test_match_id_round_trip(state):
    mid = match_id(state)
    assert len(mid) == 12
    assert match_state_from_id(mid) == replace(state, beavers=False)  # beavers live only in XGIDs


def test_dice_are_stored_larger_first():
    assert MatchState(dice=(2, 5)).dice == (5, 2)
    assert match_id(MatchState(dice=(2, 5))) == match_id(MatchState(dice=(5, 2)))


def raw_match_id(**fields: int) -> str:
    """Pack Match ID fields without checks (defaults: fresh money game)."""
    widths = [
        ("cube", 4, 0),
        ("owner", 2, 3),
        ("on_roll", 1, 0),
        ("crawford", 1, 0),
        ("state", 3, 1),
        ("turn", 1, 0),
        ("doubled", 1, 0),
        ("resigned", 2, 0),
        ("die1", 3, 0),
        ("die2", 3, 0),
        ("length", 15, 0),
        ("score0", 15, 0),
        ("score1", 15, 0),
        ("extra", 6, 0),
    ]
    bits, offset = 0, 0
    for name, width, default in widths:
        bits |= fields.get(name, default) << offset
        offset += width
    return unpadded_base64(bits.to_bytes(9, "little"))


@pytest.mark.parametrize(
    ("mid", "reason"),
    [
        ("cIkFAAAAAAA", "11 characters"),
        ("cIkFAAAAAAAAA", "13 characters"),
        ("cIkFAAAA AAA", "invalid character ' '"),
        ("cIkFAAAAAAAI", "beyond bit 66"),
        (raw_match_id(extra=0b100000), "beyond bit 66"),
        (raw_match_id(owner=2), "cube owner field is 2"),
        (raw_match_id(state=5), "game state 5"),
        (raw_match_id(die1=7, die2=3), "dice"),
        (raw_match_id(die1=4, die2=0), "dice"),
        (raw_match_id(length=5, score0=6), "exceeds the match length"),
        (raw_match_id(crawford=1), "money game cannot be the Crawford game"),
    ],
)
def test_malformed_match_ids_are_rejected_clearly(mid, reason):
    with pytest.raises(IdError, match=reason):
        match_state_from_id(mid)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(cube=3),
        dict(cube=0),
        dict(cube=1 << 16),
        dict(cube_owner=2),
        dict(on_roll=2),
        dict(to_decide=-1),
        dict(dice=(0, 3)),
        dict(dice=(7, 1)),
        dict(match_length=-1),
        dict(match_length=5, score=(5, 6)),
        dict(crawford=True),
        dict(crawford=True, match_length=7, score=(5, 4)),
        dict(crawford=True, match_length=7, score=(6, 4), cube=2),
        dict(resigned=4),
        dict(game_state=9),
    ],
)
def test_inconsistent_match_states_are_refused(kwargs):
    with pytest.raises(MatchStateError):
        MatchState(**kwargs)


# ---------------------------------------------------------------- the gnubg binary


def test_position_ids_agree_with_the_gnubg_binary():
    rng = np.random.default_rng(20240601)
    samples = [Position.initial().board] + [random_board(rng) for _ in range(60)]
    blocks = [["new game"]] + [[gnubg_cli.simple_board_command(board)] for board in samples]
    # and the reverse direction: gnubg accepts our IDs and shows them unchanged
    blocks += [[f"set board {position_id(board)}"] for board in samples[:20]]
    shown = [pid for pid, _ in gnubg_cli.ids_after(blocks)[1:]]
    expected = [position_id(board) for board in samples] + [position_id(board) for board in samples[:20]]
    assert shown == expected


def test_match_ids_agree_with_the_gnubg_binary():
    shown = [mid for _, mid in gnubg_cli.ids_after([commands for commands, _, _ in GNUBG_MATCH_IDS])]
    assert shown == [mid for _, mid, _ in GNUBG_MATCH_IDS]


def test_gnubg_binary_accepts_our_match_ids():
    rng = np.random.default_rng(7)
    states = [random_match_state(rng) for _ in range(40)]
    states = [replace(s, doubled=False, to_decide=s.on_roll) for s in states]  # gnubg steps back from doubles
    blocks = [["new session", f"set matchid {match_id(state)}"] for state in states]
    shown = [mid for _, mid in gnubg_cli.ids_after(blocks)]
    assert shown == [match_id(state) for state in states]
