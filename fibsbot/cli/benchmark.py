"""`fibsbot benchmark` and `fibsbot benchmark-build`: move and cube error rates of a
player on a labelled set of decisions (``nets.train.benchmark.scoring``), and building that set."""

from __future__ import annotations

import argparse
import json

from fibsbot.cli.registry import UserError, command


def _setup(p: argparse.ArgumentParser) -> None:
    from nets.train.benchmark.scoring import SHIPPED_SET

    p.add_argument(
        "player",
        metavar="PLAYER",
        help="net:NAME[@PLY] (e.g. net:default@0), pubeval, gnubg0 or bgsage@PLY (Open Sage, offline only)",
    )
    p.add_argument("--set", default=str(SHIPPED_SET), help=f"benchmark file (default: the shipped {SHIPPED_SET.name})")
    p.add_argument("--limit", type=int, default=None, help="score only the first N checker and N cube records")
    p.add_argument("--workers", type=int, default=1, help="processes to share the decisions (default 1)")
    p.add_argument(
        "--versus",
        metavar="OTHER",
        help="score a second player on the same decisions and give PLAYER's error minus OTHER's, paired",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")


@command("benchmark", "move and cube error rates (x1000) of a player on a labelled benchmark set")(_setup)
def _benchmark(args: argparse.Namespace) -> int:
    from nets.train.benchmark.players import compare_specs, score_spec
    from nets.train.benchmark.scoring import BenchmarkError, read_benchmark

    if args.workers < 1 or (args.limit is not None and args.limit < 1):
        raise UserError("--workers and --limit must be at least 1")
    try:
        benchmark = read_benchmark(args.set).limited(args.limit)
        if args.versus:
            result = compare_specs(args.player, args.versus, benchmark, args.workers)
        else:
            result = score_spec(args.player, benchmark, args.workers)
    except BenchmarkError as exc:
        raise UserError(str(exc)) from exc
    result["set"] = args.set
    if args.json:
        print(json.dumps(result))
    elif args.versus:
        versus = result.pop("versus") | {"set": args.set}
        print("\n\n".join([format_result(result), format_result(versus), format_difference(result, versus)]))
    else:
        print(format_result(result))
    return 0


def format_difference(result: dict, versus: dict) -> str:
    lines = [
        f"{result['player']} minus {versus['player']}, the same decisions (paired):",
        "class      decisions   differ   difference x1000   stderr",
    ]
    for name, row in result["difference"].items():
        if row["n"]:
            lines.append(f"{name:10s} {row['n']:9d} {row['differ']:8d} {row['difference']:+18.2f} {row['stderr']:8.2f}")
    return "\n".join(lines)


def format_result(result: dict) -> str:
    lines = [
        f"player {result['player']} on {result['set']} (labels: {result['labels']})",
        "class      decisions   error x1000   stderr   wrong  shallow",
    ]
    for name, row in result["moves"].items():
        if row["n"]:
            lines.append(
                f"{name:10s} {row['n']:9d} {row['error']:13.2f} {row['stderr']:8.2f} {row['wrong']:7.1%} "
                f"{row.get('shallow') or 0:8.1%}"
            )
        else:
            lines.append(f"{name:10s} {0:9d}             -        -       -        -")
    cube = result["cube"]
    if cube is None:
        lines.append("cube: not scored (the player makes no cube decisions, or the set has none)")
    else:
        lines.append(
            f"cube: {cube['positions']} positions, {cube['decisions']} decisions over {cube['states']} scores: "
            f"error x1000 {cube['error']:.2f} +/- {cube['stderr']:.2f} (double {cube['double_error']:.2f}, "
            f"take {cube['take_error']:.2f}; wrong doubles {cube['wrong_doubles']:.1%}, "
            f"wrong takes {cube['wrong_takes']:.1%})"
        )
    return "\n".join(lines)


def _setup_build(p: argparse.ArgumentParser) -> None:
    from nets.train.benchmark.build import ARENA_LOGS, DEFAULT_LABELLER, SOURCES
    from nets.train.benchmark.labelling import DEFAULT_SEARCH

    p.add_argument("--out", required=True, help="file to write (.jsonl.gz)")
    p.add_argument("--moves", type=int, default=6000, help="checker decisions (default 6000)")
    p.add_argument("--cube", type=int, default=400, help="cube positions, each at several scores (default 400)")
    p.add_argument("--seed", type=int, default=1, help="self-play and sampling seed (default 1)")
    p.add_argument("--workers", type=int, default=1, help="labelling processes (default 1)")
    p.add_argument(
        "--labeller",
        "--net",
        dest="labeller",
        default=DEFAULT_LABELLER,
        help=f"who labels: bgsage@PLY, net:NAME@PLY or rollout:GAMES[:NAME] (default {DEFAULT_LABELLER})",
    )
    p.add_argument(
        "--search",
        default=DEFAULT_SEARCH,
        help=f"our search whose best moves are re-scored; its net plays the self-play (default {DEFAULT_SEARCH})",
    )
    p.add_argument(
        "--no-resume",
        action="store_true",
        help="ignore and do not keep the labels journal beside --out (kept by default, so a rerun resumes)",
    )
    p.add_argument("--sources", nargs="+", default=list(SOURCES), choices=SOURCES, help="where positions come from")
    p.add_argument("--arena-logs", default=ARENA_LOGS, help=f"arena log files (glob, default {ARENA_LOGS})")


@command("benchmark-build", "build a benchmark set: self-play and arena positions judged by a labeller")(_setup_build)
def _benchmark_build(args: argparse.Namespace) -> int:
    from nets.train.benchmark.build import main_build
    from nets.train.benchmark.scoring import BenchmarkError

    if args.moves < 0 or args.cube < 0 or args.workers < 1 or args.moves + args.cube == 0:
        raise UserError("--moves and --cube must be at least 0 (not both 0) and --workers at least 1")
    if not args.search.startswith("net:"):
        raise UserError(f"--search must be net:NAME@PLY, got {args.search!r}")
    try:
        benchmark = main_build(
            args.out,
            resume=not args.no_resume,
            labeller=args.labeller,
            n_moves=args.moves,
            n_cube=args.cube,
            seed=args.seed,
            sources=args.sources,
            workers=args.workers,
            arena_logs=args.arena_logs,
            search=args.search,
        )
    except BenchmarkError as exc:
        raise UserError(str(exc)) from exc
    print(
        f"wrote {args.out}: {len(benchmark.moves)} checker decisions, "
        f"{benchmark.meta['cube_positions']} cube positions ({len(benchmark.cubes)} records)"
    )
    return 0
