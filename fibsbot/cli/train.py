"""`fibsbot train ...`: training commands (registered into the main parser)."""

from __future__ import annotations

import argparse

from fibsbot.cli.registry import UserError, command, net_path
from fibsbot.cli.supervised import fit, harvest, prune, relabel


def _schedule(text: str) -> list:
    """'200000:0.1,0.02' -> [[200000, 0.1], [None, 0.02]]."""
    out = []
    try:
        for part in text.split(","):
            until, _, lr = part.rpartition(":")
            out.append([int(until) if until else None, float(lr)])
    except ValueError:
        raise UserError(f"bad --schedule {text!r}; expected e.g. '200000:0.1,0.02'") from None
    return out


def _duel_options(p: argparse.ArgumentParser) -> None:
    """The strength duel against pubeval that export and measure record in a card."""
    p.add_argument("--games", type=int, default=20_000, help="duel games vs pubeval (default 20000)")
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--workers", type=int, default=1)


def _setup(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="train_command", metavar="KIND", required=True)
    td = sub.add_parser(
        "td",
        help="TD(lambda) self-play training into a run directory (resumable)",
        description="Train by TD(lambda) self-play. Re-running with the same --run-dir "
        "resumes from the last checkpoint; the architecture options only "
        "apply to a new run.",
    )
    td.add_argument("--run-dir", required=True, help="directory for checkpoints, state and progress.csv")
    td.add_argument("--arch", default="tesauro3", choices=["tesauro3", "gnubg5", "symmetric"])
    td.add_argument("--encoding", default="tesauro", choices=["tesauro", "tesauro-turn", "contact"])
    td.add_argument("--hidden", type=int, default=80)
    td.add_argument("--race-arch", choices=["tesauro3", "gnubg5"], help="train a separate race net too")
    td.add_argument("--race-hidden", type=int, default=64)
    td.add_argument("--lam", type=float, default=0.0, help="lambda of TD(lambda) (default 0)")
    td.add_argument(
        "--schedule",
        default="200000:0.1,0.02",
        help="learning rates: 'UNTIL:LR,...,LR' (default Benchmark 1's '200000:0.1,0.02')",
    )
    td.add_argument("--games", type=int, default=200_000, help="train until this many games in total")
    td.add_argument("--seed", type=int, default=1)
    td.add_argument("--checkpoint-every", type=int, default=10_000)
    td.add_argument("--bench-every", type=int, default=10_000)
    td.add_argument("--bench-games", type=int, default=2_000)
    td.add_argument("--quiet", action="store_true", help="no progress bar")
    export = sub.add_parser(
        "export",
        help="measure a run's nets against pubeval and ship them into nets/",
        description="Duel the run's nets against pubeval at 0-ply (duplicate dice) and "
        "write them to nets/NAME.npz (+ NAME.race.npz) with the measured "
        "strength in the model card.",
    )
    export.add_argument("run_dir", help="a training run directory")
    export.add_argument("--name", required=True, help="name in nets/ (e.g. default, benchmark1)")
    _duel_options(export)
    plot = sub.add_parser("plot", help="draw a run's progress.csv as a PNG learning curve")
    plot.add_argument("csv", help="progress.csv of a training run")
    plot.add_argument("--out", help="PNG path (default: beside the CSV)")
    prune = sub.add_parser(
        "prune",
        help="distil a small pruning net from a net (nets/NAME.prune.npz)",
        description="Train the small net that pre-selects replies inside 1- and 2-ply "
        "searches, on self-play positions labelled by the full net's 0-ply.",
    )
    prune.add_argument("--net", default="default", help="the net to distil (default: default)")
    prune.add_argument("--games", type=int, default=2000, help="self-play games for positions (default 2000)")
    prune.add_argument("--hidden", type=int, default=16)
    prune.add_argument("--epochs", type=int, default=12)
    prune.add_argument("--lr", type=float, default=0.02)
    prune.add_argument("--lr-decay", type=float, default=0.85)
    prune.add_argument("--seed", type=int, default=1)
    harvest = sub.add_parser(
        "harvest",
        help="2-ply self-play: every 2-ply candidate with its label (resumable)",
        description="Play self-play games at 2-ply and keep every candidate move that "
        "reached 2-ply, labelled with its 2-ply probabilities, in chunk "
        "files under --out. Re-running skips the chunks already there.",
    )
    harvest.add_argument("--net", default="default", help="the net that plays and labels (default: default)")
    harvest.add_argument("--out", required=True, help="directory for the chunk files")
    harvest.add_argument("--games", type=int, default=1000, help="games 0 .. N-1 (default 1000)")
    harvest.add_argument("--seed", type=int, default=1)
    harvest.add_argument("--explore", type=float, default=0.05, help="share of random moves (default 0.05)")
    harvest.add_argument("--chunk-games", type=int, default=20, help="games per chunk file (default 20)")
    harvest.add_argument(
        "--ply",
        type=int,
        default=2,
        choices=[1, 2],
        help="search and label depth (default 2; 1 is about 20x cheaper a position)",
    )
    harvest.add_argument("--workers", type=int, default=1)
    harvest.add_argument("--ray", metavar="ADDRESS", help="run the chunks on a Ray cluster")
    relabel = sub.add_parser(
        "relabel",
        help="label a harvest's positions with a labeller (resumable)",
        description="Label each position of a harvest directory with LABELLER and write "
        "the labels in chunk files that fit reads like a harvest. Labellers: "
        "net:NAME@PLY (our search, PLY 0-2), rollout:GAMES[:NAME] (cubeless "
        "rollouts by a net's 0-ply, truncated at the bearoff database), "
        "bgsage@PLY (the Open Sage engine at its PLY 1-4, where its 1 is "
        "GNU Backgammon's 0-ply; pip install 'fibsbot[bgsage]').",
    )
    relabel.add_argument("src", help="a harvest directory")
    relabel.add_argument("--out", required=True, help="directory for the chunk files")
    relabel.add_argument("--labeller", default="rollout:36", help="labeller spec (default rollout:36)")
    relabel.add_argument("--positions", type=int, help="only the first N positions of the harvest")
    relabel.add_argument("--chunk-positions", type=int, default=64, help="positions a chunk file (default 64)")
    relabel.add_argument("--seed", type=int, default=1)
    relabel.add_argument("--workers", type=int, default=1, help="processes")
    relabel.add_argument("--threads", type=int, default=1, help="threads inside an external engine (default 1)")
    relabel.add_argument("--ray", metavar="ADDRESS", help="run the chunks on a Ray cluster")
    measure = sub.add_parser(
        "measure",
        help="duel nets/NAME against pubeval and write the result into its card",
        description="Duel net:NAME at 0-ply against pubeval with duplicate dice and "
        "record the measured strength (with the command) in NAME.json and "
        "NAME.race.json; the weights are not touched.",
    )
    measure.add_argument("name", help="a net in nets/")
    _duel_options(measure)
    fitp = sub.add_parser(
        "fit",
        help="train a net pair on harvested labels into nets/NAME",
        description="Supervised training (cross-entropy on the five outputs, shuffled "
        "epochs, held-out early stop) of a copy of --net on the positions of "
        "one or more harvest directories; the contact net may be grown first "
        "(--encoding contact2, --hidden H) without changing what it computes.",
    )
    fitp.add_argument(
        "data",
        nargs="+",
        help="harvest directories or label sets FILE.npz[:KEY] (e.g. nets/runs/sage-labels/h31-h32.npz:sage1)",
    )
    fitp.add_argument("--net", default="default", help="the net to start from (default: default)")
    fitp.add_argument("--name", required=True, help="name of the result in nets/")
    fitp.add_argument(
        "--encoding", choices=["contact", "contact2", "contact3"], help="grow the contact net to this encoding"
    )
    fitp.add_argument("--hidden", type=int, help="grow the contact net to this many hidden units")
    fitp.add_argument("--epochs", type=int, default=20)
    fitp.add_argument("--lr", type=float, default=0.01)
    fitp.add_argument("--lr-decay", type=float, default=0.9)
    fitp.add_argument("--patience", type=int, default=3)
    fitp.add_argument(
        "--optimizer",
        choices=["sgd", "adam"],
        default="sgd",
        help="per-position SGD, or mini-batch Adam (use --lr about 0.001)",
    )
    fitp.add_argument("--batch", type=int, default=128, help="Adam's batch size (default 128)")
    fitp.add_argument("--seed", type=int, default=1)
    fitp.add_argument(
        "--scratch",
        action="store_true",
        help="train a new contact net (--encoding, --hidden) from random weights instead of a grown copy",
    )
    fitp.add_argument("--contact-only", action="store_true", help="keep --net's race net as it is")
    fitp.add_argument(
        "--crashed-repeats",
        type=int,
        default=1,
        help="show the contact net each crashed position this many times (default 1)",
    )


@command(
    "train",
    "train nets: TD self-play (td), 2-ply labels (harvest), labels by any labeller (relabel), "
    "supervised (fit), shipping (export), pruning nets (prune), learning curves (plot)",
)(_setup)
def _train(args: argparse.Namespace) -> int:
    if args.train_command == "harvest":
        return harvest(args)
    if args.train_command == "fit":
        return fit(args)
    if args.train_command == "relabel":
        return relabel(args)
    if args.train_command == "measure":
        return _measure(args)
    if args.train_command == "prune":
        return prune(args)
    if args.train_command == "plot":
        from nets.train.plot import plot_progress

        try:
            print(plot_progress(args.csv, args.out))
        except RuntimeError as exc:
            raise UserError(str(exc)) from exc
        except UnicodeDecodeError as exc:  # Python's message names no file
            raise UserError(f"{args.csv}: not a progress.csv (not UTF-8 text)") from exc
        return 0
    if args.train_command == "export":
        return _export(args)
    from engine.eval.net import NetError
    from nets.train.td import TDConfig, TDTrainer

    config = TDConfig(
        arch=args.arch,
        encoding=args.encoding,
        hidden=args.hidden,
        race_arch=args.race_arch,
        race_hidden=args.race_hidden,
        lam=args.lam,
        schedule=_schedule(args.schedule),
        games=args.games,
        seed=args.seed,
        checkpoint_every=args.checkpoint_every,
        bench_every=args.bench_every,
        bench_games=args.bench_games,
    )
    counts = {
        "--games": args.games,
        "--hidden": args.hidden,
        "--race-hidden": args.race_hidden,
        "--checkpoint-every": args.checkpoint_every,
        "--bench-every": args.bench_every,
        "--bench-games": args.bench_games,
    }
    # zero would divide by zero in the chunking, or benchmark with no games at all
    not_positive = [name for name, value in counts.items() if value < 1]
    if not_positive:
        got = ", ".join(f"{name} {counts[name]}" for name in not_positive)
        raise UserError(f"{', '.join(counts)} must be positive (got {got})")
    if not 0.0 <= args.lam <= 1.0:
        raise UserError(f"--lam must be within [0, 1] (got {args.lam})")
    try:
        trainer = TDTrainer(args.run_dir, config)
        trainer.config.games = args.games  # a resumed run may be extended
        trainer.run(quiet=args.quiet)
    except NetError as exc:
        raise UserError(str(exc)) from exc
    print(f"{trainer.games_done} games; nets in {args.run_dir}")
    return 0


def _export(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    from engine.eval.evaluator import Evaluator
    from engine.eval.net import Net, NetError
    from engine.rollout.duel import run_duel
    from nets.player import NETS_DIR

    run = Path(args.run_dir)
    try:
        contact = Net.load(run / "contact.npz")
        race = Net.load(run / "race.npz") if (run / "race.npz").exists() else None
    except NetError as exc:
        raise UserError(str(exc)) from exc
    staging = run / "export"
    Evaluator(contact, race)  # validates the pair before anything is written
    contact.save(staging / "candidate.npz")
    if race is not None:
        race.save(staging / "candidate.race.npz")
    result = run_duel(f"net:{staging / 'candidate.npz'}", "pubeval", args.games, args.seed, args.workers)
    strength = _strength(result, args)
    contact.save(NETS_DIR / f"{args.name}.npz", name=args.name, role="contact", strength=strength)
    if race is not None:
        race.save(NETS_DIR / f"{args.name}.race.npz", name=args.name, role="race", strength=strength)
    print(result.summary())
    print(json.dumps(strength))
    return 0


def _strength(result, args: argparse.Namespace) -> dict:
    return {
        "opponent": "pubeval",
        "ply": 0,
        "games": result.games,
        "ppg": round(result.ppg, 4),
        "stderr": round(result.stderr, 4),
        "win_rate": round(result.win_rate, 4),
        "seed": args.seed,
        "duplicate_dice": True,
        "command": f"fibsbot duel --a net:{args.name} --b pubeval --games {args.games} --seed {args.seed}",
    }


def _measure(args: argparse.Namespace) -> int:
    import json

    from engine.eval.net import Net
    from engine.rollout.duel import run_duel

    path = net_path(args.name)
    result = run_duel(f"net:{args.name}", "pubeval", args.games, args.seed, args.workers)
    strength = _strength(result, args)
    for file in (path, path.with_name(path.stem + ".race.npz")):
        if file.exists():
            net = Net.load(file)
            net.save(file, strength=strength)
    print(result.summary())
    print(json.dumps(strength))
    return 0
