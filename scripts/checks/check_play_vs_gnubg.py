"""How often our checker play agrees with GNU Backgammon's 2-ply choice.

GNU Backgammon's own 0-ply (through gnubg-nn) is measured on the same positions in
the same run, so our 0-ply has a reference of its depth.

Positions are turns with a real choice from pubeval self-play games (seeded).  gnubg
answers through its ``external`` move server; its move is applied to the board and
compared by resulting position with ours, so different spellings of one move agree.

    python scripts/checks/check_play_vs_gnubg.py --positions 1000 --seed 1 [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.players.registry import GnubgPlayer  # noqa: E402
from engine.rollout.selfplay_sample import sample_positions  # noqa: E402
from engine.rules.moves import MoveBuffers, apply_steps, generate_moves  # noqa: E402
from engine.rules.notation import parse_gnubg  # noqa: E402
from engine.rules.position import classify  # noqa: E402
from fibsbot.bench.search import GNUBG, board_line, gnubg_move_server  # noqa: E402
from nets.player import load_agent  # noqa: E402


def positions(count: int, seed: int) -> list[tuple[np.ndarray, tuple[int, int]]]:
    buffers = MoveBuffers()
    chosen = []
    for sample in sample_positions(count * 4, seed, players=("pubeval",)):
        if generate_moves(sample.board, *sample.dice, *buffers.args()) > 1:
            chosen.append((sample.board.copy(), tuple(int(d) for d in sample.dice)))
            if len(chosen) == count:
                break
    return chosen


def gnubg_choices(cases, plies: int) -> list[np.ndarray]:
    with gnubg_move_server(plies) as ask:
        if ask is None:
            raise SystemExit("gnubg did not open its move server")
        return [apply_steps(board, parse_gnubg(ask(board_line(board, *dice)), board, dice)) for board, dice in cases]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--net", default="default")
    parser.add_argument("--gnubg-plies", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not (GNUBG.is_file() and os.access(GNUBG, os.X_OK)):
        raise SystemExit("GNU Backgammon is not installed (apt-get install gnubg)")
    cases = positions(args.positions, args.seed)
    start = time.perf_counter()
    reference = gnubg_choices(cases, args.gnubg_plies)
    gnubg_s = time.perf_counter() - start
    agents = {ply: load_agent(f"net:{args.net}@{ply}") for ply in (0, 2)}
    agree = {0: 0, 2: 0}
    correct: dict[int, list[bool]] = {0: [], 2: []}
    by_class: dict[str, list[int]] = {}
    timings = {}
    for ply, agent in agents.items():
        start = time.perf_counter()
        for (board, dice), ref in zip(cases, reference):
            ok = np.array_equal(agent.choose_move(board, *dice).board, ref)
            agree[ply] += ok
            correct[ply].append(bool(ok))
            if ply == 2:
                by_class.setdefault(classify(board).name.lower(), [0, 0])
                by_class[classify(board).name.lower()][0] += ok
                by_class[classify(board).name.lower()][1] += 1
        timings[ply] = time.perf_counter() - start
    gnubg0 = GnubgPlayer()
    buffers = MoveBuffers()
    agree_gnubg0 = 0
    for (board, dice), ref in zip(cases, reference):
        n_moves = generate_moves(board, *dice, *buffers.args())
        agree_gnubg0 += np.array_equal(buffers.boards[gnubg0.choose(board, *dice, buffers.boards[:n_moves])], ref)
    n = len(cases)
    # paired: positions only one of the two plies got right (McNemar's test)
    only2 = sum(b and not a for a, b in zip(correct[0], correct[2]))
    only0 = sum(a and not b for a, b in zip(correct[0], correct[2]))
    z = (only2 - only0) / math.sqrt(only2 + only0) if only2 + only0 else 0.0
    result = {
        "positions": n,
        "seed": args.seed,
        "reference": f"gnubg {args.gnubg_plies}-ply",
        "agree_ply0": agree[0] / n,
        "agree_ply2": agree[2] / n,
        "agree_gnubg_ply0": agree_gnubg0 / n,
        "stderr": math.sqrt(0.25 / n),
        "only_ply2_right": only2,
        "only_ply0_right": only0,
        "mcnemar_z": round(z, 2),
        "ply2_by_class": {k: f"{a}/{t}" for k, (a, t) in by_class.items()},
        "seconds": {"gnubg": round(gnubg_s, 1), "ply0": round(timings[0], 1), "ply2": round(timings[2], 1)},
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{n} positions (pubeval self-play, seed {args.seed}) vs {result['reference']}:")
        print(
            f"  our 0-ply agrees {agree[0]} ({result['agree_ply0']:.1%}), our 2-ply agrees {agree[2]} "
            f"({result['agree_ply2']:.1%}); gnubg's own 0-ply agrees {agree_gnubg0} "
            f"({result['agree_gnubg_ply0']:.1%}); our 2-ply by class {result['ply2_by_class']}"
        )
        print(f"  only 2-ply right {only2}, only 0-ply right {only0}: McNemar z = {z:.2f}")
        print(f"  time: {result['seconds']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
