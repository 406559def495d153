"""Harvest training positions from a net's games against another player.

Self-play harvests show the net only the positions a strong player reaches.  A bot
online meets weaker play too (blots left, odd points made, loose blitzes), and the
positions of those games are the ones it must rank there.  This plays the net's
0-ply against an opponent on duplicate dice and keeps, at each of the net's
decisions, the candidates its move filter would pass on to a search (the best
``--keep`` within ``--window`` of the best 0-ply equity), as the opponent sees
them (side on roll in row 0).  Positions are deduplicated; the output is a label
set without labels: ``scripts/labels/relabel_set.py`` adds them.

    python scripts/labels/harvest_vs_opponent.py --net default --opponent pubeval \
        --games 4000 --seed 7101 --out nets/runs/sage-labels/vp.npz
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.players.registry import make_player  # noqa: E402
from engine.rollout.game import play_game  # noqa: E402
from engine.rules.dice import game_seed  # noqa: E402
from engine.rules.moves import MoveBuffers  # noqa: E402
from nets.player import load_agent  # noqa: E402
from nets.train.candidates import FILTER_KEEP, FILTER_WINDOW, filter_candidates  # noqa: E402


class RecordingNet:
    """The net's 0-ply choice, recording the candidates within the move filter."""

    kernel = None

    def __init__(self, spec: str, keep: int, window: float) -> None:
        self.evaluator = load_agent(spec, ply=0).evaluator
        self.name = spec
        self.keep, self.window = keep, window
        self.positions: list[np.ndarray] = []

    def choose(self, board, d1, d2, candidates) -> int:
        best, kept = filter_candidates(self.evaluator, candidates, self.keep, self.window)
        self.positions.extend(kept)
        return best


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--net", default="default")
    p.add_argument("--opponent", default="pubeval", help="player spec (default pubeval)")
    p.add_argument("--games", type=int, default=4000, help="games, in duplicate pairs")
    p.add_argument("--seed", type=int, required=True, help="dice seed; keep it apart from evaluation seeds")
    p.add_argument("--keep", type=int, default=FILTER_KEEP, help=f"candidates kept a decision (default {FILTER_KEEP})")
    p.add_argument(
        "--window", type=float, default=FILTER_WINDOW, help=f"equity window below the best (default {FILTER_WINDOW})"
    )
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    net = RecordingNet(args.net, args.keep, args.window)
    opponent = make_player(args.opponent)
    buffers = MoveBuffers()
    start = time.perf_counter()
    for pair in range(args.games // 2):
        s = game_seed(args.seed, pair)
        play_game(net, opponent, s, buffers)
        play_game(opponent, net, s, buffers)
    boards = np.stack(net.positions).astype(np.int8)
    unique = np.unique(boards.reshape(len(boards), -1), axis=0).reshape(-1, 2, 25)
    source = (
        f"candidates within {args.window} (at most {args.keep}) of net:{args.net}@0's decisions in "
        f"{args.games} games against {args.opponent}, seed {args.seed}: python "
        f"scripts/labels/harvest_vs_opponent.py --net {args.net} --opponent {args.opponent} --games {args.games} "
        f"--seed {args.seed} --keep {args.keep} --window {args.window} --out {args.out}"
    )
    np.savez_compressed(args.out, boards=unique, sources=np.array([source]))
    print(
        f"{len(unique)} distinct positions ({len(boards)} recorded) from {args.games} games against "
        f"{args.opponent} in {time.perf_counter() - start:.0f} s: {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
