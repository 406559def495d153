#!/usr/bin/env python3
"""Compare our legal move generation with GNU Backgammon's on self-play positions.

Plays random and pubeval self-play games (alternating), and for every position met
checks that our distinct results equal gnubg-nn's, counting positions by kind.
Exits 1 on any mismatch (printing the first few, reproducible from the seed) and 2
when gnubg-nn is missing.

    python scripts/checks/check_moves_vs_gnubg.py --positions 100000 --seed 1
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

# run from a checkout without installing: make the repository root importable
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.rollout.selfplay_sample import KINDS, SELFPLAY_PLAYERS, position_kinds, sample_positions  # noqa: E402
from engine.rules.moves import MoveBuffers  # noqa: E402

SHOW_MISMATCHES = 10


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=100_000, help="positions to check (default 100000)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the self-play games (default 1)")
    parser.add_argument(
        "--players",
        nargs="+",
        choices=SELFPLAY_PLAYERS,
        default=list(SELFPLAY_PLAYERS),
        help="self-play players to alternate between (default: all)",
    )
    args = parser.parse_args(argv)
    try:
        from engine.rules.gnubg_oracle import compare_moves
    except ImportError as exc:
        print(f"check_moves_vs_gnubg: error: {exc} (pip install gnubg-nn)", file=sys.stderr)
        return 2

    start = time.perf_counter()
    buffers = MoveBuffers()
    kinds: Counter[str] = Counter()
    by_player: Counter[str] = Counter()
    results = 0
    mismatches = []
    for sample in sample_positions(args.positions, args.seed, tuple(args.players)):
        comparison = compare_moves(sample.board, *sample.dice, buffers)
        results += len(comparison.ours)
        by_player[sample.player] += 1
        kinds.update(position_kinds(sample.board, comparison.no_move))
        if not comparison.agree:
            mismatches.append(f"{sample.describe()}: {comparison.describe()}")
    seconds = time.perf_counter() - start

    total = sum(by_player.values())
    print(
        f"checked {total:,} positions (seed {args.seed}; "
        + ", ".join(f"{p} self-play {n:,}" for p, n in by_player.items())
        + f") in {seconds:.1f} s"
    )
    print(f"distinct results compared: {results:,} ({results / max(total, 1):.1f} per position)")
    print("positions by kind (a position can be of several kinds):")
    for kind in KINDS:
        print(f"  {kind:13s} {kinds[kind]:>9,}  {100 * kinds[kind] / max(total, 1):5.1f}%")
    print(f"mismatches: {len(mismatches)}")
    for line in mismatches[:SHOW_MISMATCHES]:
        print(f"  {line}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
