"""The `fibsbot` command line: thin wrappers over library functions."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Callable

COMMANDS: dict[str, tuple[Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]] = {}


def command(name: str, help_text: str):
    """Register a subcommand: the decorated function adds its arguments and runs it."""

    def wrap(setup):
        def decorator(run):
            COMMANDS[name] = (help_text, setup, run)
            return run

        return decorator

    return wrap


class UserError(Exception):
    """A mistake in the command line or its input: reported in one line, no traceback."""


def _add_duel_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--a", default="pubeval",
                   help="player A: random, pubeval, gnubg0 (gnubg's 0-ply, needs gnubg-nn), net:NAME[@PLY] "
                        "(default pubeval)")
    p.add_argument("--b", default="random", help="player B, same forms (default random)")
    p.add_argument("--games", type=int, default=2000, help="games to play, in duplicate pairs (default 2000)")
    p.add_argument("--seed", type=int, default=1, help="dice seed; the same seed replays the same dice")
    p.add_argument("--workers", type=int, default=1, help="processes to spread the games over")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")


@command("duel", "play cubeless money games between two players with duplicate dice")(_add_duel_args)
def _duel(args: argparse.Namespace) -> int:
    from engine.duel import run_duel
    from engine.players import PlayerSpecError

    if args.games < 2 or args.workers < 1:
        raise UserError("--games must be at least 2 and --workers at least 1")
    try:
        result = run_duel(args.a, args.b, args.games, args.seed, args.workers)
    except PlayerSpecError as exc:
        raise UserError(str(exc)) from exc
    if args.json:
        print(json.dumps(result.as_dict()))
    else:
        print(result.summary())
    return 0


def _add_moves_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--position-id", help="gnubg Position ID of the position, player on roll to move")
    p.add_argument("--dice", nargs=2, type=int, metavar=("D1", "D2"), help="the roll")
    p.add_argument("--batch", metavar="FILE", help="lines 'ID D1 D2'; answers 'ID D1 D2: RESULT_ID ...' ('-' = stdin)")


def _parse_request(pid: str, d1: int, d2: int):
    from engine.ids import board_from_position_id
    from engine.moves import check_dice
    from engine.position import Position

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
    from engine.ids import position_id
    from engine.moves import legal_moves
    from engine.notation import format_gnubg

    if args.batch:
        stream = sys.stdin if args.batch == "-" else open(args.batch, encoding="utf-8")
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
        return 0
    if not args.position_id or not args.dice:
        raise UserError("give --position-id and --dice, or --batch FILE")
    d1, d2 = args.dice
    position = _parse_request(args.position_id, d1, d2)
    for move, after in legal_moves(position, d1, d2):
        text = format_gnubg(position.board, move) if move else "(no legal move)"
        print(f"{position_id(after.flip().board)}  {text}")
    return 0


def _add_bench_args(p: argparse.ArgumentParser) -> None:
    # names are checked when the command runs: listing them here would load numba for every command
    p.add_argument("--only", nargs="*", metavar="NAME", help="run only these benchmarks")
    p.add_argument("--json", action="store_true", help="print one JSON object")


@command("bench", "measure the engine's speed on one core (move generation, self-play, ...)")(_add_bench_args)
def _bench(args: argparse.Namespace) -> int:
    import fibsbot.bench_rollout  # noqa: F401  registers the rollout benchmark
    import fibsbot.bench_search  # noqa: F401  registers the search benchmarks
    import fibsbot.bench_start  # noqa: F401  registers the first-start benchmark
    from fibsbot.bench import BENCHMARKS, run_benchmarks

    unknown = sorted(set(args.only or ()) - set(BENCHMARKS))
    if unknown:
        raise UserError(f"unknown benchmark {', '.join(unknown)}; known: {', '.join(sorted(BENCHMARKS))}")
    results = run_benchmarks(args.only)
    if args.json:
        print(json.dumps(results))
        return 0
    for key, value in results.items():
        if isinstance(value, float):
            print(f"{key:32s} {value:>14,.1f}" if value >= 100 else f"{key:32s} {value:>14.4g}")
        elif isinstance(value, dict):
            details = ", ".join((f"{k}={v:,.0f}" if abs(v) >= 100 else f"{k}={v:.4g}") if isinstance(v, float)
                                else f"{k}={v}" for k, v in value.items())
            print(f"  {key}: {details}")
    return 0


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with ``only`` (a command's name), only that command's options are
    set up: some setups load numba, which would cost every other command most of a second."""
    import fibsbot.cli_analyse  # noqa: F401  registers `analyse`
    import fibsbot.cli_arena  # noqa: F401  registers `arena`
    import fibsbot.cli_benchmark  # noqa: F401  registers `benchmark`, `benchmark-build`
    import fibsbot.cli_external  # noqa: F401  registers `external`
    import fibsbot.cli_hint  # noqa: F401  registers `hint`
    import fibsbot.cli_report  # noqa: F401  registers `report`
    import fibsbot.cli_retrain  # noqa: F401  registers `retrain`
    import fibsbot.cli_rollout  # noqa: F401  registers `rollout`
    import fibsbot.cli_run  # noqa: F401  registers `run`
    import fibsbot.cli_server  # noqa: F401  registers `server`
    import fibsbot.cli_status  # noqa: F401  registers `status`
    import fibsbot.cli_train  # noqa: F401  registers `train`
    parser = argparse.ArgumentParser(
        prog="fibsbot",
        description="A backgammon bot for FIBS-style servers, and the engine and training behind it.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (help_text, setup, _run) in COMMANDS.items():
        subparser = sub.add_parser(name, help=help_text, description=help_text)
        if only not in COMMANDS or name == only:
            setup(subparser)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    _help, _setup, run = COMMANDS[args.command]
    try:
        return run(args)
    except UserError as exc:
        print(f"fibsbot {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except (OSError, UnicodeDecodeError) as exc:  # unreadable files or input that is not UTF-8
        print(f"fibsbot {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
