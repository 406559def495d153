"""Distil a root net (``Evaluator.root``: the one-layer net that picks the few moves a
net of two hidden layers scores at a 0-ply root) from a net, on committed label sets'
positions, and measure how often its favourites hold the full net's choice.

    python scripts/training/train_root_net.py --net runs/shape/d400x128 \
        --sets nets/runs/sage-labels/h31-h32.npz --positions 500000 --hidden 128

writes ``NET.root.npz`` beside the net with its model card.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.eval.eval_sets import static_set  # noqa: E402
from engine.eval.evaluator import Evaluator  # noqa: E402
from engine.eval.forward import cubeless_equities  # noqa: E402
from engine.players.agent import Agent  # noqa: E402
from engine.rules.moves import MAX_RESULTS, MoveBuffers, generate_moves  # noqa: E402
from engine.search.context import make_context  # noqa: E402
from fibsbot.bench.search import decision_positions  # noqa: E402
from nets.player import resolve_net_path  # noqa: E402
from nets.train.pruning import ROOT_ENCODING, train_root_net  # noqa: E402


def hit_rates(full: Evaluator, root: Evaluator, decisions: int = 4000, keeps=(1, 2, 3, 4, 5, 6)) -> dict:
    """How often the full net's 0-ply choice is among the root net's ``keep`` favourites,
    over the benchmark's 0-ply decisions (``fibsbot bench --only ply0``'s positions)."""
    positions, dice = decision_positions(decisions)
    full_ctx, root_ctx = make_context(full, root_keep=0), make_context(root, root_keep=0)
    buffers = MoveBuffers()
    full_probs = np.zeros((MAX_RESULTS, 5), np.float32)
    root_probs = np.zeros((MAX_RESULTS, 5), np.float32)
    hits = dict.fromkeys(keeps, 0)
    for board, (d1, d2) in zip(positions, dice):
        n = generate_moves(board, int(d1), int(d2), *buffers.args())
        static_set(full_ctx, buffers.boards, n, full_probs)
        static_set(root_ctx, buffers.boards, n, root_probs)
        best = int(np.argmax(cubeless_equities(full_probs[:n])))
        order = np.argsort(-cubeless_equities(root_probs[:n]))
        for keep in keeps:
            hits[keep] += best in order[:keep]
    return {"decisions": len(positions), **{str(k): v / len(positions) for k, v in hits.items()}}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--net", required=True)
    p.add_argument("--sets", nargs="+", required=True, help="label sets whose boards to learn from")
    p.add_argument("--positions", type=int, default=500000)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--encoding", default=ROOT_ENCODING, help=f"the root net's inputs (default {ROOT_ENCODING})")
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--lr", type=float, default=0.3)
    p.add_argument("--lr-decay", type=float, default=0.85)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", help="write OUT.root.npz (default: beside the net, NET.root.npz)")
    args = p.parse_args(argv)
    full = Evaluator.load(resolve_net_path(args.net))
    boards = np.concatenate([np.load(path)["boards"] for path in args.sets])
    rng = np.random.default_rng(args.seed)
    boards = boards[np.sort(rng.choice(len(boards), min(args.positions, len(boards)), replace=False))]
    net, report = train_root_net(
        Agent(full, ply=0),
        boards,
        hidden=args.hidden,
        encoding=args.encoding,
        epochs=args.epochs,
        seed=args.seed,
        lr=args.lr,
        lr_decay=args.lr_decay,
        progress=lambda e, tr, te: print(f"epoch {e}: train {tr:.5f} held-out {te:.5f}", flush=True),
    )
    rates = hit_rates(full, Evaluator(net, full.race, "root", full.prune))
    out = Path(args.out) if args.out else resolve_net_path(args.net).with_suffix("")
    command = "python scripts/training/train_root_net.py " + " ".join(argv if argv is not None else sys.argv[1:])
    net.save(
        out.with_name(out.name + ".root.npz"),
        role="root",
        distilled_from=args.net,
        labels=f"{args.net}'s own 0-ply probabilities (no other engine)",
        training={"command": command, "method": "per-position SGD from random weights", **report.as_dict()},
        accuracy={"note": "0-ply decisions whose full-net choice is among the root net's K favourites", **rates},
    )
    print(json.dumps(rates))
    return 0


if __name__ == "__main__":
    sys.exit(main())
