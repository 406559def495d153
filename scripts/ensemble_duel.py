"""Duel the mean of several nets' 0-ply against a player spec (issue 41's ensemble).

The ensemble plays each roll's move with the highest mean equity of its nets (each
net with its race net, no bearoff database, no root net: every move scored); with
``--plain`` each net also plays alone in the same way on the same dice, so the
ensemble's gain over its members is paired.  What a distilled net (one net fitted to
the ensemble's outputs, ``scripts/ensemble_labels.py``) could keep at most.

    python scripts/ensemble_duel.py runs/shape/d400x128 runs/shape/d400x128s2 \
        --against gnubg0 --games 20000 --seed 500 --plain
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from engine.eval.evaluator import Evaluator, best_candidate, candidate_equities
from engine.rollout.duel import run_duel_players
from engine.rules.moves import MAX_RESULTS
from nets.player import resolve_net_path


class EnsemblePlayer:
    """Chooses the move with the highest mean 0-ply equity of its nets."""

    kernel = None

    def __init__(self, evaluators: list[Evaluator], name: str) -> None:
        self.name = name
        self.params = [e.kernel_params() for e in evaluators]
        self.equities = np.zeros(MAX_RESULTS, np.float64)
        self.total = np.zeros(MAX_RESULTS, np.float64)
        self.probs = np.zeros((MAX_RESULTS, 5), np.float32)

    def choose(self, board, d1, d2, candidates) -> int:
        n = len(candidates)
        self.total[:n] = 0.0
        for params in self.params:
            candidate_equities(params, candidates, n, self.equities, self.probs)
            self.total[:n] += self.equities[:n]
        return int(best_candidate(candidates, n, self.total[:n] / len(self.params)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("nets", nargs="+", help="the nets whose mean plays")
    parser.add_argument("--against", default="gnubg0")
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--plain", action="store_true", help="each net alone too, on the same dice")
    args = parser.parse_args(argv)
    evaluators = [Evaluator.load(resolve_net_path(n)) for n in args.nets]
    players = [EnsemblePlayer(evaluators, "mean:" + "+".join(args.nets))]
    if args.plain:
        players += [EnsemblePlayer([e], "plain:" + n) for e, n in zip(evaluators, args.nets)]
    for player in players:
        result = run_duel_players(player, args.against, args.games, args.seed)
        print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
