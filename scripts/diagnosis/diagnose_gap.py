#!/usr/bin/env python3
"""Where our 0-ply gives away equity against GNU Backgammon's 0-ply, judged by rollouts.

Collect: duplicate cubeless games between our net's 0-ply and gnubg's (``gnubg0``, gnubg-nn)
on ``--seed`` (4101 by default: a tuning seed), both players asked at every decision with
a choice; the decisions where they differ are kept once each, with how often they came up.
Judge: both choices of every such decision rolled out cubelessly by our 0-ply on common
dice (``--games``, variance reduction, pruning net keeping 8, truncated at the bearoff
database), in chunks written atomically under ``--out``; a rerun skips what is done.
Summary: the loss (gnubg's choice minus ours, x1000 a decision) by class, structure,
phase and closeness, with standard errors (``scripts/diagnosis/summary.py``).

    python scripts/diagnosis/diagnose_gap.py --out bench/diagnosis/seed4101 --pairs 1000 --games 1296 --workers 2
    python scripts/diagnosis/diagnose_gap.py --summary bench/diagnosis/seed4101 [--json]
    python scripts/diagnosis/diagnose_gap.py --from-looks bench/match-play/looks-seed3502.jsonl.gz \\
        bench/match-play/looks-seed3537.jsonl.gz [--json]

``--from-looks`` breaks down the table level minus gnubg 1.07's 2-ply at match scores
by the same classes from the files of ``scripts/referee/compare_looks.py`` (their cubeful
rollouts; nothing is rolled out again).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from scripts.diagnosis.judge import DECISIONS, DiagnosisError  # noqa: E402

TUNING_SEED = 4101


class Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, not the usage text
        self.exit(2, f"{self.prog}: error: {message}\n")


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = Parser(prog="diagnose_gap", description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--out", type=Path, help="collect and judge into this directory (resumable)")
    mode.add_argument("--summary", type=Path, metavar="DIR", help="the table of a directory's judged chunks")
    mode.add_argument("--from-looks", type=Path, nargs="+", metavar="FILE", help="the table of looks files")
    mode.add_argument(
        "--agreement", type=Path, metavar="DIR", help="how the two judges of a directory compare, decision by decision"
    )
    parser.add_argument(
        "--judge",
        choices=("ours", "gnubg"),
        default="ours",
        help="--out and --summary: our net's rollouts (default) or gnubg's cubeless rollouts of the same decisions",
    )
    parser.add_argument("--seed", type=int, default=TUNING_SEED, help=f"dice of the games (default {TUNING_SEED})")
    parser.add_argument("--pairs", type=int, default=500, help="duplicate pairs of games to collect (default 500)")
    parser.add_argument("--games", type=int, default=1296, help="rollout games a choice (default 1296)")
    parser.add_argument("--chunk", type=int, default=16, help="decisions a chunk file (default 16)")
    parser.add_argument("--limit", type=int, default=0, help="judge only the first N decisions (0: all)")
    parser.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--net", default="default", help="our net (default: default)")
    parser.add_argument("--prune", type=int, default=8, help="pruning net's moves in the rollouts (0: none)")
    parser.add_argument("--no-varredn", action="store_true", help="no variance reduction in the rollouts")
    parser.add_argument("--collect-only", action="store_true", help="collect the decisions, judge nothing")
    parser.add_argument(
        "--exclude", nargs="+", default=[], metavar="KEY", help="summaries: leave these decisions out (their key)"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    for name in ("pairs", "games", "chunk", "workers"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be 1 or more, not {getattr(args, name)}")
    if args.limit < 0 or args.prune < 0:
        parser.error("--limit and --prune must be 0 or more")
    for path in args.from_looks or ():
        if not path.is_file():
            parser.error(f"--from-looks: no file {path}")
    for name in ("summary", "agreement"):
        folder = getattr(args, name)
        if folder is not None and not folder.is_dir():
            parser.error(f"--{name}: no directory {folder}")
    return args


def progress(text: str) -> None:
    print(f"diagnose_gap: {text}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> dict:
    import nets.player  # noqa: F401  registers net:NAME
    from scripts.diagnosis.collect import collect
    from scripts.diagnosis.judge import judge, load_collection, write_gzip

    folder = args.out
    folder.mkdir(parents=True, exist_ok=True)
    if (folder / DECISIONS).exists():
        collection = load_collection(folder)
        wanted = {"seed": args.seed, "pairs": args.pairs, "net": f"net:{args.net}"}
        if any(collection.get(k) != v for k, v in wanted.items()):
            have = {k: collection.get(k) for k in wanted}
            raise DiagnosisError(f"{folder} holds the decisions of {have}, not {wanted}; use another --out")
        progress(f"{len(collection['decisions'])} decisions collected before")
    else:
        start = time.perf_counter()
        collection = collect(args.net, args.seed, args.pairs, args.workers)
        collection["seconds"] = round(time.perf_counter() - start, 1)
        write_gzip(folder / DECISIONS, json.dumps(collection))
        progress(
            f"{collection['games']} games, {collection['choice_decisions']} decisions with a choice, "
            f"{collection['differing_decisions']} differing ({len(collection['decisions'])} distinct) "
            f"in {collection['seconds']} s"
        )
    if args.collect_only:
        return summarise(folder)
    rows = collection["decisions"][: args.limit or None]
    if args.judge == "gnubg":
        return run_gnubg_judge(folder, rows, args)
    settings = {
        "net": f"net:{args.net}",
        "seed": args.seed,
        "games": args.games,
        "varredn": not args.no_varredn,
        "prune": args.prune,
        "chunk": args.chunk,
    }
    start = time.perf_counter()
    done = judge(folder, rows, settings, args.workers, lambda i, n: progress(f"chunk {i}/{n} judged"))
    progress(f"{done} chunks judged now in {time.perf_counter() - start:.0f} s")
    return summarise(folder)


def run_gnubg_judge(folder: Path, rows: list[dict], args: argparse.Namespace) -> dict:
    from scripts.diagnosis import gnubg_judge

    settings = {
        "judge": gnubg_judge.JUDGE,
        "seed": args.seed,
        "games": args.games,
        "varredn": not args.no_varredn,
        "plies": 0,
        "chunk": args.chunk,
    }
    start = time.perf_counter()
    done = gnubg_judge.judge(folder, rows, settings, args.workers, lambda i, n: progress(f"gnubg chunk {i}/{n} judged"))
    progress(f"{done} gnubg chunks judged now in {time.perf_counter() - start:.0f} s")
    return summarise(folder, judge="gnubg")


def summarise(folder: Path, exclude: tuple[str, ...] | list[str] = (), judge: str = "ours") -> dict:
    from scripts.diagnosis import gnubg_judge
    from scripts.diagnosis.judge import SETTINGS, judged_rows, load_collection, mean_cpu_seconds
    from scripts.diagnosis.summary import table, without

    collection = load_collection(folder)
    second = judge == "gnubg"
    judged = judged_rows(folder, gnubg_judge.PREFIX if second else "")
    settings_path = folder / (gnubg_judge.SETTINGS if second else SETTINGS)
    settings = json.loads(settings_path.read_text()) if settings_path.exists() else None
    counts, differing, judged = without(list(exclude), collection["counts"], collection["decisions"], judged)
    result = table(counts, differing, judged, collection["games"])
    return result | {
        "title": f"{collection['net']} 0-ply minus {collection['theirs']}, seed {collection['seed']}"
        + (" (a tuning seed), " if collection["seed"] == TUNING_SEED else ", ")
        + f"{collection['games']:,} games; rollouts {settings}"
        + (f"; without {', '.join(exclude)}" if exclude else ""),
        "excluded": list(exclude),
        "rollout_cpu_seconds_a_decision": mean_cpu_seconds(judged),
    }


def agreement_summary(folder: Path) -> dict:
    from scripts.diagnosis import gnubg_judge
    from scripts.diagnosis.judge import judged_rows

    result = gnubg_judge.agreement(judged_rows(folder), judged_rows(folder, gnubg_judge.PREFIX))
    return result | {"title": f"{folder}: our net's rollouts (first) against gnubg's (second), the same decisions"}


def render_agreement(result: dict) -> str:
    if result["decisions"] < 2:
        return f"{result['title']}\n{result['decisions']} decisions judged by both: nothing to compare yet"
    correlation = "-" if result["correlation"] is None else f"{result['correlation']:.2f}"
    return "\n".join(
        [
            result["title"],
            f"{result['decisions']} decisions judged by both; loss a differing decision x1000 (gnubg's choice minus "
            f"ours): our net's rollouts {result['first_x1000']:+.1f}, gnubg's {result['second_x1000']:+.1f}",
            f"our judge minus gnubg's: {result['difference_x1000']:+.1f} +/- {result['difference_stderr_x1000']:.1f}; "
            f"correlation {correlation}",
            f"both judges sure (beyond two standard errors) on {result['both_sure']}: the same better choice in "
            f"{result['both_sure_same_choice']}",
        ]
    )


def looks_summary(paths: list[Path], exclude: tuple[str, ...] | list[str] = ()) -> dict:
    from scripts.diagnosis.looks import from_looks
    from scripts.diagnosis.summary import table, without

    counts, differing, per_file = from_looks(paths)
    counts, differing, _ = without(list(exclude), counts, differing, differing)
    return table(counts, differing, differing) | {
        "title": "net:default@table minus gnubg 1.07 2-ply at match scores (cubeful rollouts of our net, "
        "5,184 games on common dice; EMG)" + (f"; without {', '.join(exclude)}" if exclude else ""),
        "excluded": list(exclude),
        "files": per_file,
    }


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    try:
        if args.from_looks:
            result = looks_summary(args.from_looks, args.exclude)
        elif args.agreement is not None:
            result = agreement_summary(args.agreement)
            print(json.dumps(result, indent=1) if args.json else render_agreement(result))
            return 0
        elif args.summary is not None:
            result = summarise(args.summary, args.exclude, args.judge)
        else:
            result = run(args)
    except (DiagnosisError, KeyError) as exc:
        print(f"diagnose_gap: error: {exc.args[0]}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    from scripts.diagnosis.summary import render

    print(render(result, result["title"]))
    for entry in result.get("files", ()):
        print(
            f"{entry['file']}: {entry['decisions']} decisions, {entry['differing']} differ, "
            f"loss {entry['loss_x1000']:+.2f} +/- {entry['rollout_stderr_x1000']:.2f} x1000 a decision"
        )
    cpu = result.get("rollout_cpu_seconds_a_decision")
    if cpu is not None and not math.isnan(cpu):
        print(f"rollouts: {cpu:.1f} CPU s a judged decision")
    return 0


if __name__ == "__main__":
    sys.exit(main())
