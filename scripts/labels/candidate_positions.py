"""The positions a 0-ply decision ranks: every result of every roll in a net's self-play.

A net chooses a move by scoring each legal result of the roll (the other side then on
roll), so a student that must choose as its teacher does should match the teacher
there, on the moves not played as much as on the played one.  This plays ``--games``
games of ``NET`` against itself at 0-ply (seeded dice, the same games for the same
seed) and keeps, for every decision in contact with more than one result, each
distinct result as the net evaluates it (flipped: the side to roll in row 0).
Positions without contact are left out: the race net and the bearoff database score
those.  The set (``boards`` and ``sources``) takes labels from
``scripts/labels/ensemble_labels.py`` (distillation) or ``scripts/labels/relabel_set.py``.

    python scripts/labels/candidate_positions.py runs/shape/s1k400 --games 3000 --seed 4242 \
        --out /tmp/cand.npz
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.eval.evaluator import Evaluator  # noqa: E402
from engine.players.registry import NetPlayer  # noqa: E402
from engine.rollout.game import game_turns  # noqa: E402
from engine.rules.dice import game_seed  # noqa: E402
from engine.rules.moves import MoveBuffers  # noqa: E402
from engine.rules.position import has_contact  # noqa: E402
from nets.player import resolve_net_path  # noqa: E402


def candidate_boards(net: str, games: int, seed: int) -> tuple[np.ndarray, int]:
    """The distinct flipped contact results of every decision (and how many decisions)."""
    player = NetPlayer(Evaluator.load(resolve_net_path(net)))
    kept: dict[bytes, np.ndarray] = {}
    decisions = 0

    def choose(board, d1, d2, candidates):
        nonlocal decisions
        if has_contact(board):
            decisions += 1
            for c in candidates:
                flipped = np.ascontiguousarray(c[::-1])
                if has_contact(flipped):
                    kept.setdefault(flipped.tobytes(), flipped)
        return player.choose(board, d1, d2, candidates)

    buffers = MoveBuffers()
    for game in range(games):
        for _ in game_turns(choose, choose, int(game_seed(seed, game)), buffers):
            pass
    return np.array(list(kept.values()), dtype=np.int8), decisions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("net", help="the net that plays")
    parser.add_argument("--games", type=int, required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    boards, decisions = candidate_boards(args.net, args.games, args.seed)
    source = (
        f"candidates: every distinct contact result of {decisions} decisions in {args.games} games of "
        f"{args.net} against itself at 0-ply, seed {args.seed} (scripts/labels/candidate_positions.py)"
    )
    tmp = args.out.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, boards=boards, sources=np.array([source]))
    tmp.replace(args.out)
    print(f"{args.out}: {len(boards):,} positions of {decisions:,} decisions in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
