"""`fibsbot bench`: the engine's speed on one core (``fibsbot.bench``)."""

from __future__ import annotations

import argparse
import json

from fibsbot.cli.registry import UserError, command, net_path

# written out rather than read from fibsbot.bench, whose import loads numba for every
# command; a test holds this list to the benchmarks registered there
BENCHMARK_NAMES = (
    "movegen",
    "pubeval",
    "eval",
    "td",
    "ply0",
    "ply2",
    "table",
    "rollout",
    "cubeful_rollout",
    "first_move",
    "labels",
)


def _add_bench_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--only",
        nargs="*",
        metavar="NAME",
        help=f"run only these benchmarks: {', '.join(BENCHMARK_NAMES)} (default: all)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--net", default="default", help="the net the search benchmarks time (default: default)")
    p.add_argument(
        "--versus",
        metavar="NET",
        help="a second net that ply0 and ply2 time in turn with --net on the same decisions, "
        "each repeat's time ratio reported (e.g. --versus e400w)",
    )


@command("bench", "measure the engine's speed on one core (move generation, self-play, ...)")(_add_bench_args)
def _bench(args: argparse.Namespace) -> int:
    import fibsbot.bench.cubeful_rollout  # noqa: F401  registers the cubeful rollout benchmark
    import fibsbot.bench.labels  # noqa: F401  registers the labellers' benchmark
    import fibsbot.bench.rollout  # noqa: F401  registers the rollout benchmark
    import fibsbot.bench.search  # noqa: F401  registers the search benchmarks
    import fibsbot.bench.speed as speed
    import fibsbot.bench.start  # noqa: F401  registers the first-start benchmark
    import fibsbot.bench.table  # noqa: F401  registers the table level's benchmark
    from fibsbot.bench.speed import BENCHMARKS, run_benchmarks

    unknown = sorted(set(args.only or ()) - set(BENCHMARKS))
    if unknown:
        raise UserError(f"unknown benchmark {', '.join(unknown)}; known: {', '.join(sorted(BENCHMARKS))}")
    # before any timing: a misspelt net is an error, never a figure for another net (only a
    # checkout without the shipped default times an untrained net of its size instead)
    if args.net != "default":
        net_path(args.net)
    if args.versus is not None:
        net_path(args.versus)
    speed.BENCH_NET = args.net
    speed.VERSUS_NET = args.versus
    results = run_benchmarks(args.only)
    if args.json:
        print(json.dumps(results))
        return 0
    for key, value in results.items():
        if isinstance(value, float):
            print(f"{key:32s} {value:>14,.1f}" if value >= 100 else f"{key:32s} {value:>14.4g}")
        elif isinstance(value, dict):
            details = ", ".join(
                (f"{k}={v:,.0f}" if abs(v) >= 100 else f"{k}={v:.4g}") if isinstance(v, float) else f"{k}={v}"
                for k, v in value.items()
            )
            print(f"  {key}: {details}")
    return 0
