"""gnubg and FIBS move notation: examples, round trips, gnubg_nn and the gnubg binary."""

from __future__ import annotations

import gnubg_cli
import gnubg_nn
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies import boards, dice, random_board

from engine.rules.ids import position_key
from engine.rules.notation import NotationError, format_fibs, format_gnubg, parse_fibs, parse_gnubg
from engine.rules.position import Position

OPENING = Position.initial().board


def board_with(ours: dict[int, int], theirs_on_our_points: dict[int, int], our_bar: int = 0) -> np.ndarray:
    """A board from the mover's view: our checkers and the opponent's, by our point numbers."""
    board = np.zeros((2, 25), dtype=np.int8)
    for point, count in ours.items():
        board[0, point - 1] = count
    for point, count in theirs_on_our_points.items():
        board[1, 24 - point] = count
    board[0, 24] = our_bar
    return board


def apply_steps(board: np.ndarray, steps) -> np.ndarray:
    """Play steps without checking legality (hits send the blot to the bar)."""
    after = board.copy()
    for start, end in steps:
        after[0, start - 1] -= 1
        if end:
            if after[1, 24 - end] == 1:
                after[1, 24 - end] = 0
                after[1, 24] += 1
            after[0, end - 1] += 1
    return after


def legal_moves(board: np.ndarray, roll: tuple[int, int]) -> list[tuple[bytes, tuple]]:
    """gnubg_nn's legal moves: (key of the board after the move, steps), mover still in row 0."""
    found = gnubg_nn.moves(board[::-1].tolist(), roll[0], roll[1], 1)
    return [(key, tuple(tuple(step) for step in steps)) for key, steps in found]


def result_key(board: np.ndarray) -> bytes:
    return position_key(board)


def nn_result_key(nn_key: str) -> bytes:
    return position_key(np.array(gnubg_nn.board_from_position_key(nn_key))[::-1])


# ---------------------------------------------------------------- gnubg: writing


@pytest.mark.parametrize(
    ("board", "move", "text"),
    [
        (OPENING, ((24, 18), (13, 11)), "24/18 13/11"),
        (OPENING, ((13, 11), (24, 18)), "24/18 13/11"),
        (OPENING, ((24, 18), (18, 13)), "24/13"),
        (OPENING, ((13, 7), (13, 7), (8, 2), (8, 2)), "13/7(2) 8/2(2)"),
        (OPENING, ((13, 7), (7, 2)), "13/2"),
        (OPENING, (), ""),
        (board_with({6: 2, 5: 1}, {}), ((6, 0), (5, 0)), "6/off 5/off"),
        (board_with({6: 2}, {}), ((6, 0), (6, 0)), "6/off(2)"),
        (board_with({}, {22: 1}, our_bar=1), ((25, 22),), "bar/22*"),
        (board_with({}, {}, our_bar=1), ((25, 22), (22, 16)), "bar/16"),
        (board_with({24: 1}, {18: 1}), ((24, 18), (18, 13)), "24/18*/13"),
        (board_with({24: 1}, {13: 1}), ((24, 18), (18, 13)), "24/13*"),
        (board_with({8: 2}, {5: 1}), ((8, 5), (8, 5)), "8/5*(2)"),
        (board_with({13: 1, 8: 1}, {7: 1}), ((13, 7), (8, 7)), "13/7* 8/7"),
        (board_with({6: 1}, {5: 1, 3: 1}), ((6, 5), (5, 4), (4, 3), (3, 2)), "6/5*/3*/2"),
        (board_with({10: 2}, {7: 1}), ((10, 7), (7, 4), (10, 7), (7, 4)), "10/7*/4(2)"),
    ],
)
def test_format_gnubg_examples(board, move, text):
    assert format_gnubg(board, move) == text


@pytest.mark.parametrize(
    "move",
    [((13, 13),), ((5, 8),), ((26, 20),), ((6, -1),), ((3, 25),), ((8, 5),) * 5, (("x", 3),)],
)
def test_format_gnubg_refuses_impossible_steps(move):
    with pytest.raises(NotationError):
        format_gnubg(OPENING, move)


# ---------------------------------------------------------------- gnubg: reading


@pytest.mark.parametrize(
    ("text", "steps"),
    [
        ("24/18 13/11", ((24, 18), (13, 11))),
        ("bar/22*", ((25, 22),)),
        ("BAR/22* 13/7", ((25, 22), (13, 7))),
        ("6/off", ((6, 0),)),
        ("25/22 6/0", ((25, 22), (6, 0))),
        ("8/5(2)", ((8, 5), (8, 5))),
        ("8/5*(2) 6/5", ((8, 5), (8, 5), (6, 5))),
        ("24/18*/13", ((24, 18), (18, 13))),
        ("24/13", ((24, 13),)),
        ("  24/18   13/11  ", ((24, 18), (13, 11))),
        ("", ()),
    ],
)
def test_parse_gnubg_without_dice(text, steps):
    assert parse_gnubg(text) == steps


@pytest.mark.parametrize(
    ("text", "board", "roll", "steps"),
    [
        ("24/13", OPENING, (6, 5), ((24, 18), (18, 13))),  # 24/19 is blocked
        ("13/1", OPENING, (6, 6), ((13, 7), (7, 1))),
        ("13/7(2) 8/2(2)", OPENING, (6, 6), ((13, 7), (13, 7), (8, 2), (8, 2))),
        ("13/2", board_with({13: 1}, {7: 2}), (6, 5), ((13, 8), (8, 2))),  # 7 blocked
        ("13/2", board_with({13: 1}, {7: 1}), (6, 5), ((13, 8), (8, 2))),  # an unmarked hit is not meant
        ("13/7*/2", board_with({13: 1}, {7: 1}), (6, 5), ((13, 7), (7, 2))),
        ("13/2", None, (5, 6), ((13, 7), (7, 2))),  # no board: the larger die first
        ("6/off", board_with({6: 1}, {}), (6, 1), ((6, 0),)),
        ("5/off", board_with({5: 1}, {}), (6, 5), ((5, 0),)),
        ("5/off", board_with({5: 1}, {}), (6, 3), ((5, 0),)),
        ("8/off", board_with({8: 1}, {}), (6, 2), ((8, 2), (2, 0))),
        ("bar/16", board_with({}, {}, our_bar=1), (3, 6), ((25, 19), (19, 16))),
    ],
)
def test_parse_gnubg_splits_by_dice(text, board, roll, steps):
    assert parse_gnubg(text, board=board, dice=roll) == steps


@pytest.mark.parametrize(
    ("text", "kwargs"),
    [
        ("hello", {}),
        ("24-18", {}),
        ("24/", {}),
        ("/18", {}),
        ("24/18/", {}),
        ("26/20", {}),
        ("18/24", {}),
        ("13/bar", {}),
        ("off/5", {}),
        ("24*/18", {}),
        ("24/18(5)", {}),
        ("24/18(0)", {}),
        ("24/18 13/11 8/5 6/5 4/3", {}),
        ("24/13", {"dice": (6, 6)}),
        ("24/18 24/18", {"dice": (6, 5)}),
        ("24/18", {"dice": (7, 1)}),
        ("24/18", {"dice": "66"}),
        ("6/5*", {"board": OPENING}),
    ],
)
def test_parse_gnubg_rejects_garbage(text, kwargs):
    with pytest.raises(NotationError):
        parse_gnubg(text, **kwargs)


def test_parse_gnubg_rejects_non_text():
    with pytest.raises(NotationError, match="must be text"):
        parse_gnubg(None)  # type: ignore[arg-type]


# ---------------------------------------------------------------- gnubg: against gnubg_nn


@settings(max_examples=150, deadline=None)
@given(boards(min_checkers=1), dice())
def test_gnubg_notation_round_trips_every_legal_move(board, roll):
    moves = legal_moves(board, roll)
    assume(moves)
    for key, steps in moves:
        text = format_gnubg(board, steps)
        parsed = parse_gnubg(text, board=board, dice=roll)
        assert format_gnubg(board, parsed) == text
        assert result_key(apply_steps(board, parsed)) == nn_result_key(key), text


# ---------------------------------------------------------------- gnubg: the binary


def hint_case(rng: np.random.Generator, kind: str) -> tuple[np.ndarray, tuple[int, int]]:
    """A board and roll with at least one legal move: 'any', 'bar' (we are on the bar)
    or 'bearoff' (all our checkers home)."""
    while True:
        board = random_board(rng, min_checkers=3, allow_bar=False)
        if kind == "bar":
            board[0, 24] = rng.integers(1, 3)
        elif kind == "bearoff":
            board[0] = 0
            for column in rng.choice(6, size=rng.integers(1, 16)):
                if board[1, 23 - column] == 0:
                    board[0, column] += 1
        roll = tuple(sorted(int(d) for d in rng.integers(1, 7, size=2)))[::-1]
        # gnubg_nn answers a blocked roll with one empty move; hint then lists nothing
        if board[0].sum() <= 15 and any(steps for _, steps in legal_moves(board, roll)):
            return board, roll


def test_gnubg_binary_prints_moves_as_we_do():
    rng = np.random.default_rng(3)
    cases = [(OPENING, (6, 5)), (OPENING, (6, 6)), (OPENING, (4, 4))]
    cases += [hint_case(rng, kind) for kind in ("any", "bar", "bearoff") for _ in range(15)]
    blocks = [["new game"]] + [
        [gnubg_cli.simple_board_command(board), f"set dice {a} {b}", "hint 999"] for board, (a, b) in cases
    ]
    outputs = gnubg_cli.run_blocks(blocks)[1:]
    for (board, roll), output in zip(cases, outputs):
        printed = gnubg_cli.hint_moves(output)
        ours = {format_gnubg(board, steps) for _, steps in legal_moves(board, roll)}
        assert sorted(printed) == sorted(ours), (gnubg_cli.simple_board_command(board), roll)


# ---------------------------------------------------------------- FIBS


@pytest.mark.parametrize(
    ("move", "direction", "text"),
    [
        (((24, 18), (13, 11)), -1, "move 24-18 13-11"),
        (((24, 18), (13, 11)), 1, "move 1-7 12-14"),
        (((25, 22), (6, 0)), -1, "move bar-22 6-off"),
        (((25, 22), (6, 0)), 1, "move bar-3 19-off"),
        (((8, 5), (8, 5), (6, 5), (6, 5)), -1, "move 8-5 8-5 6-5 6-5"),
    ],
)
def test_format_fibs_examples(move, direction, text):
    assert format_fibs(move, direction) == text


@pytest.mark.parametrize(
    ("move", "direction"),
    [((), -1), (((24, 13),), -1), (((10, 0),), 1), (((24, 18),), 0), (((8, 5),) * 5, -1), (((5, 8),), -1)],
)
def test_format_fibs_refuses(move, direction):
    with pytest.raises(NotationError):
        format_fibs(move, direction)


@pytest.mark.parametrize(
    ("text", "direction", "steps"),
    [
        ("move 24-18 13-11", -1, ((24, 18), (13, 11))),
        ("m 8-5 6-5", -1, ((8, 5), (6, 5))),
        ("move bar-22", -1, ((25, 22),)),
        ("b-22 13-7", -1, ((25, 22), (13, 7))),
        ("move b-3", 1, ((25, 22),)),
        ("6-off 5-o 4-h 3-home", -1, ((6, 0), (5, 0), (4, 0), (3, 0))),
        ("move 24-home", 1, ((1, 0),)),
        ("move 1-7 12-14", 1, ((24, 18), (13, 11))),
        ("19-23 17-22", 1, ((6, 2), (8, 3))),
        ("bob moves 19-23 17-22 .", 1, ((6, 2), (8, 3))),
        ("Bob moves bar-3 .", 1, ((25, 22),)),
        ("move 25-22 3-0", -1, ((25, 22), (3, 0))),
        ("move 0-3 22-25", 1, ((25, 22), (3, 0))),
        ("MOVE 24-18", -1, ((24, 18),)),
    ],
)
def test_parse_fibs_examples(text, direction, steps):
    assert parse_fibs(text, direction) == steps


@pytest.mark.parametrize(
    ("text", "direction"),
    [
        ("", -1),
        ("move", -1),
        ("move 24-18 13", -1),
        ("move 24/18", -1),
        ("move 30-24", -1),
        ("move 18-24", -1),
        ("move 24-10", -1),
        ("move 10-off", -1),
        ("move 24-home", -1),
        ("move 1-2 3-4 5-6 7-8 9-10", 1),
        ("move off-5", -1),
        ("move 5-bar", -1),
        ("move 0-3", -1),
        ("move x-3", -1),
        ("move 24-18", 2),
    ],
)
def test_parse_fibs_rejects_garbage(text, direction):
    with pytest.raises(NotationError):
        parse_fibs(text, direction)


single_steps = st.one_of(
    st.integers(1, 25).flatmap(
        lambda a: (
            st.tuples(st.just(a), st.integers(max(1, a - 6), a - 1)) if a > 1 else st.tuples(st.just(a), st.just(0))
        )
    ),
    st.integers(1, 6).map(lambda a: (a, 0)),
)


@given(st.lists(single_steps, min_size=1, max_size=4), st.sampled_from((-1, 1)))
def test_fibs_round_trip(steps, direction):
    move = tuple(steps)
    assert parse_fibs(format_fibs(move, direction), direction) == move


def test_fibs_text_read_with_the_wrong_direction_is_refused():
    # "move 1-7 12-14" is our 24/18 13/11 when we move 1 -> 24; read as 24 -> 1 it goes backwards
    with pytest.raises(NotationError, match="higher to lower"):
        parse_fibs(format_fibs(((24, 18), (13, 11)), 1), -1)
