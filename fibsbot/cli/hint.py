"""`fibsbot hint`: the engine's analysis of one position, or of a batch of them."""

from __future__ import annotations

import argparse
import json
import sys

from fibsbot.cli.registry import UserError, command, describe_os_error


def _setup(p: argparse.ArgumentParser) -> None:
    p.add_argument("--position-id", help="gnubg Position ID, the player on roll in front")
    p.add_argument("--match-id", help="gnubg Match ID (score, cube, dice); money play without it")
    p.add_argument("--xgid", help="an XGID instead of the two IDs")
    p.add_argument("--dice", nargs=2, type=int, metavar=("D1", "D2"), help="the roll; without it, the cube decision")
    p.add_argument("--ply", type=int, default=None, choices=[0, 1, 2], help="search depth (default 2)")
    p.add_argument("--net", default=None, help="net name or path (default: the shipped net)")
    p.add_argument(
        "--player",
        metavar="SPEC",
        help="the player to ask, net:NAME@LEVEL with LEVEL 0, 1, 2 or table (instead of --net and "
        "--ply); the batch honours it for moves and cube decisions",
    )
    p.add_argument("--limit", type=int, default=None, help="show at most this many moves (1 or more)")
    p.add_argument("--json", action="store_true", help="one JSON object per answer")
    p.add_argument(
        "--batch", metavar="FILE", help="lines 'POSITION_ID [MATCH_ID] [D1 D2]' ('-' = stdin); one JSON answer per line"
    )


def _open_batch(path: str):
    if path == "-":
        return sys.stdin
    try:
        return open(path, encoding="utf-8")
    except OSError as exc:
        raise UserError(f"--batch {describe_os_error(exc)}") from exc


@command("hint", "rank the moves of a roll, or give the cube decision, like gnubg's hint")(_setup)
def _hint(args: argparse.Namespace) -> int:
    from engine.players.registry import PlayerSpecError
    from fibsbot.hint import HintError, format_text, hint, parse_request
    from nets.player import load_agent

    if args.batch and (args.position_id or args.match_id or args.xgid or args.dice):
        raise UserError(
            "--batch reads every request from its file: give it without --position-id, --match-id, --xgid and --dice"
        )
    _check_choice(args)
    stream = _open_batch(args.batch) if args.batch else None  # before the net loads: a bad path fails at once
    try:
        if args.player and not args.player.startswith("net:"):
            raise PlayerSpecError(f"--player {args.player}: hint asks our nets only (net:NAME@LEVEL)")
        spec = args.player or f"net:{args.net or 'default'}@{2 if args.ply is None else args.ply}"
        agent = load_agent(spec)
    except PlayerSpecError as exc:
        raise UserError(str(exc)) from exc
    if stream is not None:
        with stream:
            _answer_batch(agent, stream, args.batch, args.limit)
        return 0
    try:
        request = parse_request(args.position_id, args.match_id, args.xgid, tuple(args.dice) if args.dice else None)
    except HintError as exc:
        raise UserError(str(exc)) from exc
    answer = hint(agent, request, args.limit)
    print(json.dumps(answer) if args.json else format_text(answer, request))
    return 0


def _check_choice(args: argparse.Namespace) -> None:
    """Options that would be ignored or show nothing are refused, not dropped without a word."""
    if args.limit is not None and args.limit < 1:
        raise UserError(f"--limit {args.limit}: show at least 1 move (leave it out for every move)")
    if args.player:
        given = [option for option, value in (("--ply", args.ply), ("--net", args.net)) if value is not None]
        if given:
            raise UserError(
                f"--player {args.player} names the net and the level: give it without {' and '.join(given)}"
            )


def _answer_batch(agent, stream, path: str, limit: int | None) -> None:
    """One JSON answer a request line, in order; a line that cannot be answered gets an
    ``error`` answer in its place and, once every line is answered, one line on stderr
    (through UserError: exit 2), so that a bad line is neither silent nor the end of the batch."""
    from fibsbot.hint import HintError, hint, parse_batch_line

    bad: list[str] = []
    lineno = 0
    try:
        for lineno, line in enumerate(stream, 1):
            if not line.strip():
                continue
            try:
                answer = hint(agent, parse_batch_line(line), limit)
            except HintError as exc:
                bad.append(f"line {lineno}: {exc}")
                answer = {"error": bad[-1]}
            answer["request"] = line.strip()
            print(json.dumps(answer), flush=True)
    except UnicodeDecodeError as exc:
        where = f" (after line {lineno})" if lineno else ""
        raise UserError(f"--batch {path}: not UTF-8 text{where}") from exc
    if bad:
        more = f" (and {len(bad) - 1} more; each has an 'error' answer in its place)" if len(bad) > 1 else ""
        raise UserError(f"--batch {path}: {bad[0]}{more}")
