"""How far a net's 0-ply outputs, and the 2-ply labels of a harvest, sit from rollouts.

Samples contact positions of a harvest directory (``fibsbot train harvest``), rolls
each out (cubeless, truncated at the bearoff database, the net playing both sides,
every position on the same dice) and prints the mean difference of each of the five
outputs from the rollouts' means, with its standard error over positions.

    python scripts/diagnosis/rollout_bias.py runs/harvest5 --net nets/runs/harvest-rounds/x5b \
        --positions 500 --games 144 --seed 2 --workers 2
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.eval.evaluator import Evaluator  # noqa: E402
from engine.rollout.parallel import map_chunks, split_range  # noqa: E402
from nets.player import resolve_net_path  # noqa: E402
from nets.train.harvest import load_harvest  # noqa: E402
from nets.train.labellers import rollout_labels  # noqa: E402
from nets.train.labels import _agent  # noqa: E402
from nets.train.supervised import split_by_net  # noqa: E402

OUTPUTS = ("win", "win gammon", "win backgammon", "lose gammon", "lose backgammon")


def _rollouts(spec: str, boards: np.ndarray, games: int, seed: int) -> np.ndarray:
    return rollout_labels(_agent(spec), boards, games, seed)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("harvest", help="a harvest directory")
    parser.add_argument("--net", default="default")
    parser.add_argument("--positions", type=int, default=500)
    parser.add_argument("--games", type=int, default=144, help="rollout games a position")
    parser.add_argument("--seed", type=int, default=2, help="picks the positions and the dice")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    boards, labels = split_by_net(*load_harvest(args.harvest))["contact"]
    pick = np.random.default_rng(args.seed).choice(len(boards), args.positions, replace=False)
    boards, labels = boards[pick], labels[pick]
    net = Evaluator.load(resolve_net_path(args.net)).probabilities(boards)
    spec = f"net:{args.net}"
    parts = map_chunks(
        _rollouts,
        [
            (spec, boards[first : first + count], args.games, args.seed)
            for first, count in split_range(len(boards), args.workers)
        ],
        workers=args.workers,
    )
    rolled = np.concatenate(parts)
    print(f"{args.positions} contact positions of {args.harvest}, {args.games} rollout games each")
    for what, estimate in ((f"net:{args.net}@0", net), ("harvest labels", labels)):
        diff = estimate - rolled
        cells = [
            f"{name} {diff[:, k].mean():+.4f} +/- {diff[:, k].std(ddof=1) / np.sqrt(len(diff)):.4f}"
            for k, name in enumerate(OUTPUTS)
        ]
        print(f"{what} minus rollouts: " + ", ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
