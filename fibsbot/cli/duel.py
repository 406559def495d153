"""`fibsbot duel`: cubeless money games between two players with duplicate dice."""

from __future__ import annotations

import argparse
import json

from fibsbot.cli.registry import UserError, command


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
    import nets.player  # noqa: F401  registers net:NAME[@PLY] with the engine's players
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
