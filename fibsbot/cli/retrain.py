"""`fibsbot retrain`: label the queue and logged play, train a candidate, promote it if it is better."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from fibsbot.cli.registry import UserError, command


def _setup(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--data-dir",
        help="the bot's data directory (queue.sqlite, log/, training/, nets/); default: the user's data directory",
    )
    p.add_argument("--net", default="default", help="incumbent: the promoted net of the data dir, else this net")
    p.add_argument("--label-ply", type=int, default=2, choices=[1, 2], help="search depth of the labels (default 2)")
    p.add_argument(
        "--labeller",
        help="label with this labeller instead of the incumbent's search: "
        "net:NAME@PLY, rollout:GAMES[:NAME] or bgsage@PLY (see train relabel)",
    )
    p.add_argument("--selfplay-games", type=int, default=200, help="fresh self-play games to label too (default 200)")
    p.add_argument("--epochs", type=int, default=12)
    p.add_argument("--lr", type=float, default=0.005)
    p.add_argument(
        "--gate-games",
        type=int,
        default=10000,
        help="duplicate games against pubeval for each of incumbent and candidate (default 10000)",
    )
    p.add_argument("--benchmark", default=None, help="benchmark set for the gate (default: the shipped set)")
    p.add_argument("--no-promote", action="store_true", help="measure the candidate but keep the incumbent")
    p.add_argument("--workers", type=int, default=1, help="processes for labelling")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true")


@command("retrain", "retrain the net on the queue and logged matches; promote the candidate if it is better")(_setup)
def _retrain(args: argparse.Namespace) -> int:
    from dataclasses import asdict
    from functools import partial

    from fibsbot.config import default_data_dir
    from fibsbot.records.queue import TrainingQueue
    from nets.train.labellers import LabellerError, parse_labeller
    from nets.train.retrain import RetrainConfig, retrain

    benchmark = args.benchmark
    if benchmark is None:
        from nets.train.benchmark.scoring import SHIPPED_SET

        benchmark = str(SHIPPED_SET) if SHIPPED_SET.exists() else None
    config = RetrainConfig(
        Path(args.data_dir) if args.data_dir else default_data_dir(),
        net=args.net,
        label_ply=args.label_ply,
        labeller=args.labeller,
        selfplay_games=args.selfplay_games,
        epochs=args.epochs,
        lr=args.lr,
        gate_games=args.gate_games,
        seed=args.seed,
        workers=args.workers,
        benchmark_set=benchmark,
        promote=not args.no_promote,
    )
    if args.labeller is not None:
        try:
            parse_labeller(args.labeller).require()
        except LabellerError as exc:
            raise UserError(str(exc)) from exc
    if not config.data_dir.exists():
        raise UserError(f"no data directory {config.data_dir}: play some matches first (fibsbot arena)")
    queue_path = config.data_dir / "queue.sqlite"
    open_queue = partial(TrainingQueue, queue_path) if queue_path.exists() else None
    report = retrain(config, progress=(lambda text: None) if args.json else print, open_queue=open_queue)
    from fibsbot.owner.live import record_retrain

    record_retrain(config.data_dir, asdict(report))  # the history `fibsbot report` plots
    if args.json:
        print(json.dumps(asdict(report), default=str))
    else:
        print(
            f"{report.queue_rows} queued decisions, {report.new_positions} new positions labelled, "
            f"{report.training_positions} in the training set"
        )
        print(report.reason)
        print(f"promoted as version {report.version}" if report.promoted else "kept the incumbent")
    return 0
