"""`fibsbot retrain`: label the queue and logged play, train a candidate, promote it if it is better."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from fibsbot.cli.registry import UserError, command, net_path
from nets.train.choices import CHOICE_GAMES
from nets.train.labellers import DEFAULT_ROLLOUT
from nets.train.mix import DEFAULT_RATIO
from nets.train.real_life import REAL_LIFE_LABELLER


def _setup(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--data-dir",
        help="the bot's data directory (queue.sqlite, log/, training/, nets/); default: the user's data directory",
    )
    p.add_argument("--net", default="default", help="incumbent: the promoted net of the data dir, else this net")
    p.add_argument(
        "--labeller",
        help="who labels the new positions: net:NAME@PLY, rollout:GAMES[:NAME][+vr][+prune], bgsage@PLY, or "
        "'incumbent' (its own search at --label-ply); default: the strongest installed, bgsage@3, else "
        f"{DEFAULT_ROLLOUT}",
    )
    p.add_argument(
        "--label-ply", type=int, default=2, choices=[1, 2], help="with --labeller incumbent: its search depth"
    )
    p.add_argument("--ray", metavar="ADDRESS", help="label on this Ray cluster ('auto', 'local' or host:port)")
    p.add_argument(
        "--mix",
        type=float,
        default=DEFAULT_RATIO,
        help=f"shipped training positions per position of the retrain's own set (default {DEFAULT_RATIO})",
    )
    p.add_argument(
        "--real-life-new",
        type=int,
        default=0,
        help="logged decisions added to the labelled real-life benchmark (DATA/benchmarks) per retrain, for the "
        "record (default 0: the gate compares both nets' choices in every held-out decision instead)",
    )
    p.add_argument(
        "--choice-games",
        type=int,
        default=CHOICE_GAMES,
        help=f"rollout games a result where the two nets choose differently (default {CHOICE_GAMES})",
    )
    p.add_argument(
        "--real-life-labeller",
        default=REAL_LIFE_LABELLER,
        help=f"who labels the real-life benchmark (default {REAL_LIFE_LABELLER})",
    )
    p.add_argument(
        "--selfplay-games",
        type=int,
        default=0,
        help="fresh self-play games to label too (default 0: the shipped sets mixed in stand for them)",
    )
    p.add_argument("--epochs", type=int, default=12)
    p.add_argument("--lr", type=float, default=0.005)
    p.add_argument(
        "--gate-games",
        type=int,
        default=10000,
        help="games of the candidate against the incumbent on duplicate dice, and of each against gnubg 0-ply "
        "where gnubg-nn is installed (default 10000)",
    )
    p.add_argument(
        "--benchmark",
        default=None,
        help="the shipped benchmark set, measured for the record (default: the shipped set)",
    )
    p.add_argument("--no-promote", action="store_true", help="measure the candidate but keep the incumbent")
    p.add_argument(
        "--roll-back",
        metavar="VERSION",
        help="do not retrain: make this promoted version current again ('shipped': the shipped net)",
    )
    p.add_argument("--workers", type=int, default=1, help="processes for labelling")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true")


@command("retrain", "retrain the net on the queue and logged matches; promote the candidate if it is better")(_setup)
def _retrain(args: argparse.Namespace) -> int:
    import contextlib
    import datetime as dt
    from dataclasses import asdict
    from functools import partial

    from fibsbot.config import default_data_dir
    from fibsbot.owner.readers import check_formats
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
        ray_address=args.ray,
        mix_ratio=args.mix,
        real_life_new=args.real_life_new,
        real_life_labeller=args.real_life_labeller,
        choice_games=args.choice_games,
        selfplay_games=args.selfplay_games,
        epochs=args.epochs,
        lr=args.lr,
        gate_games=args.gate_games,
        seed=args.seed,
        workers=args.workers,
        benchmark_set=benchmark,
        promote=not args.no_promote,
    )
    for spec in (args.labeller, args.real_life_labeller):
        if spec is not None and spec != "incumbent":
            try:
                parse_labeller(spec).require()
            except LabellerError as exc:
                raise UserError(str(exc)) from exc
    if args.roll_back:
        return _roll_back(config.data_dir, args.roll_back)
    if config.data_dir.exists() and not config.data_dir.is_dir():
        raise UserError(f"{config.data_dir}: a file, not a data directory")
    if not config.data_dir.exists():
        raise UserError(f"no data directory {config.data_dir}: play some matches first (fibsbot arena)")
    net_path(args.net)  # the incumbent where the data dir has promoted none: a misspelt name fails before any work
    check_formats(config.data_dir)  # a data dir a newer release wrote: refused before anything is read or written
    empty = nothing_to_learn(config.data_dir)
    if empty is not None:  # self-play alone would label thousands of positions and learn nothing of the bot's play
        print(json.dumps({"promoted": False, "positions_labelled": 0, "reason": empty}) if args.json else empty)
        return 0
    queue_path = config.data_dir / "queue.sqlite"
    open_queue = partial(TrainingQueue, queue_path) if queue_path.exists() else None
    from fibsbot.owner.live import record_retrain

    # every round goes into the history `fibsbot status` and `fibsbot report` show, a failed
    # one too: run by a timer, nobody watches its output
    started = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    try:
        report = retrain(config, progress=(lambda text: None) if args.json else print, open_queue=open_queue)
    except Exception as exc:
        with contextlib.suppress(OSError):  # where the history cannot be written, the error itself says more
            record_retrain(config.data_dir, {"started": started, "failed": f"{type(exc).__name__}: {exc}"})
        raise
    record_retrain(config.data_dir, {"started": started, **asdict(report)})
    if args.json:
        print(json.dumps(asdict(report), default=str))
    else:
        print(
            f"{report.queue_rows} queued decisions, {report.positions_labelled} new positions labelled by "
            f"{report.labeller}, {report.training_positions} in the training set"
        )
        print(report.reason)
        print(f"promoted as version {report.version}" if report.promoted else "kept the incumbent")
        if report.candidate:
            print(f"the refused candidate is kept in {report.candidate}.npz: net:{report.candidate}@0 plays it")
    return 0


def nothing_to_learn(data_dir: Path) -> str | None:
    """Why a retrain of ``data_dir`` has nothing to learn from (no decision queued, no match
    logged, no set of an earlier retrain), or None when it has something."""
    from fibsbot.owner.readers import DataDirError, queue_counts

    training = data_dir / "training"
    if (training / "set.npz").exists() or (training / "labelling").exists():
        return None  # an earlier retrain's set or its labelling: the loop itself tells what is new
    try:
        queue = queue_counts(data_dir)
    except DataDirError as exc:
        raise UserError(str(exc)) from exc
    if (queue is not None and queue.waiting) or _logs_a_decision(data_dir / "log"):
        return None
    return (
        f"nothing to learn from in {data_dir}: no queued decisions and no logged matches yet "
        "(the daemon or fibsbot arena --data-dir plays some); nothing labelled, the net unchanged"
    )


def _logs_a_decision(log_dir: Path) -> bool:
    """Whether a JSON log holds a decision with its position, as the retrain reads them
    (rotated segments included)."""
    from nets import logfiles

    return any(
        '"decision"' in line and '"position_id"' in line
        for path in logfiles.log_files(log_dir)
        for line in logfiles.read_lines(path)
    )


def _roll_back(data_dir: Path, version: str) -> int:
    from nets.store import NetStore

    store = NetStore(data_dir / "nets")
    try:
        store.roll_back(None if version == "shipped" else version)
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    print(f"current net: {store.current_version() or 'the shipped net'} (the daemon takes it at its next match)")
    return 0
