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

from engine.eval.evaluator import Evaluator  # noqa: E402
from engine.eval.net import Net  # noqa: E402
from engine.players.agent import Agent  # noqa: E402
from fibsbot.bench.search import decision_positions  # noqa: E402
from nets.player import resolve_net_path  # noqa: E402
from nets.train.companions import Decisions, recall  # noqa: E402
from nets.train.pruning import ROOT_ENCODING, train_root_net  # noqa: E402


def hit_rates(full: Evaluator, root: Net, decisions: int = 4000) -> dict:
    """How often the full net's 0-ply choice is among the root net's K favourites, over the
    benchmark's 0-ply decisions (``fibsbot bench --only ply0``'s positions); the measure a
    retrain keeps or rebuilds a root net by (``nets.train.companions``)."""
    sample = Decisions(*decision_positions(decisions))
    return {"decisions": len(sample.boards), **recall(full, root, sample)}


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
    rates = hit_rates(full, net)
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
