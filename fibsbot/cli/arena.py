"""`fibsbot arena`: whole matches against a sparring bot through the real protocol."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from fibsbot.cli.registry import UserError, command, net_path


def _setup(p: argparse.ArgumentParser) -> None:
    p.add_argument("--length", type=int, default=3, help="match length in points (default 3)")
    p.add_argument("--matches", type=int, default=1, help="matches to play (default 1)")
    p.add_argument(
        "--opponent",
        default="pubeval",
        help="sparring bot: pubeval (its moves, our 0-ply cube), blitz (our 0-ply with a taste for attack) "
        "or net:NAME@PLY",
    )
    p.add_argument(
        "--ply",
        default=None,
        choices=["0", "1", "2", "table"],
        help="our level: 0, 1 or 2 plies, or table (cubeful 2-ply, a deeper look at close moves); default "
        "table, the daemon's, and 2 with --chaos or --soak",
    )
    p.add_argument(
        "--wait-for-search",
        action="store_true",
        help="on the first run after an install, wait for the search to compile (a few minutes) "
        "before the first match, instead of playing at 0-ply until it is ready",
    )
    p.add_argument("--net", default="default", help="our net (default: the shipped one)")
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help="threads of our cubeful lookahead, as [play] workers for the daemon (default: every core this "
        "process may use); the decisions are the same with any number",
    )
    p.add_argument("--data-dir", help="where matches/, log/ and queue.sqlite go (default: the user's data dir)")
    p.add_argument("--seed", type=int, default=None, help="server dice seed (default: random)")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    p.add_argument(
        "--chaos",
        action="store_true",
        help="fault test: run the daemon as its own process and, at random moments, drop its "
        "connection, SIGKILL and restart it, and make the opponent log out as it wins; "
        "then check every match file against the server's record (needs gnubg)",
    )
    p.add_argument(
        "--fault-rate",
        type=float,
        default=0.5,
        help="with --chaos: the chance of a fault at each random moment (default 0.5)",
    )
    p.add_argument(
        "--soak",
        metavar="FILE",
        help="a long fault run (implies --chaos, never kills the daemon): after each match, append the "
        "daemon's memory, open descriptors, decision times and disk use to FILE (JSON lines), then "
        "print whether they stayed flat",
    )


SPARRING_STYLES = ("pubeval", "blitz")  # the sparring bots besides a net of ours (fibsbot.arena.sparring)


def check_players(net: str, opponent: str) -> None:
    """Both sides exist, before the data dir is touched: ``--net`` names a net, and
    ``--opponent`` is a sparring style or a net (``net:NAME@PLY``; a bare NAME that names
    a net plays as one too)."""
    from engine.players.registry import PlayerSpecError
    from nets.player import resolve_net_path, shipped_nets

    net_path(net)
    if opponent in SPARRING_STYLES:
        return
    if opponent.startswith("net:"):
        net_path(opponent.removeprefix("net:").partition("@")[0])  # a bad level is named when the net loads
        return
    try:
        resolve_net_path(opponent.partition("@")[0])
    except PlayerSpecError:
        raise UserError(
            f"--opponent {opponent!r}: no such opponent; choose {', '.join(SPARRING_STYLES)} or net:NAME@PLY "
            f"(NAME shipped: {', '.join(shipped_nets())}, or a path to a .npz)"
        ) from None


@command("arena", "play matches against a sparring bot on a local FIBS-style server, with full records")(_setup)
def _arena(args: argparse.Namespace) -> int:
    from engine.players.registry import PlayerSpecError
    from fibsbot.arena.play import BOT, log_cap_bytes, print_result, run_arena
    from fibsbot.config import ConfigError, PlaySettings
    from fibsbot.console import Console

    if args.length < 1 or args.matches < 1:
        raise UserError("--length and --matches must be at least 1")
    if args.workers is not None and args.workers < 1:
        raise UserError(f"--workers {args.workers}: at least 1 thread")
    check_players(args.net, args.opponent)

    def progress(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    try:
        log_cap_bytes()  # the log's cap from FIBSBOT_RECORDS__LOG_MAX_MB: a bad value is said before playing
    except ConfigError as exc:
        raise UserError(str(exc)) from None
    if args.chaos or args.soak:
        return _chaos(args, progress)
    args.ply = args.ply or "table"  # the daemon's level unless asked otherwise
    try:
        level = args.ply if args.ply == "table" else int(args.ply)
        result = asyncio.run(
            run_arena(
                args.length,
                args.matches,
                args.opponent,
                level,
                args.net,
                args.data_dir,
                args.seed,
                None if args.json else progress,
                wait_for_search=args.wait_for_search,
                console=None if args.json else Console(BOT, sys.stderr),
                workers=PlaySettings(workers=args.workers).threads,
            )
        )
    except PlayerSpecError as exc:
        raise UserError(str(exc)) from exc
    if args.json:
        print(json.dumps(result.as_dict()))
    else:
        print_result(result)
    return 0 if result.stuck == 0 else 1


def _soak_sampler(args: argparse.Namespace):
    from pathlib import Path

    from fibsbot.arena.soak import Sampler
    from fibsbot.config import Settings

    out = Path(args.soak)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.open("a").close()
    except OSError as exc:
        raise UserError(f"--soak {args.soak}: cannot write there ({exc.strerror})") from None
    data_dir = Path(args.data_dir or Path.cwd() / "chaos-run").resolve()
    cap = getattr(getattr(Settings(), "records", None), "log_max_mb", None)  # the cap the daemon gets
    return Sampler(out, data_dir, cap)


def _chaos(args: argparse.Namespace, progress) -> int:
    from fibsbot.arena.chaos import print_chaos, run_chaos

    if not 0.0 <= args.fault_rate <= 1.0:
        raise UserError("--fault-rate must be between 0 and 1")
    args.ply = args.ply or "2"
    if args.ply == "table":
        raise UserError("--chaos plays at 0, 1 or 2 plies (the fault test measures records, not strength)")
    args.ply = int(args.ply)
    sampler = _soak_sampler(args) if args.soak else None
    result = asyncio.run(
        run_chaos(
            args.matches,
            args.length,
            args.data_dir,
            args.seed,
            args.ply,
            args.fault_rate,
            None if args.json else progress,
            kill_share=0.0 if sampler else 0.5,
            after_match=sampler,
        )
    )
    if args.json:
        print(json.dumps(result.as_dict()))
    else:
        print_chaos(result)
    if sampler is not None:
        from fibsbot.arena.soak import summarise

        print(json.dumps({"soak": summarise(sampler.out)}))
    a = result.audit
    clean = not (result.stuck or a.moves_lost or a.moves_wrong or a.queue_rows_dangling or result.observer_failures)
    return 0 if clean and not a.problems else 1
