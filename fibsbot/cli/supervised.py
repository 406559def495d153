"""`fibsbot train prune|harvest|relabel|fit`: the supervised side of training (the
commands are registered by ``fibsbot.cli.train``)."""

from __future__ import annotations

import argparse

from fibsbot.cli.registry import UserError, net_path


def harvest_dir(path: str) -> None:
    """A harvest directory named as input exists: a missing one is a mistake, not an empty harvest."""
    from pathlib import Path

    if not Path(path).is_dir():
        what = "a file, not a harvest directory" if Path(path).exists() else "no such folder"
        raise UserError(f"{path}: {what}")


def prune(args: argparse.Namespace) -> int:
    from engine.eval.evaluator import Evaluator
    from engine.players.agent import Agent
    from nets.train.pruning import train_pruning_net

    path = net_path(args.net)
    evaluator = Evaluator.load(path)
    agent = Agent(evaluator, ply=0, prune=False)
    net, report = train_pruning_net(
        agent,
        args.games,
        args.hidden,
        epochs=args.epochs,
        lr=args.lr,
        lr_decay=args.lr_decay,
        seed=args.seed,
        progress=lambda e, tr, te: print(f"epoch {e}: train {tr:.5f} held-out {te:.5f}"),
    )
    out = path.with_name(path.stem + ".prune.npz")
    net.save(
        out,
        role="pruning",
        distilled_from=path.name,
        training={
            "method": "supervised on the full net's 0-ply probabilities of self-play positions",
            "games": args.games,
            "positions": report.positions + report.held_out,
            "seed": args.seed,
            "epochs": args.epochs,
            "lr": args.lr,
            "lr_decay": args.lr_decay,
            "best_epoch": report.best_epoch,
            "held_out_loss": report.held_out_loss[report.best_epoch],
        },
    )
    print(f"wrote {out} ({report.positions + report.held_out} positions, best epoch {report.best_epoch})")
    return 0


def harvest(args: argparse.Namespace) -> int:
    from nets.train.harvest import harvest

    if args.games < 1 or args.chunk_games < 1 or not 0.0 <= args.explore <= 1.0:
        raise UserError("--games and --chunk-games must be positive and --explore within [0, 1]")
    net_path(args.net)
    n = harvest(
        f"net:{args.net}",
        args.out,
        args.games,
        seed=args.seed,
        explore=args.explore,
        ply=args.ply,
        chunk_games=args.chunk_games,
        workers=args.workers,
        ray_address=args.ray,
        progress=lambda done, total: print(f"chunks {done}/{total}", flush=True),
    )
    print(f"{n} labelled positions in {args.out}")
    return 0


def relabel(args: argparse.Namespace) -> int:
    from nets.train.labellers import LabellerError, NetLabeller, RolloutLabeller, parse_labeller
    from nets.train.relabel import relabel

    if args.chunk_positions < 1 or args.threads < 1 or (args.positions is not None and args.positions < 1):
        raise UserError("--positions, --chunk-positions and --threads must be positive")
    harvest_dir(args.src)
    try:
        labeller = parse_labeller(args.labeller, args.threads)
        labeller.require()
    except LabellerError as exc:
        raise UserError(str(exc)) from exc
    if isinstance(labeller, (NetLabeller, RolloutLabeller)):
        net_path(labeller.net)
    n = relabel(
        labeller.spec,
        args.src,
        args.out,
        positions=args.positions,
        seed=args.seed,
        chunk_positions=args.chunk_positions,
        workers=args.workers,
        threads=args.threads,
        ray_address=args.ray,
        progress=lambda done, total: print(f"chunks {done}/{total}", flush=True),
    )
    print(f"{n} positions labelled by {labeller.spec} in {args.out}")
    return 0


def fit(args: argparse.Namespace) -> int:
    import numpy as np

    from engine.eval.evaluator import Evaluator
    from nets.player import NETS_DIR
    from nets.train.distill import FitSettings, fit_pair
    from nets.train.harvest import harvest_extent, load_harvest
    from nets.train.label_sets import LabelSetError, is_label_set, read_label_set

    start = Evaluator.load(net_path(args.net))
    for data in args.data:
        if not is_label_set(data):
            harvest_dir(data)
    try:
        read = [read_label_set(d) if is_label_set(d) else (*load_harvest(d), harvest_extent(d)) for d in args.data]
    except LabelSetError as exc:
        raise UserError(str(exc)) from None
    parts = [(b, lab) for b, lab, _ in read]
    extents = [extent for _, _, extent in read]
    boards = np.concatenate([b for b, _ in parts])
    labels = np.concatenate([lab for _, lab in parts])
    if len(boards) < 100:
        raise UserError(f"only {len(boards)} labelled positions in {', '.join(args.data)}; harvest more first")
    settings = FitSettings(
        encoding=args.encoding,
        hidden=args.hidden,
        epochs=args.epochs,
        lr=args.lr,
        lr_decay=args.lr_decay,
        patience=args.patience,
        seed=args.seed,
        optimizer=args.optimizer,
        batch=args.batch,
        scratch=args.scratch,
        train_race=not args.contact_only,
        crashed_repeats=args.crashed_repeats,
    )
    result = fit_pair(
        start.contact,
        start.race,
        boards,
        labels,
        settings,
        progress=lambda role, e, tr, te: print(f"{role} epoch {e}: train {tr:.5f} held-out {te:.5f}", flush=True),
    )
    card = {
        "name": args.name,
        "training": {
            "method": "supervised on the labels of the data (a harvest's own search labels, or a label set's "
            "labeller: see data) of self-play candidates (fibsbot train fit)",
            "start": args.net,
            "data": extents,
            "positions": result.positions,
            **settings.as_dict(),
            "fit": {
                role: {k: r[k] for k in ("epochs", "best_epoch", "held_out_loss")} for role, r in result.reports.items()
            },
        },
    }
    result.contact.save(NETS_DIR / f"{args.name}.npz", role="contact", **card)
    if result.race is not None:
        # a race net kept as it was keeps its own card: its training is that of --net's
        race_card = card if "race" in result.reports else {"name": args.name, "kept_from": args.net}
        result.race.save(NETS_DIR / f"{args.name}.race.npz", role="race", **race_card)
    print(
        f"wrote {NETS_DIR / args.name}.npz ({result.positions}); measure it with "
        f"fibsbot duel --a net:{args.name} --b pubeval --games 20000 --seed 2026"
    )
    return 0
