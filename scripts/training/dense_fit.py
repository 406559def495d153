#!/usr/bin/env python3
"""Fit a contact net of one or more hidden layers by mini-batch AdamW (``nets.train.dense``)
on the label sets ``fibsbot train fit`` takes, with the same held-out split.

One or two hidden layers: the result is an engine net pair in ``nets/NAME.npz``
(``gnubg5`` or ``deep5``, the race net kept from ``--net``), ready for ``fibsbot
duel``.  More layers: ``nets/NAME.dense.npz`` (weights and report), for
``scripts/training/fit_or_labels.py`` to measure.  ``--convert FILE.dense.npz`` writes such a
file of one or two layers as an engine net pair under ``--name``.

    python scripts/training/dense_fit.py nets/runs/sage-labels/h21.npz:sage1+sage2 ... \\
        --name runs/shape/a400 --hidden 400 --epochs 30 --lr 1e-3 --weight-decay 1e-5
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core: the machine has other jobs

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.eval.evaluator import Evaluator  # noqa: E402
from nets.player import NETS_DIR, resolve_net_path  # noqa: E402
from nets.train.dense import DenseNet, DenseSettings, encode_all, train_dense  # noqa: E402
from nets.train.label_sets import contact_split  # noqa: E402


def split(specs: list[str], seed: int, held_out: float, limit: int):
    """The contact positions of the data: (train boards, labels, held-out boards, labels),
    the held-out ones those ``train fit`` holds out with this seed."""
    contact_boards, contact_labels, held, train, extents = contact_split(specs, seed, held_out)
    if limit:
        train = train[:limit]
    return contact_boards[train], contact_labels[train], contact_boards[held], contact_labels[held], extents


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="dense_fit", description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="*", help="label sets FILE.npz:KEY")
    parser.add_argument("--convert", type=Path, help="write this .dense.npz as an engine net pair, nothing fitted")
    parser.add_argument("--name", required=True, help="the result, under nets/")
    parser.add_argument("--hidden", type=int, nargs="+", default=[400], help="units of each hidden layer")
    parser.add_argument(
        "--encoding", default="contact2", help="the inputs; a --start net of fewer inputs grows onto them"
    )
    parser.add_argument("--net", default="runs/sage-labels/x12e", help="the race net's source (default x12e's)")
    parser.add_argument("--start", help="a one-hidden-layer net to continue from instead of random weights")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--weight-decay", type=float, default=0.0)
    parser.add_argument("--patience", type=int, default=2)
    parser.add_argument("--cuts", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1, help="the first weights and the order of the positions")
    parser.add_argument(
        "--split-seed", type=int, default=1, help="the held-out split's seed (1: the split of round 9's train fit)"
    )
    parser.add_argument("--held-out", type=float, default=0.1)
    parser.add_argument("--limit", type=int, default=0, help="train on the first N training positions (probes)")
    parser.add_argument(
        "--checkpoint", type=Path, help="the fit's state after every epoch (.npz); a rerun goes on from it"
    )
    args = parser.parse_args(argv)
    if args.convert:
        with np.load(args.convert) as data:
            card = json.loads(str(data["card"]))
        save_net(DenseNet.load(args.convert), NETS_DIR / args.name, card | {"name": args.name}, args.net)
        return 0
    if not args.data:
        parser.error("give the label sets to fit, or --convert")

    boards, labels, held_boards, held_labels, extents = split(args.data, args.split_seed, args.held_out, args.limit)
    x, x_held = encode_all(args.encoding, boards), encode_all(args.encoding, held_boards)
    print(f"{len(x):,} training and {len(x_held):,} held-out contact positions encoded", flush=True)
    if args.start:
        net = DenseNet.from_net(Evaluator.load(resolve_net_path(args.start)).contact)
        if net.encoding != args.encoding:  # grown onto the richer inputs, its function unchanged
            net = net.with_encoding(args.encoding)
    else:
        net = DenseNet.create(args.encoding, tuple(args.hidden), args.seed)
    settings = DenseSettings(
        epochs=args.epochs,
        lr=args.lr,
        batch=args.batch,
        weight_decay=args.weight_decay,
        patience=args.patience,
        cuts=args.cuts,
        seed=args.seed,
    )
    report = train_dense(
        net,
        x,
        labels,
        x_held,
        held_labels,
        settings,
        progress=lambda e, tr, te, lr: print(f"epoch {e}: train {tr:.5f} held-out {te:.5f} lr {lr:.2e}", flush=True),
        checkpoint=args.checkpoint,
    )
    card = {
        "name": args.name,
        "training": {
            "method": "mini-batch AdamW on the labels of the data (scripts/training/dense_fit.py, nets/train/dense.py)",
            "command": "python scripts/training/dense_fit.py " + " ".join(sys.argv[1:] if argv is None else argv),
            "data": extents,
            "hidden": list(net.hidden),
            "encoding": args.encoding,
            "start": args.start or "random weights",
            **settings.as_dict(),
            "split_seed": args.split_seed,
            "fit": {"contact": report.as_dict()},
        },
    }
    save_net(net, NETS_DIR / args.name, card, args.net)
    print(f"best held-out {min(report.held_out_loss):.5f} at epoch {report.best_epoch}")
    return 0


def save_net(net: DenseNet, target: Path, card: dict, race_from: str) -> None:
    """An engine net pair (``target.npz``, the race net of ``race_from``) where the
    engine evaluates the net's depth, else ``target.dense.npz``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if len(net.hidden) > 2:
        net.save(f"{target}.dense.npz", card)
        print(f"wrote {target}.dense.npz")
        return
    net.as_net().save(target.with_suffix(".npz"), role="contact", **card)
    race = Evaluator.load(resolve_net_path(race_from)).race
    if race is not None:
        race.save(Path(f"{target}.race.npz"), role="race", name=card["name"], kept_from=race_from)
    print(f"wrote {target}.npz")


if __name__ == "__main__":
    sys.exit(main())
