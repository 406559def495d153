"""Move checking for the server: FIBS move commands against the engine's legal moves.

A move command is read with ``engine.rules.notation.parse_fibs`` (server point numbers,
``bar``/``off``/``home`` words, one step per die), then played step by step in the
order given, as FIBS does: each step must use an unused die, start on one of the
mover's checkers, respect the bar and bear-off rules and land on an open point.
The final position must be one of ``engine.rules.moves.legal_moves``'s results, which
enforces "use as many dice as possible, the larger one if only one".
"""

from __future__ import annotations

import numpy as np

from engine.rules.moves import legal_moves
from engine.rules.notation import NotationError, format_fibs, parse_fibs
from engine.rules.position import BAR, Position

Move = tuple[tuple[int, int], ...]
Results = list[tuple[Move, Position]]


class IllegalMove(ValueError):
    """A move command the server refuses; the message is shown to the player."""


def legal_results(position: Position, dice: tuple[int, int]) -> Results:
    return legal_moves(position, dice[0], dice[1])


def pieces_to_move(results: Results) -> int:
    """Checkers (dice) the roll must play: the same for every legal result."""
    return len(results[0][0]) if results else 0


def move_echo(move: Move, direction: int) -> str:
    """A move in server numbering as FIBS echoes it: ``bar-22 6-off``."""
    return format_fibs(move, direction).removeprefix("move ")


def _server(point: int, direction: int) -> str:
    if point == BAR + 1:
        return "bar"
    if point == 0:
        return "off"
    return str(point if direction == -1 else 25 - point)


def _play_step(board: np.ndarray, pool: list[int], start: int, end: int, direction: int) -> None:
    me, them = board[0], board[1]
    word = f"{_server(start, direction)}-{_server(end, direction)}"
    if me[start - 1] == 0:
        raise IllegalMove(f"You don't have a checker on {_server(start, direction)} ({word}).")
    if start != BAR + 1 and me[BAR] > 0:
        raise IllegalMove(f"You have to move your checkers from the bar first ({word}).")
    if end == 0:
        if me[6:].sum() > 0:
            raise IllegalMove(f"You can't bear off before all your checkers are home ({word}).")
        if start in pool:
            die = start
        else:
            larger = [d for d in pool if d > start]
            if not larger or me[start:6].sum() > 0:
                raise IllegalMove(f"You can't bear off from there with {_dice_text(pool)} ({word}).")
            die = min(larger)
    else:
        die = start - end
        if die not in pool:
            raise IllegalMove(f"You can't move {word} with {_dice_text(pool)}.")
        if them[24 - end] >= 2:
            raise IllegalMove(f"The point {_server(end, direction)} is blocked ({word}).")
    pool.remove(die)
    me[start - 1] -= 1
    if end > 0:
        me[end - 1] += 1
        if them[24 - end] == 1:  # a blot: hit it
            them[24 - end] = 0
            them[BAR] += 1


def _dice_text(pool: list[int]) -> str:
    return " and ".join(str(d) for d in pool) if pool else "no dice left"


def play_move(
    position: Position, dice: tuple[int, int], text: str, direction: int, results: Results
) -> tuple[Move, Position]:
    """The move ``text`` (FIBS notation) and its result, or IllegalMove saying why.

    ``position`` has the mover in row 0; ``results`` are its legal results for ``dice``.
    """
    try:
        steps = parse_fibs(text, direction)
    except NotationError as exc:
        raise IllegalMove(str(exc)) from None
    d1, d2 = dice
    pool = [d1] * 4 if d1 == d2 else [d1, d2]
    board = position.board.astype(np.int16)
    for start, end in steps:
        _play_step(board, pool, start, end, direction)
    reached = board.astype(np.int8).tobytes()
    for _, result in results:
        if result.board.tobytes() == reached:
            return steps, Position(board.astype(np.int8))
    needed = pieces_to_move(results)
    if len(steps) < needed:
        raise IllegalMove(f"You must give {needed} moves.")
    raise IllegalMove(f"That move is not legal: with {d1} and {d2} you must play as much as you can.")
