"""`fibsbot duel`: cubeless money games between two players with duplicate dice."""

from __future__ import annotations

import argparse
import json
import sys
import time

from fibsbot.cli.registry import UserError, command


def _add_duel_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--a",
        default="pubeval",
        help="player A: random, pubeval, gnubg0, gnubg1, gnubg2 (gnubg's checker play at 0, 1 or 2 "
        "plies, needs gnubg-nn), net:NAME[@LEVEL] (LEVEL 0, 1, 2 or table), blitz[:NAME] (the arena's "
        "blitzing sparring partner over net NAME's 0-ply) (default pubeval)",
    )
    p.add_argument("--b", default="random", help="player B, same forms (default random)")
    p.add_argument(
        "--games",
        type=int,
        default=2000,
        help="games to play, in duplicate pairs: an odd number is rounded up (default 2000)",
    )
    p.add_argument("--seed", type=int, default=1, help="dice seed; the same seed replays the same dice")
    p.add_argument("--workers", type=int, default=1, help="processes to spread the games over")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    p.add_argument(
        "--chunks",
        metavar="DIR",
        help="save the points in chunks of duplicate pairs under DIR as they finish; a rerun "
        "with the same players, seed and chunk size plays only the chunks DIR lacks",
    )
    p.add_argument("--chunk-pairs", type=int, default=500, help="duplicate pairs a chunk of --chunks (default 500)")


@command("duel", "play cubeless money games between two players with duplicate dice")(_add_duel_args)
def _duel(args: argparse.Namespace) -> int:
    import fibsbot.arena.sparring  # noqa: F401  registers blitz[:NET], the arena's blitzing partner
    import nets.player  # noqa: F401  registers net:NAME[@PLY] with the engine's players
    from engine.players.registry import PlayerSpecError
    from engine.rollout.duel import run_duel

    if args.games < 2 or args.workers < 1:
        raise UserError("--games must be at least 2 and --workers at least 1")
    if args.games % 2:
        print(
            f"fibsbot duel: {args.games} games rounded up to {args.games + 1}: duplicate dice play the games in pairs",
            file=sys.stderr,
        )
    if args.chunk_pairs < 1:
        raise UserError("--chunk-pairs must be at least 1")
    start = time.perf_counter()
    played_games = (args.games + 1) // 2 * 2
    try:
        if args.chunks:
            from pathlib import Path

            from fibsbot.cli.duel_chunks import ChunkFolderMismatch, run_chunked_duel

            def progress(done: int, total: int) -> None:
                print(f"fibsbot duel: chunk {done}/{total} saved under {args.chunks}", file=sys.stderr)

            try:
                result, played_pairs = run_chunked_duel(
                    args.a, args.b, args.games, args.seed, args.workers, Path(args.chunks), args.chunk_pairs, progress
                )
            except ChunkFolderMismatch as exc:
                raise UserError(str(exc)) from exc
            played_games = 2 * played_pairs
        else:
            result = run_duel(args.a, args.b, args.games, args.seed, args.workers)
    except PlayerSpecError as exc:
        raise UserError(str(exc)) from exc
    # games/s times the games alone; what came before them (loading the players and
    # numba compiling the duel loop, which it does on every run) is reported apart
    playing_s = played_games / result.games_per_s if result.games_per_s > 0 else 0.0
    setup_s = max(time.perf_counter() - start - playing_s, 0.0)
    if args.json:
        print(json.dumps({**result.as_dict(), "setup_s": round(setup_s, 3)}))
    else:
        print(result.summary() + f" ({playing_s:.1f} s of play)")
        print(
            f"  {setup_s:.1f} s before the first game: loading the players and compiling the duel loop "
            f"(compiled again on every run; not in games/s)"
        )
    return 0
