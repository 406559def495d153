#!/usr/bin/env python3
"""Compare ``fibsbot analyse`` with GNU Backgammon's analysis of the same matches.

For each ``.mat`` file gnubg (``/usr/games/gnubg``) imports the match, analyses it
with chequer play and cube decisions at ``--ply`` (``analyse match``) and prints
``show statistics match``; our analysis runs at the same depth.  Per player it
prints the overall error rate (mEMG per unforced move or close cube decision, as
gnubg divides it), the chequer-play rate, and the counts both sides agree on
(total and unforced moves, cube decisions), then how many players' overall rates
lie within the tolerance: ``--abs`` mEMG or ``--rel`` of gnubg's rate, whichever
is larger.

    python scripts/checks/compare_analysis_vs_gnubg.py runs/arena/matches/*.mat --ply 2 --json out.json
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

GNUBG = "/usr/games/gnubg"
_SECTIONS = {
    "Chequerplay statistics": "chequer",
    "Cube statistics": "cube",
    "Overall statistics": "overall",
    "Luck statistics": "luck",
}
_RATE = re.compile(
    r"^(Error|Luck) rate mEMG \(MWC\)\s+([-+]?\d+\.\d+)\s+\(\s*([-+]?\d+\.\d+)%\)"
    r"\s+([-+]?\d+\.\d+)\s+\(\s*([-+]?\d+\.\d+)%\)"
)
_COUNT = re.compile(
    r"^(Total moves|Unforced moves|Total cube decisions|Close or actual cube decisions)\s+(\d+)\s+(\d+)"
)


def gnubg_statistics(path: Path, ply: int) -> dict:
    """gnubg's per-player rates and counts: {"overall": [p0, p1], "chequer": ..., "Unforced moves": ...}."""
    commands = [
        "set player 0 human",
        "set player 1 human",
        f"import mat {path}",
        f"set analysis chequerplay evaluation plies {ply}",
        f"set analysis cubedecision evaluation plies {ply}",
        "analyse match",
        "show statistics match",
    ]
    with tempfile.NamedTemporaryFile("w", suffix=".gnubg") as script:
        script.write("\n".join(commands) + "\n")
        script.flush()
        out = subprocess.run(
            [GNUBG, "-t", "-q", "-r", "-c", script.name],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=900,
        ).stdout
    found: dict = {}
    section = None
    for line in out.splitlines():
        line = line.strip()
        section = _SECTIONS.get(line, section)
        rate = _RATE.match(line)
        if rate and section:
            # gnubg prints errors and bad luck as negative figures: keep the sizes of errors
            sign = -1.0 if rate.group(1) == "Error" else 1.0
            found[section] = [sign * float(rate.group(2)), sign * float(rate.group(4))]
        count = _COUNT.match(line)
        if count:
            found[count.group(1)] = [int(count.group(2)), int(count.group(3))]
    if "overall" not in found:
        raise RuntimeError(f"{path}: gnubg printed no statistics:\n{out[-1500:]}")
    return found


def ours(path: Path, ply: int, agent) -> dict:
    from fibsbot.owner.analysis import Analyser
    from fibsbot.owner.matread import read_mat

    analysis = Analyser(agent, ply).analyse(read_mat(path))
    s = analysis.stats
    return {
        "overall": [x.overall_rate for x in s],
        "chequer": [x.chequer_rate for x in s],
        "cube": [x.cube_rate for x in s],
        "luck": [x.luck_rate for x in s],
        "Total moves": [x.moves for x in s],
        "Unforced moves": [x.unforced for x in s],
        "Total cube decisions": [x.cube_decisions for x in s],
        "Close or actual cube decisions": [x.close_cube for x in s],
        "players": list(analysis.players),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--ply", type=int, default=2)
    parser.add_argument("--net", default="default")
    parser.add_argument("--abs", type=float, default=5.0, help="tolerance in mEMG (default 5)")
    parser.add_argument("--rel", type=float, default=0.35, help="tolerance as a share of gnubg's rate (default 0.35)")
    parser.add_argument("--json", type=Path, help="write every figure here")
    args = parser.parse_args()

    from nets.player import load_agent

    agent = load_agent(f"net:{args.net}", ply=args.ply)
    rows, within, players = [], 0, 0
    print(f"{'match':44s} {'player':9s} {'overall ours':>12s} {'gnubg':>7s} {'chequer ours':>12s} {'gnubg':>7s}  ok")
    for path in args.files:
        theirs, mine = gnubg_statistics(path, args.ply), ours(path, args.ply, agent)
        for k in (0, 1):
            gap = abs(mine["overall"][k] - theirs["overall"][k])
            ok = gap <= max(args.abs, args.rel * abs(theirs["overall"][k]))
            within += ok
            players += 1
            print(
                f"{path.name[:44]:44s} {mine['players'][k][:9]:9s} {mine['overall'][k]:12.1f} "
                f"{theirs['overall'][k]:7.1f} {mine['chequer'][k]:12.1f} {theirs['chequer'][k]:7.1f}  "
                f"{'yes' if ok else 'no'}",
                flush=True,
            )
        rows.append({"file": str(path), "ours": mine, "gnubg": theirs})
    print(f"{within} of {players} players within max({args.abs} mEMG, {args.rel:.0%} of gnubg's rate)")
    if args.json:
        args.json.write_text(
            json.dumps(
                {"ply": args.ply, "abs": args.abs, "rel": args.rel, "rows": rows, "within": within, "players": players},
                indent=1,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
