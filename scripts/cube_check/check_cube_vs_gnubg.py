#!/usr/bin/env python3
"""Compare our cube decisions with GNU Backgammon's on self-play positions.

Positions come from self-play of our default net (0-ply, seeded dice), kept when a
cube decision is plausible (our net's or gnubg's 0-ply winning chance for the side
on roll between 0.55 and 0.95), and each is given one of several match scores and
cube states in turn.  gnubg (``/usr/games/gnubg``) answers ``hint`` for each at the
chosen ply; we decide with ``engine.cube.decision`` from three probability sources:

* ``net``: our default net at 0-ply (what the bot plays with);
* ``gnubg-nn``: gnubg's own 0-ply nets in-process (PyPI gnubg-nn), which separates
  our cube theory from our net's probabilities;
* ``gnubg-shown``: the cubeless probabilities gnubg prints with its hint (at 0-ply
  these are exactly what gnubg's own decision used).

A decision agrees when the action (no double, double/take, double/drop, too good)
and the take are the same; gnubg's "optional" doubles count either way.

    python scripts/cube_check/check_cube_vs_gnubg.py --positions 320 --seed 1 --ply 0
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

# run from a checkout without installing: make the repository root importable
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.eval.evaluator import Evaluator  # noqa: E402

# SCENARIOS, gnubg_action and parse_hint: the tests read them through this script
from scripts.cube_check.cases import (  # noqa: E402
    SCENARIOS,  # noqa: F401
    PlayerDecider,
    ProbabilitySource,
    choose_cases,
    gnubg_nn_source,
    net_source,
)
from scripts.cube_check.comparison import compare, print_report  # noqa: E402
from scripts.cube_check.gnubg_hint import GNUBG, gnubg_action, gnubg_hints, parse_hint  # noqa: E402, F401

SOURCES = ("net", "gnubg-nn", "gnubg-shown")


def measure(
    count: int,
    seed: int,
    ply: int,
    evaluator: Evaluator,
    sources: dict[str, ProbabilitySource] | None = None,
    position_evaluator: Evaluator | None = None,
) -> dict:
    """Sample ``count`` positions from the self-play of ``position_evaluator`` (default
    ``evaluator``) and compare the decisions from each probability source (default:
    the net and gnubg-nn) with gnubg's at ``ply``; another source, a deeper search
    say, is one more entry.  A fixed ``position_evaluator`` compares nets on one set."""
    if sources is None:
        sources = {"net": net_source(evaluator)}
        try:
            sources["gnubg-nn"] = gnubg_nn_source()
        except ImportError:
            print("check_cube_vs_gnubg: gnubg-nn missing, skipping that source", file=sys.stderr)
    first = next((s for s in sources.values() if not isinstance(s, PlayerDecider)), net_source(evaluator))
    if position_evaluator is not None:
        first = net_source(position_evaluator)
    cases = choose_cases(count, seed, first, sources.get("gnubg-nn"), position_evaluator or evaluator)
    return compare(cases, gnubg_hints(cases, ply), sources)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=320, help="cube positions to compare (default 320)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the self-play games (default 1)")
    parser.add_argument("--ply", type=int, default=0, choices=range(0, 5), help="gnubg's cube evaluation ply")
    parser.add_argument("--net", default="default", help="our net (default: the shipped default)")
    parser.add_argument(
        "--position-net",
        help="net whose self-play gives the positions (default: --net), so "
        "that several nets can be compared on one set",
    )
    parser.add_argument(
        "--our-ply",
        type=int,
        default=0,
        choices=(0, 1, 2),
        help="our evaluation depth for the cube probabilities (default 0)",
    )
    parser.add_argument(
        "--player",
        action="append",
        default=[],
        help="a player whose whole cube decision is compared (net:NAME@LEVEL, cubeful at its "
        "depth; repeatable); the first one given is the primary source",
    )
    parser.add_argument(
        "--referee",
        action="store_true",
        help="also judge every decision (ours and gnubg's) by Open Sage's cubeful 3-ply (needs the bgsage extra)",
    )
    parser.add_argument("--show", type=int, default=15, help="disagreements to list (default 15)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the report")
    args = parser.parse_args(argv)
    if args.positions < 1:
        parser.error("--positions must be at least 1")
    if not (GNUBG.is_file() and os.access(GNUBG, os.X_OK)):
        print(f"check_cube_vs_gnubg: error: GNU Backgammon not found at {GNUBG}", file=sys.stderr)
        return 2
    from nets.player import resolve_net_path

    start = time.perf_counter()
    evaluator = Evaluator.load(resolve_net_path(args.net))
    sources = None
    if args.our_ply:
        from engine.players.agent import Agent

        agent = Agent(evaluator, ply=args.our_ply)
        sources = {f"net@{args.our_ply}": lambda board: agent.probabilities(np.ascontiguousarray(board, np.int8))}
        try:
            sources["gnubg-nn"] = gnubg_nn_source()
        except ImportError:
            pass
    if args.player:
        deciders = {spec: PlayerDecider(spec) for spec in args.player}
        sources = deciders | (sources or {"net": net_source(evaluator)})
    position_evaluator = Evaluator.load(resolve_net_path(args.position_net)) if args.position_net else None
    summary = measure(args.positions, args.seed, args.ply, evaluator, sources, position_evaluator)
    if args.referee:
        from scripts.cube_check.cube_referee import judge, print_judgement

        summary["referee"] = judge(summary["rows"])
    seconds = time.perf_counter() - start
    if args.json:
        print(
            json.dumps(
                {"positions": args.positions, "seed": args.seed, "ply": args.ply, "seconds": round(seconds, 1)}
                | summary
            )
        )
    else:
        print_report(summary, args, seconds, args.show)
        if args.referee:
            print_judgement(summary["referee"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
