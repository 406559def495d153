"""Where a net's play loses to GNU Backgammon's 0-ply, by class of position.

A hybrid player lets gnubg's 0-ply (gnubg-nn) choose the moves of one class of
positions (contact, crashed, or race and bear-off, classified before the move)
and our net the rest; it duels pubeval on duplicate dice.  The rise over the net
alone shows how much of the gap to gnubg that class holds.

    python scripts/diagnosis/gap_by_class.py --net default --games 10000 --seed 2026 --workers 2
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import nets.player  # noqa: E402,F401  registers net:NAME with the engine's players
from engine.players.registry import make_player  # noqa: E402
from engine.rollout.duel import play_player_pairs  # noqa: E402
from engine.rollout.parallel import split_range  # noqa: E402
from engine.rules.position import Phase, classify  # noqa: E402

CLASSES = {"contact": {Phase.CONTACT}, "crashed": {Phase.CRASHED}, "race": {Phase.RACE, Phase.BEAROFF}}


class Hybrid:
    name = "hybrid"
    kernel = None

    def __init__(self, net: str, phases: set) -> None:
        self.net, self.gnubg, self.phases = make_player(f"net:{net}"), make_player("gnubg0"), phases

    def choose(self, board, d1, d2, candidates) -> int:
        player = self.gnubg if classify(board) in self.phases else self.net
        return player.choose(board, d1, d2, candidates)


def _pairs(net: str, cls: str, seed: int, first: int, count: int) -> np.ndarray:
    return play_player_pairs(Hybrid(net, CLASSES[cls]), make_player("pubeval"), seed, first, count)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--net", default="default")
    parser.add_argument("--games", type=int, default=10000, help="games per class, in duplicate pairs")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    ranges = split_range(args.games // 2, args.workers)
    for cls in CLASSES:
        tasks = [(args.net, cls, args.seed, first, count) for first, count in ranges]
        if args.workers > 1:
            with ProcessPoolExecutor(args.workers) as pool:
                parts = list(pool.map(_pairs, *zip(*tasks)))
        else:
            parts = [_pairs(*task) for task in tasks]
        per_pair = np.concatenate(parts).astype(float).mean(axis=1)
        stderr = per_pair.std(ddof=1) / np.sqrt(len(per_pair))
        print(
            f"gnubg plays {cls:8s} net:{args.net} the rest: {per_pair.mean():+.4f} +/- {stderr:.4f} ppg "
            f"vs pubeval ({2 * len(per_pair)} games)",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
