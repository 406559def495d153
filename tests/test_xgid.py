"""XGID: round trips, gnubg's player fields, validation, agreement with the gnubg binary."""

from __future__ import annotations

from dataclasses import replace

import gnubg_cli
import numpy as np
import pytest
from board_builder import make_board
from hypothesis import given, settings
from strategies import boards, match_states, random_board, random_match_state

from engine.rules.ids import (
    CENTRED,
    GameState,
    IdError,
    MatchState,
    Resignation,
    match_id,
    parse_xgid,
    position_id,
    xgid,
)
from engine.rules.position import Position

OPENING_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"


def test_xgid_opening_is_the_initial_position_with_bottom_on_roll():
    board, state = parse_xgid(OPENING_XGID)
    assert np.array_equal(board, Position.initial().board)
    assert state == MatchState(on_roll=1, jacoby=False)
    assert xgid(board, state) == OPENING_XGID


def test_xgid_turn_picks_the_row_on_roll():
    # one bottom checker on index 7 (its 7 point), one top checker on index 17 (its 8 point);
    # the Position IDs are those gnubg shows after `set xgid`
    bottom_on_roll, state = parse_xgid("XGID=-------A---------a--------:0:0:1:00:0:0:0:0:10")
    assert state.on_roll == 1
    assert np.array_equal(bottom_on_roll, make_board({7: 1}, {8: 1}))
    assert position_id(bottom_on_roll) == "gAAAAAEAAAAAAA"
    top_on_roll, state = parse_xgid("-------A---------a--------:0:0:-1:52:0:0:0:0:10")
    assert state.on_roll == 0 and state.dice == (5, 2)
    assert np.array_equal(top_on_roll, make_board({8: 1}, {7: 1}))
    assert position_id(top_on_roll) == "QAAAAAIAAAAAAA"


def test_xgid_fields_map_to_gnubg_players():
    _, state = parse_xgid("XGID=-------A---------a--------:2:-1:1:63:3:5:0:7:10")
    assert state == MatchState(cube=4, cube_owner=0, on_roll=1, dice=(6, 3), match_length=7, score=(5, 3))
    _, state = parse_xgid("XGID=-------A---------a--------:1:1:-1:D:0:0:3:0:10")
    assert state == MatchState(cube=2, cube_owner=1, on_roll=0, to_decide=1, doubled=True, jacoby=True, beavers=True)
    _, state = parse_xgid("XGID=-------A---------a--------:0:0:1:00:2:6:1:7:10")
    assert state.crawford and state.score == (6, 2)


def xgid_view(state: MatchState) -> MatchState:
    """What survives a trip through an XGID."""
    return replace(
        state,
        game_state=GameState.PLAYING,
        resigned=Resignation.NONE,
        to_decide=1 - state.on_roll if state.doubled else state.on_roll,
        dice=(0, 0) if state.doubled else state.dice,
        jacoby=state.jacoby if state.is_money else False,
    )


@settings(max_examples=200)
@given(boards(), match_states())
def test_xgid_round_trip(board, state):
    text = xgid(board, state)
    assert text.startswith("XGID=") and len(text.split(":")[0]) == 5 + 26
    parsed_board, parsed_state = parse_xgid(text)
    assert np.array_equal(parsed_board, board)
    assert parsed_state == xgid_view(state)
    assert xgid(parsed_board, parsed_state) == text


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0", "9 colon-separated fields"),
        ("XGID=-b----E-C---eE---c-e----B:0:0:1:00:0:0:0:0:10", "25 characters"),
        ("XGID=-b----E-C---eE---c-e----Q-:0:0:1:00:0:0:0:0:10", "invalid character 'Q'"),
        ("XGID=-b----E-C---eE---c-e----*-:0:0:1:00:0:0:0:0:10", r"invalid character '\*'"),
        ("XGID=-b----E-C---eE---c-e----PB:0:0:1:00:0:0:0:0:10", "bottom player has 31 checkers"),
        ("XGID=Ab----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "top player's bar"),
        ("XGID=-b----E-C---eE---c-e----Ba:0:0:1:00:0:0:0:0:10", "bottom player's bar"),
        ("XGID=-b----E-C---eE---c-e----B-:x:0:1:00:0:0:0:0:10", "cube .* is not a number"),
        ("XGID=-b----E-C---eE---c-e----B-:0:2:1:00:0:0:0:0:10", "cube position 2"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:0:00:0:0:0:0:10", "turn must be 1"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:7:0:0:0:0:10", "dice '7'"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:B:0:0:0:0:10", "dice 'B'"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:70:0:0:0:0:10", "dice"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:2:7:10", "Crawford/Jacoby field 2"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:8:0:0:7:10", "exceeds the match length"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:3:5:1:7:10", "Crawford game needs a player at 6"),
    ],
)
def test_malformed_xgids_are_rejected_clearly(text, reason):
    with pytest.raises(IdError, match=reason):
        parse_xgid(text)


# ---------------------------------------------------------------- the gnubg binary


def swap_players(state: MatchState) -> MatchState:
    """gnubg's `set xgid` swaps players so the one on roll is X (player 1)."""
    owner = state.cube_owner if state.cube_owner == CENTRED else 1 - state.cube_owner
    return replace(
        state, on_roll=1 - state.on_roll, to_decide=1 - state.to_decide, cube_owner=owner, score=state.score[::-1]
    )


def test_xgids_agree_with_the_gnubg_binary():
    rng = np.random.default_rng(11)
    opening = Position.initial().board
    cases = [
        (opening, MatchState(on_roll=1, jacoby=False)),
        (opening, MatchState(on_roll=0, crawford=True, match_length=7, score=(6, 3), dice=(4, 1))),
        (opening, MatchState(on_roll=1, crawford=True, match_length=7, score=(2, 6))),
        (opening, MatchState(on_roll=0, cube=4, cube_owner=1, score=(3, 1), jacoby=False, beavers=True)),
        (opening, MatchState(on_roll=1, cube=8, cube_owner=0, jacoby=True, beavers=True, dice=(3, 3))),
    ]
    cases += [(random_board(rng), random_match_state(rng)) for _ in range(40)]
    results = gnubg_cli.ids_after([["new session", f"set xgid {xgid(board, state)}"] for board, state in cases])
    for (board, state), (pid, mid) in zip(cases, results):
        assert pid == position_id(board), xgid(board, state)
        if state.doubled:
            continue  # gnubg cannot hold an offered double from an XGID and steps back
        expected = xgid_view(state) if state.on_roll == 1 else swap_players(xgid_view(state))
        assert mid == match_id(expected), xgid(board, state)
