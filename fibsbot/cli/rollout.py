"""`fibsbot rollout`: cubeless rollouts of a position or of the candidate moves of a roll."""

from __future__ import annotations

import argparse
import json

from fibsbot.cli.registry import UserError, command


def _setup(p: argparse.ArgumentParser) -> None:
    p.add_argument("--position-id", required=True, help="gnubg Position ID, the player on roll in front")
    p.add_argument(
        "--dice",
        nargs=2,
        type=int,
        metavar=("D1", "D2"),
        help="roll out the best moves of this roll; without it, the position before its roll",
    )
    p.add_argument("--games", type=int, default=1296, help="games per position (default 1296 = 36 x 36)")
    p.add_argument("--candidates", type=int, default=5, help="moves to roll out, best 0-ply first (default 5)")
    p.add_argument("--seed", type=int, default=1, help="dice seed; every candidate gets the same dice")
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        help="local processes, or with --ray the least number of tasks (same results for any number)",
    )
    p.add_argument(
        "--ray",
        metavar="ADDRESS",
        dest="ray_address",
        help="run the games as tasks on the Ray cluster at ADDRESS (HOST:PORT, ray://HOST:PORT, 'auto', "
        "or 'local' for a fresh one on this machine); needs pip install 'fibsbot[ray]'",
    )
    p.add_argument("--net", default="default", help="net that plays the games (0-ply)")
    p.add_argument("--no-truncate", action="store_true", help="play bearoffs out instead of using the database")
    p.add_argument(
        "--varredn",
        action="store_true",
        help="variance reduction: take the luck of every roll (against the 21 rolls) off each game",
    )
    p.add_argument(
        "--max-turns",
        type=int,
        default=0,
        metavar="N",
        help="stop each game after N turns with the 0-ply figures (default 0: play on)",
    )
    p.add_argument(
        "--prune",
        type=int,
        nargs="?",
        const=-1,
        default=0,
        metavar="K",
        help="play as gnubg's rollouts do: the pruning net picks K moves (default 8, the engine's "
        "ROLLOUT_PRUNE_KEEP) for the full net to score, about twice the games per second",
    )
    p.add_argument("--json", action="store_true")


@command("rollout", "roll out a position, or the candidate moves of a roll, with common dice")(_setup)
def _rollout(args: argparse.Namespace) -> int:
    import nets.player  # noqa: F401  registers net:NAME with the engine's players
    from engine.rollout.cubeless import ROLLOUT_PRUNE_KEEP, rollout_moves, rollout_position
    from engine.rollout.parallel import ParallelBackendError
    from engine.rules.notation import format_gnubg
    from fibsbot.hint import HintError, parse_request

    if args.games < 1 or args.workers < 1:
        raise UserError("--games and --workers must be at least 1")
    try:
        request = parse_request(args.position_id, dice=tuple(args.dice) if args.dice else None)
    except HintError as exc:
        raise UserError(str(exc)) from exc
    spec = f"net:{args.net}"
    common = dict(
        spec=spec,
        seed=args.seed,
        truncate=not args.no_truncate,
        workers=args.workers,
        ray_address=args.ray_address,
        varredn=args.varredn,
        max_turns=max(0, args.max_turns),
        prune=ROLLOUT_PRUNE_KEEP if args.prune == -1 else max(0, args.prune),
    )
    try:
        if request.dice is None:
            result = rollout_position(request.board, args.games, **common).as_dict()
        else:
            rows = rollout_moves(request.board, *request.dice, args.games, candidates=args.candidates, **common)
    except ParallelBackendError as exc:
        raise UserError(str(exc)) from exc
    if request.dice is None:
        if args.json:
            print(json.dumps(result))
        else:
            probs = " ".join(f"{p:.4f}" for p in result["probs"])
            print(f"{args.games} games: {probs}  equity {result['equity']:+.4f} +/- {result['equity_stderr']:.4f}")
        return 0
    for row in rows:
        row["move"] = format_gnubg(request.board, row.pop("steps")) or "(no legal move)"
    if args.json:
        print(json.dumps({"games": args.games, "seed": args.seed, "moves": rows}))
        return 0
    for rank, row in enumerate(rows, 1):
        print(
            f"{rank:2d}. {row['move']:28s} {row['equity']:+.4f} +/- {row['equity_stderr']:.4f}   "
            f"diff {row['diff']:+.4f} +/- {row['diff_stderr']:.4f}"
        )
    return 0
