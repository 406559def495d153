"""Two or more builds' `fibsbot bench` figures, in alternated runs on this machine.

A speed change of 10-30% cannot be told by one run of each build: this kind of machine
drifts that much within minutes. So each build is checked out once into a worktree of
its own (``.`` is the working tree as it is, edits included), compiled by one untimed
run, and then benched round after round, the builds' order reversed every round (A B,
B A, A B, ...: a drift that slows the machine lasts into both builds of a pair). Every
figure is given per build (median and range over the rounds), and every build after the
first as its ratio to the first, taken within each round, so that the machine's speed
of that moment divides out. Use it before an evaluation change lands:

    .venv/bin/python scripts/checks/compare_builds.py main . --only ply2 --rounds 4

Each build runs as its own process with its own sources on ``PYTHONPATH`` (and so its
own numba cache folder); the first run of a build compiles its kernels (minutes). The
rounds' raw JSON goes to ``--out`` as lines, one a run, so a long comparison can be
read while it runs. Exit 2 on bad input, 1 when a run fails.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# the figures compared by default: speed first, then the tree's size (equal lookups: the same search)
FIGURES = (
    "ply2_decision_median_s",
    "ply2_decision_p99_s",
    "ply2.ratio_vs_gnubg_2ply",
    "ply2.cache.lookups",
    "ply0_decisions_per_s",
    "ply0.ratio_vs_gnubg_nn",
    "eval_positions_per_s",
    "rollout_games_per_s",
)


def build_tree(rev: str, work_dir: Path) -> tuple[str, Path]:
    """(the commit, a checkout of it): ``.`` is this checkout itself."""
    if rev == ".":
        return "working tree", REPO
    commit = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--verify", f"{rev}^{{commit}}"], capture_output=True, text=True
    )
    if commit.returncode != 0:
        raise SystemExit(f"compare_builds: {rev!r} is not a commit of this repository")
    sha = commit.stdout.strip()
    tree = work_dir / sha[:12]
    if not (tree / "fibsbot").is_dir():
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(tree), sha], check=True)
    return sha[:12], tree


def bench_once(tree: Path, only: list[str], net: str | None) -> dict:
    """One `fibsbot bench --json` of the build in ``tree``, in a process of its own."""
    args = [sys.executable, "-m", "fibsbot.cli", "bench", "--json", "--only", *only]
    if net:
        args += ["--net", net]
    env = dict(os.environ, PYTHONPATH=str(tree))
    done = subprocess.run(args, cwd=tree, env=env, capture_output=True, text=True)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"bench in {tree} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return json.loads(lines[-1])


def figure(result: dict, path: str) -> float | None:
    value: object = result
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def orders(builds: list[str], rounds: int) -> list[list[str]]:
    """The builds' order in each round: as given, then reversed, and so on."""
    return [list(builds) if r % 2 == 0 else list(reversed(builds)) for r in range(rounds)]


def _spread(values: list[float], counted: str) -> dict:
    """Median, range and how many (named ``counted``: runs, or rounds) of ``values``."""
    return {"median": statistics.median(values), "min": min(values), "max": max(values), counted: len(values)}


def summarise(runs: list[dict], builds: list[str], figures: tuple[str, ...]) -> dict:
    """Per build, each figure's median and range; per later build, its ratio to the
    first build's within each round, and the median and range of those ratios."""
    out: dict = {"builds": {}, "ratios_to_first": {}}
    by_round: dict[int, dict[str, dict]] = {}
    for run in runs:
        by_round.setdefault(run["round"], {})[run["build"]] = run["result"]
    for build in builds:
        row = {}
        for name in figures:
            values = [figure(r[build], name) for r in by_round.values() if build in r]
            values = [v for v in values if v is not None]
            if values:
                row[name] = _spread(values, "runs")
        out["builds"][build] = row
    first = builds[0]
    for build in builds[1:]:
        row = {}
        for name in figures:
            ratios = []
            for results in by_round.values():
                a, b = (figure(results[x], name) if x in results else None for x in (first, build))
                if a and b is not None:
                    ratios.append(b / a)
            if ratios:
                row[name] = _spread(ratios, "rounds")
        out["ratios_to_first"][build] = row
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("revs", nargs="+", help="commits to compare (the first is the reference); '.' is the working tree")
    p.add_argument("--only", nargs="+", default=["ply2"], help="bench names, as `fibsbot bench --only` (default ply2)")
    p.add_argument("--rounds", type=int, default=4, help="timed runs of each build (default 4)")
    p.add_argument("--net", default=None, help="`fibsbot bench --net` (default: each build's default net)")
    p.add_argument("--work-dir", type=Path, default=REPO / ".builds", help="where the builds are checked out")
    p.add_argument("--out", type=Path, default=None, help="append each run's JSON here as a line")
    args = p.parse_args(argv)
    if len(args.revs) < 2 or args.rounds < 1:
        p.error("two builds or more, and one round or more")
    trees = dict(build_tree(rev, args.work_dir) for rev in args.revs)
    builds = list(trees)
    runs = []
    try:
        for build in builds:  # compile, untimed
            print(f"compiling {build} ...", file=sys.stderr, flush=True)
            bench_once(trees[build], args.only, args.net)
        for number, order in enumerate(orders(builds, args.rounds)):
            for build in order:
                started = time.monotonic()
                result = bench_once(trees[build], args.only, args.net)
                run = {
                    "round": number,
                    "build": build,
                    "wall_s": round(time.monotonic() - started, 1),
                    "result": result,
                }
                runs.append(run)
                if args.out:
                    with open(args.out, "a") as handle:
                        handle.write(json.dumps(run) + "\n")
                shown = {name: figure(result, name) for name in FIGURES if figure(result, name) is not None}
                print(f"round {number} {build}: {json.dumps(shown)}", file=sys.stderr, flush=True)
    except RuntimeError as exc:
        print(f"compare_builds: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(summarise(runs, builds, FIGURES), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
