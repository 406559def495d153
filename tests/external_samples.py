"""Request lines captured from gnubg 1.07 talking to an external player, and the board
arithmetic the tests check its answers with."""

from __future__ import annotations

import numpy as np

from engine.rules.position import Position

# Lines captured from gnubg 1.07 playing against an external player.
# Player 1 ("root") to move 64, post-Crawford, gnubg 2 - root 4 (note: gnubg's name and score first).
SEAT1_MOVE = (
    "board:gnubg:root:5:2:4:0:-1:0:-1:0:0:5:0:3:0:0:0:-4:5:0:0:0:-4:0:-5:0:0:0:0:2:0:1:"
    "4:6:4:6:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:1:1"
)
# gnubg doubled player 1 at the same score: root's name and score come first now.
SEAT1_DOUBLED = (
    "board:root:gnubg:5:4:2:0:-1:0:-1:0:0:5:0:3:0:0:0:-4:5:0:0:0:-4:1:-5:1:0:0:0:0:0:-1:"
    "0:0:0:0:1:1:1:1:1:-1:0:25:0:0:0:0:0:0:1:1"
)
# gnubg, owning the cube at 2, redoubles; player 1 has a checker on the bar.
SEAT1_REDOUBLED = (
    "board:root:gnubg:3:0:0:0:0:0:0:0:-1:5:0:4:0:2:0:-5:3:0:0:0:0:0:-4:-1:-2:-2:0:0:1:"
    "-1:0:0:0:0:2:0:1:1:1:-1:0:25:0:0:0:0:0:0:0:1"
)
# player 1 owns the cube at 4 and has rolled 25, a checker on the bar.
SEAT1_OWNS_CUBE = (
    "board:gnubg:root:3:0:0:0:0:0:0:0:-1:5:0:4:0:2:0:-4:3:0:0:0:-1:0:-3:-2:-2:-2:0:0:1:"
    "1:2:5:2:5:4:1:0:0:1:-1:0:25:0:0:0:0:0:0:0:1"
)
# gnubg 1.07 with the external player in seat 0 ("extbot"): the turn field says X acts.
SEAT0_MOVE = (
    "board:extbot:gnubg:5:1:3:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:1:0:-3:0:-5:0:0:0:0:1:0:-1:"
    "2:6:2:6:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1"
)


def with_fields(line: str, **changes: int) -> str:
    """``line`` with some fields replaced, given as f<index>=value."""
    fields = line.split(":")
    for index, value in changes.items():
        fields[int(index[1:])] = str(value)
    return ":".join(fields)


def apply(board: np.ndarray, steps) -> Position:
    """The position after ``steps`` (mover in row 0), hitting blots on the way."""
    board = board.copy()
    for start, end in steps:
        board[0, start - 1] -= 1
        if end:
            board[0, end - 1] += 1
            if board[1, 24 - end] == 1:
                board[1, 24 - end] = 0
                board[1, 24] += 1
    return Position(board)
