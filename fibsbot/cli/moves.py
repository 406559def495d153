"""`fibsbot moves`: every legal result of a roll, as Position IDs."""

from __future__ import annotations

import argparse
import sys

from fibsbot.cli.registry import UserError, command


def _add_moves_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--position-id", help="gnubg Position ID of the position, player on roll to move")
    p.add_argument("--dice", nargs=2, type=int, metavar=("D1", "D2"), help="the roll")
    p.add_argument("--batch", metavar="FILE", help="lines 'ID D1 D2'; answers 'ID D1 D2: RESULT_ID ...' ('-' = stdin)")


def _parse_request(pid: str, d1: int, d2: int):
    from engine.rules.ids import board_from_position_id
    from engine.rules.moves import check_dice
    from engine.rules.position import Position

    try:
        check_dice(d1, d2)
        position = Position(board_from_position_id(pid))
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    if position.is_game_over():
        raise UserError(f"{pid}: the game is over, there is nothing to move")
    return position


@command("moves", "list every legal result of a roll, as Position IDs with the opponent on roll")(_add_moves_args)
def _moves(args: argparse.Namespace) -> int:
    from engine.rules.ids import position_id
    from engine.rules.moves import legal_moves
    from engine.rules.notation import format_gnubg

    if args.batch:
        try:
            _answer_batch(args.batch)
        except UnicodeDecodeError as exc:  # Python's message names no file
            raise UserError(f"--batch {args.batch}: not UTF-8 text") from exc
        return 0
    if not args.position_id or not args.dice:
        raise UserError("give --position-id and --dice, or --batch FILE")
    d1, d2 = args.dice
    position = _parse_request(args.position_id, d1, d2)
    for move, after in legal_moves(position, d1, d2):
        text = format_gnubg(position.board, move) if move else "(no legal move)"
        print(f"{position_id(after.flip().board)}  {text}")
    return 0


def _answer_batch(path: str) -> None:
    """Each line's legal results; the first bad line ends the batch with its line number."""
    from engine.rules.ids import position_id
    from engine.rules.moves import legal_moves

    stream = sys.stdin if path == "-" else open(path, encoding="utf-8")
    with stream:
        for lineno, line in enumerate(stream, 1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) != 3 or not fields[1].isdigit() or not fields[2].isdigit():
                raise UserError(f"line {lineno}: expected 'POSITION_ID D1 D2', got {line.strip()!r}")
            d1, d2 = int(fields[1]), int(fields[2])
            try:
                position = _parse_request(fields[0], d1, d2)
            except UserError as exc:
                raise UserError(f"line {lineno}: {exc}") from exc
            ids = sorted(position_id(after.flip().board) for _, after in legal_moves(position, d1, d2))
            print(f"{fields[0]} {d1} {d2}: {' '.join(ids)}")
