"""`fibsbot rollout`: rollouts of a position, its cube decision, or the candidate moves of a roll.

Cubeless money rollouts by default; with a Match ID (or ``--cubeful`` in money play)
the games are played with the cube, the results counted at the score (EMG) or in
points of the cube, as GNU Backgammon's cubeful rollouts count them.
"""

from __future__ import annotations

import argparse
import json

from fibsbot.cli.registry import UserError, command


class _PruneDefault:
    """``--prune`` alone: the engine's ROLLOUT_PRUNE_KEEP (named here without loading the engine).
    Not a string, which argparse would pass through ``type=int``."""

    def __repr__(self) -> str:
        return "PRUNE_DEFAULT"


PRUNE_DEFAULT = _PruneDefault()


def check_limits(args: argparse.Namespace) -> None:
    """--max-turns and --prune in range: a negative turn limit, or pruning to no move at all,
    is a mistake, not a request for the default."""
    if args.max_turns < 0:
        raise UserError(f"--max-turns must be 0 (play every game out) or more, not {args.max_turns}")
    if args.prune is not None and args.prune is not PRUNE_DEFAULT and args.prune < 1:
        raise UserError(
            f"--prune K needs K of 1 or more moves for the full net to score, not {args.prune} "
            "(leave --prune out for an unpruned rollout)"
        )


def _setup(p: argparse.ArgumentParser) -> None:
    p.add_argument("--position-id", required=True, help="gnubg Position ID, the player on roll in front")
    p.add_argument(
        "--match-id",
        help="gnubg Match ID: score, cube and Crawford; the rollout is then cubeful at that score "
        "(a money Match ID too)",
    )
    p.add_argument(
        "--cubeful",
        action="store_true",
        help="money play with the cube: every game takes its cube decisions (cubeless without it)",
    )
    p.add_argument("--jacoby", action="store_true", help="money play: the Jacoby rule (off by default, as on FIBS)")
    p.add_argument("--beavers", action="store_true", help="money play: beavers allowed (off by default)")
    p.add_argument(
        "--dice",
        nargs=2,
        type=int,
        metavar=("D1", "D2"),
        help="roll out the best moves of this roll; without it, the position before its roll "
        "(cubeful: its cube decision)",
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
    p.add_argument(
        "--no-truncate",
        action="store_true",
        help="cubeless: play bearoffs out instead of using the database (cubeful games always play them out)",
    )
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
        help="stop each game after N turns with the 0-ply figures, cubeful ones in a cubeful rollout "
        "(default 0: play on)",
    )
    p.add_argument(
        "--prune",
        type=int,
        nargs="?",
        const=PRUNE_DEFAULT,
        default=None,
        metavar="K",
        help="play as gnubg's rollouts do: the pruning net picks K moves (default 8, the engine's "
        "ROLLOUT_PRUNE_KEEP) for the full net to score, about twice the games per second",
    )
    p.add_argument("--json", action="store_true")


@command("rollout", "roll out a position, its cube decision, or the candidate moves of a roll, with common dice")(
    _setup
)
def _rollout(args: argparse.Namespace) -> int:
    import nets.player  # noqa: F401  registers net:NAME with the engine's players
    from engine.players.registry import PlayerSpecError
    from engine.rollout.cubeless import ROLLOUT_PRUNE_KEEP, rollout_agent
    from engine.rollout.parallel import ParallelBackendError
    from fibsbot.hint import HintError, parse_request

    if args.games < 1 or args.workers < 1:
        raise UserError("--games and --workers must be at least 1")
    if args.candidates < 1:
        raise UserError("--candidates must be at least 1")
    check_limits(args)
    try:
        request = parse_request(args.position_id, args.match_id, dice=tuple(args.dice) if args.dice else None)
    except HintError as exc:
        raise UserError(str(exc)) from exc
    cubeful = args.match_id is not None or args.cubeful
    if not cubeful and (args.jacoby or args.beavers):
        raise UserError("--jacoby and --beavers are rules of cubeful money play: add --cubeful")
    try:
        agent = rollout_agent(f"net:{args.net}") if args.workers <= 1 and args.ray_address is None else None
    except PlayerSpecError as exc:
        raise UserError(str(exc)) from exc
    prune = ROLLOUT_PRUNE_KEEP if args.prune is PRUNE_DEFAULT else (args.prune or 0)
    try:
        if cubeful:
            from fibsbot.cli.rollout_cubeful import run_cubeful

            return run_cubeful(args, request, agent, prune)
        return _run_cubeless(args, request, agent, prune)
    except ParallelBackendError as exc:
        raise UserError(str(exc)) from exc
    except PlayerSpecError as exc:
        raise UserError(str(exc)) from exc


def _run_cubeless(args: argparse.Namespace, request, agent, prune: int) -> int:
    from engine.rollout.cubeless import rollout_moves, rollout_position
    from engine.rules.notation import format_gnubg

    common = dict(
        spec=f"net:{args.net}",
        agent=agent,
        seed=args.seed,
        truncate=not args.no_truncate,
        workers=args.workers,
        ray_address=args.ray_address,
        varredn=args.varredn,
        max_turns=args.max_turns,
        prune=prune,
    )
    if request.dice is None:
        result = rollout_position(request.board, args.games, **common).as_dict()
        if args.json:
            print(json.dumps(result))
            return 0
        print(f"Cubeless rollout of the position before its roll, {args.games} games, seed {args.seed}")
        print("  " + "  ".join(f"{name:>6s}" for name in ("Win", "W(g)", "W(bg)", "L(g)", "L(bg)")) + "   equity")
        probs = "  ".join(f"{p:6.4f}" for p in result["probs"])
        print(f"  {probs}  {result['equity']:+.4f} +/- {result['equity_stderr']:.4f}")
        return 0
    d1, d2 = request.dice
    rows = rollout_moves(request.board, d1, d2, args.games, candidates=args.candidates, **common)
    for row in rows:
        row["move"] = format_gnubg(request.board, row.pop("steps")) or "(no legal move)"
    if args.json:
        print(json.dumps({"games": args.games, "seed": args.seed, "moves": rows}))
        return 0
    from fibsbot.cli.rollout_cubeful import print_moves

    print(f"Cubeless rollout of the best {len(rows)} moves of {d1}{d2}, {args.games} games each, seed {args.seed}")
    print_moves(rows)
    return 0
