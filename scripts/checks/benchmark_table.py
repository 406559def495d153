#!/usr/bin/env python3
"""The results table of a benchmark set: each player's move error x1000 per class and
overall, with standard errors, and its cube error, as one Markdown table (the one in
``bench/README.md``), with each player's time.

    python scripts/checks/benchmark_table.py                  # the shipped set, the usual players
    python scripts/checks/benchmark_table.py --players net:default@0 net:candidate@0 --workers 2

Each player is scored as ``fibsbot benchmark PLAYER --set SET`` scores it; rerun this
after the default net changes to refresh the table.  ``--json FILE`` keeps every
result in full.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from nets.train.benchmark.players import score_spec  # noqa: E402
from nets.train.benchmark.scoring import CLASSES, SHIPPED_SET, BenchmarkError, read_benchmark  # noqa: E402

PLAYERS = ("net:default@0", "net:default@2", "gnubg0", "pubeval", "bgsage@1")


def cell(row: dict | None) -> str:
    if not row or row.get("error") is None:
        return "-"
    return f"{row['error']:.2f} +/- {row['stderr']:.2f}"


def table_row(result: dict, seconds: float) -> str:
    moves = result["moves"]
    cells = [cell(moves[c]) for c in CLASSES] + [f"**{cell(moves['overall'])}**", cell(result["cube"])]
    return f"| `{result['player']}` | " + " | ".join(cells) + f" | {seconds:.0f} s |"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default=str(SHIPPED_SET), help="benchmark file (default: the shipped set)")
    parser.add_argument("--players", nargs="+", default=list(PLAYERS), help=f"player specs (default {PLAYERS})")
    parser.add_argument("--workers", type=int, default=1, help="processes per player (default 1)")
    parser.add_argument("--json", dest="json_out", help="also write every result to this JSON file")
    args = parser.parse_args(argv)
    benchmark = read_benchmark(args.set)
    counts = {c: sum(1 for r in benchmark.moves if r.cls == c) for c in CLASSES}
    print(
        f"set {args.set}: labels {benchmark.meta.get('labeller', 'unknown')}, "
        f"{', '.join(f'{n} {c}' for c, n in counts.items())}, {len(benchmark.cubes)} cube records\n"
    )
    print("| player | contact | crashed | race | overall | cube | time |")
    print("|---|---|---|---|---|---|---|")
    results = []
    for spec in args.players:
        started = time.monotonic()
        try:
            result = score_spec(spec, benchmark, args.workers)
        except BenchmarkError as exc:
            print(f"| `{spec}` | {exc} |", flush=True)
            continue
        print(table_row(result, time.monotonic() - started), flush=True)
        results.append(result)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
