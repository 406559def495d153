#!/usr/bin/env python3
"""Trial: do retrain candidates choose better moves than the incumbent in real play?

``fit`` trains a candidate from the shipped net on a retrain's labelled set
(``DATA/training/set.npz``) mixed with the shipped sets, as ``fibsbot retrain`` does,
with the learning rate, optimizer, epochs and mix given, and optionally with another
label source for the same positions (an ``.npz`` holding ``sage1`` and ``sage2`` for
them: the mean of Open Sage's 1- and 2-ply, the shipped net's own recipe).

``judge`` takes logged move decisions of the data dir that belong to the real-life
benchmark's share (never trained on) and are not in ``--exclude`` (the benchmark a
retrain is judged on), and rolls out every distinct choice of the incumbent and the
candidates where they differ: 360 games each with variance reduction and pruning, all
choices of a decision on the same dice.  It reports each candidate's change of error
(x1000 a decision, paired, over all the decisions) and how many changed choices were
better or worse.  Resumable: ``--out`` keeps every decision judged.

``referee`` reads a judged file again and judges the same changed choices by GNU
Backgammon's 2-ply (gnubg-nn in-process): the referee, neither the teacher nor our
rollouts.

    python scripts/trials/retrain_variants.py fit --data-dir D --name sgd02 --lr 0.02
    python scripts/trials/retrain_variants.py judge --data-dir D --exclude D/benchmarks/real-life-v1.jsonl.gz \\
        --candidates sgd02,adam1e3 --decisions 301 --out judged.jsonl
    python scripts/trials/retrain_variants.py referee --out judged.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.eval.evaluator import Evaluator  # noqa: E402
from engine.players.agent import Agent  # noqa: E402
from engine.rules.ids import board_from_position_id, position_id  # noqa: E402
from engine.rules.moves import MoveBuffers  # noqa: E402
from nets.player import load_agent  # noqa: E402
from nets.train.benchmark.labelling import mover_equities  # noqa: E402
from nets.train.benchmark.players import NetBenchmarkPlayer  # noqa: E402
from nets.train.benchmark.scoring import read_benchmark  # noqa: E402
from nets.train.benchmark.sources import arena_decisions, choice_count, unique_candidates  # noqa: E402
from nets.train.labellers import RolloutLabeller  # noqa: E402
from nets.train.mix import mix, shipped_sets  # noqa: E402
from nets.train.real_life import held_out  # noqa: E402
from nets.train.retrain import TrainingSet  # noqa: E402
from nets.train.supervised import fit, split_by_net  # noqa: E402

JUDGE = RolloutLabeller(360, "default", varredn=True, prune=True)
JUDGE_SEED = 11
SAMPLE_SEED = 99
WEIGHTS = ("W1", "b1", "W2", "b2")


def fit_candidate(args) -> None:
    incumbent = load_agent("net:default@0").evaluator
    candidate = Evaluator(incumbent.contact.copy(), incumbent.race.copy(), name=args.name, prune=incumbent.prune)
    training = TrainingSet(Path(args.data_dir) / "training" / "set.npz")
    labels = training.labels
    if args.labels:
        other = np.load(args.labels)
        if not np.array_equal(other["boards"], training.boards):
            raise SystemExit(f"{args.labels} does not label the positions of the training set")
        labels = (other["sage1"].astype(np.float32) + other["sage2"].astype(np.float32)) / 2
    boards, targets, _ = mix(training.boards, labels, shipped_sets(), args.mix, args.seed)
    parts = split_by_net(boards, targets)
    for role, net in (("contact", candidate.contact), ("race", candidate.race)):
        report = fit(net, *parts[role], epochs=args.epochs, lr=args.lr, seed=args.seed, optimizer=args.optimizer)
        print(role, json.dumps({"best_epoch": report.best_epoch, "held_out_loss": report.held_out_loss}))
    out = Path(args.dir) / f"{args.name}.npz"
    arrays = {k: getattr(candidate.contact, k) for k in WEIGHTS} | {
        "race_" + k: getattr(candidate.race, k) for k in WEIGHTS
    }
    np.savez_compressed(out, **arrays)
    print("wrote", out)


def candidate_player(directory: str, name: str, incumbent: Evaluator) -> NetBenchmarkPlayer:
    weights = np.load(Path(directory) / f"{name}.npz")
    net = Evaluator(incumbent.contact.copy(), incumbent.race.copy(), name=name, prune=incumbent.prune)
    for k in WEIGHTS:
        getattr(net.contact, k)[...] = weights[k]
        getattr(net.race, k)[...] = weights["race_" + k]
    return NetBenchmarkPlayer(Agent(net, 0))


def judge(args) -> None:
    incumbent = load_agent("net:default@0")
    players = {"incumbent": NetBenchmarkPlayer(incumbent)}
    for name in args.candidates.split(","):
        players[name] = candidate_player(args.dir, name, incumbent.evaluator)
    excluded = {(r.position_id, tuple(r.dice)) for r in read_benchmark(args.exclude).moves} if args.exclude else set()
    moves, _ = arena_decisions(str(Path(args.data_dir) / "log" / "*.jsonl"))
    buffers = MoveBuffers()
    pool = [
        c
        for c in unique_candidates(moves, np.random.default_rng(SAMPLE_SEED))
        if c.dice is not None
        and held_out(c.board, c.dice)
        and (position_id(c.board), tuple(c.dice)) not in excluded
        and choice_count(c.board, *c.dice, buffers) > 1
    ][: args.decisions]
    out = Path(args.out)
    judged = {}
    if out.exists():
        judged = {row["key"]: row for row in map(json.loads, out.read_text().splitlines())}
    for n, decision in enumerate(pool):
        key = f"{position_id(decision.board)}:{decision.dice[0]}{decision.dice[1]}"
        row = judged.setdefault(key, {"key": key, "choices": {}, "equity": {}})
        for name, player in players.items():
            if name not in row["choices"]:
                after = player.result(decision.board, *decision.dice)
                row["choices"][name] = position_id(np.ascontiguousarray(after[::-1]))
        distinct = sorted(set(row["choices"].values()))
        missing = [p for p in distinct if p not in row["equity"]] if len(distinct) > 1 else []
        if missing:
            boards = np.array([board_from_position_id(p) for p in missing])
            row["equity"].update(
                zip(missing, (round(float(e), 5) for e in mover_equities(JUDGE.label(boards, JUDGE_SEED))))
            )
        if missing or n == len(pool) - 1:
            tmp = out.with_name(out.name + ".tmp")
            tmp.write_text("".join(json.dumps(r) + "\n" for r in judged.values()))
            os.replace(tmp, out)
    report(list(judged.values()), [n for n in players if n != "incumbent"])


def referee(args) -> None:
    import gnubg_nn

    rows = [json.loads(line) for line in Path(args.out).read_text().splitlines()]
    names = sorted({n for row in rows for n in row["choices"]} - {"incumbent"})
    equity: dict[str, float] = {}
    for row in rows:
        for choice in set(row["choices"].values()) if len(set(row["choices"].values())) > 1 else ():
            if choice not in equity:  # the board after the move, its opponent on roll
                w, wg, wb, lg, lb = gnubg_nn.probabilities(gnubg_nn.board_from_position_id(choice), 2)
                equity[choice] = -((2 * w - 1) + (wg - lg) + (wb - lb))
        row["equity"] = equity
    report(rows, names)


def report(rows: list[dict], names: list[str]) -> None:
    rows = [r for r in rows if all(n in r["choices"] for n in names)]
    for name in names:
        change = np.array(
            [
                (r["equity"][r["choices"]["incumbent"]] - r["equity"][r["choices"][name]]) * 1000
                if r["choices"][name] != r["choices"]["incumbent"]
                else 0.0
                for r in rows
            ]
        )
        print(
            json.dumps(
                {
                    "candidate": name,
                    "decisions": len(rows),
                    "changed": int((change != 0).sum()),
                    "better": int((change < 0).sum()),
                    "worse": int((change > 0).sum()),
                    "error_change": round(float(change.mean()), 3),
                    "stderr": round(float(change.std(ddof=1) / math.sqrt(len(rows))), 3),
                }
            )
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    fitting = commands.add_parser("fit")
    fitting.add_argument("--data-dir", required=True)
    fitting.add_argument("--name", required=True)
    fitting.add_argument("--lr", type=float, default=0.005)
    fitting.add_argument("--optimizer", choices=("sgd", "adam"), default="sgd")
    fitting.add_argument("--epochs", type=int, default=12)
    fitting.add_argument("--mix", type=float, default=1.0)
    fitting.add_argument("--seed", type=int, default=2)
    fitting.add_argument("--labels", help=".npz with sage1 and sage2 for the training set's positions")
    fitting.add_argument("--dir", default=".", help="where the candidates' weights go")
    judging = commands.add_parser("judge")
    judging.add_argument("--data-dir", required=True)
    judging.add_argument("--candidates", required=True, help="names of candidates written by fit, comma-separated")
    judging.add_argument("--exclude", help="a real-life benchmark whose decisions are left out")
    judging.add_argument("--decisions", type=int, default=301)
    judging.add_argument("--out", required=True)
    judging.add_argument("--dir", default=".", help="where the candidates' weights are")
    refereeing = commands.add_parser("referee")
    refereeing.add_argument("--out", required=True, help="a file written by judge")
    args = parser.parse_args()
    {"fit": fit_candidate, "judge": judge, "referee": referee}[args.command](args)


if __name__ == "__main__":
    main()
