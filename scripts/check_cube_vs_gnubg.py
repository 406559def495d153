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

    python scripts/check_cube_vs_gnubg.py --positions 320 --seed 1 --ply 0
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

# run from a checkout without installing: make the repository root importable
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.cube.decision import DOUBLE_DROP, DOUBLE_TAKE, NO_DOUBLE, TOO_GOOD, cube_decision, cube_life  # noqa: E402
from engine.eval.evaluator import Evaluator, best_candidate  # noqa: E402
from engine.rules.dice import game_seed, opening_roll, roll  # noqa: E402
from engine.rules.ids import CENTRED, MatchState, position_id, xgid  # noqa: E402
from engine.rules.moves import MoveBuffers, generate_moves  # noqa: E402
from engine.rules.position import Position  # noqa: E402

GNUBG = Path("/usr/games/gnubg")
ProbabilitySource = Callable[[np.ndarray], np.ndarray]
PLAUSIBLE = (0.55, 0.95)
MAX_PER_GAME = 4
MAX_TURNS = 400
SOURCES = ("net", "gnubg-nn", "gnubg-shown")


@dataclass(frozen=True)
class Scenario:
    """A score and cube seen from the side on roll (player 0 here)."""

    label: str
    away_roller: int = 0  # 0 and 0: money
    away_other: int = 0
    cube: int = 1
    owned: bool = False  # by the side on roll; else centred

    def state(self) -> MatchState:
        owner = 0 if self.owned else CENTRED
        if not self.away_roller:
            return MatchState(cube=self.cube, cube_owner=owner, on_roll=0, jacoby=True)
        length = max(self.away_roller, self.away_other) + 2
        return MatchState(
            cube=self.cube,
            cube_owner=owner,
            on_roll=0,
            match_length=length,
            score=(length - self.away_roller, length - self.away_other),
        )


SCENARIOS = (
    Scenario("money centred"),
    Scenario("money cube 2 owned", cube=2, owned=True),
    Scenario("3-away/3-away", 3, 3),
    Scenario("2-away/4-away", 2, 4),
    Scenario("4-away/2-away", 4, 2),
    Scenario("3-away/1-away post-Crawford", 3, 1),
    Scenario("5-away/5-away", 5, 5),
    Scenario("5-away/5-away cube 2 owned", 5, 5, cube=2, owned=True),
    Scenario("7-away/4-away", 7, 4),
)


@dataclass
class Case:
    board: np.ndarray
    scenario: Scenario
    game: int
    turn: int

    @property
    def state(self) -> MatchState:
        return self.scenario.state()


# ---------------------------------------------------------------- positions


class PlayerDecider:
    """A whole player's cube decision (``net:NAME@LEVEL``: cubeful at its depth),
    not a probability source fed through 0-ply Janowski."""

    def __init__(self, spec: str) -> None:
        from nets.player import load_agent

        self.agent = load_agent(spec)

    def decide(self, board: np.ndarray, state: MatchState):
        choice = self.agent.double_decision(np.ascontiguousarray(board, np.int8), state)
        return choice, np.asarray(choice.probs) if choice.probs else np.zeros(5)


def net_source(evaluator: Evaluator) -> ProbabilitySource:
    return lambda board: np.asarray(evaluator.probabilities(board), dtype=np.float64)


def gnubg_nn_source() -> ProbabilitySource:
    import gnubg_nn  # gnubg-nn boards have the side on roll in row 1

    return lambda board: np.asarray(gnubg_nn.probabilities(board[::-1].tolist(), 0), dtype=np.float64)


def selfplay_boards(evaluator: Evaluator, seed: int) -> Iterator[tuple[np.ndarray, int, int]]:
    """(board before the roll, game, turn) from endless 0-ply self-play of the net."""
    buffers = MoveBuffers()
    game = 0
    while True:
        seed_value = np.uint64(int(game_seed(seed, game)))
        board = Position.initial().board.copy()
        dice = opening_roll(seed_value)
        for turn in range(MAX_TURNS):
            if turn:
                dice = roll(seed_value, turn)
                yield board.copy(), game, turn
            n = generate_moves(board, int(dice[0]), int(dice[1]), *buffers.args())
            equities, _ = evaluator.move_equities(buffers.boards[:n])
            after = buffers.boards[best_candidate(buffers.boards[:n], n, equities)]
            if after[0].sum() == 0:
                break
            board = after[::-1].copy()
        game += 1


def choose_cases(
    count: int, seed: int, ours: ProbabilitySource, theirs: ProbabilitySource | None, evaluator: Evaluator
) -> list[Case]:
    rng = np.random.default_rng(seed)
    cases: list[Case] = []
    per_game: dict[int, int] = defaultdict(int)
    low, high = PLAUSIBLE
    for board, game, turn in selfplay_boards(evaluator, seed):
        if per_game[game] >= MAX_PER_GAME or rng.random() < 0.5:
            continue  # spread the sample over many games
        wins = [ours(board)[0]] + ([theirs(board)[0]] if theirs else [])
        if not any(low <= w <= high for w in wins):
            continue
        per_game[game] += 1
        cases.append(Case(board, SCENARIOS[len(cases) % len(SCENARIOS)], game, turn))
        if len(cases) == count:
            return cases
    raise AssertionError("unreachable")


# ---------------------------------------------------------------- gnubg


_MARKER_COMMAND = "show matchlength"
_MARKER = re.compile(r"New matches default to \d+ points?\.")
_PROBS = re.compile(r"^\s*(\d\.\d+) (\d\.\d+) (\d\.\d+) - (\d\.\d+) (\d\.\d+) (\d\.\d+)\s*$", re.MULTILINE)
_EQUITY = re.compile(
    r"^\s*\d\.\s+(No (?:re)?double|(?:Re)?[Dd]ouble, (?:take|pass|beaver))\s+([+-]\d+\.\d+)", re.MULTILINE
)
_PROPER = re.compile(r"Proper cube action:\s*([^(\n]+?)\s*(?:\(|$)", re.MULTILINE)


@dataclass
class GnubgCube:
    action: str  # one of engine.cube.decision.ACTIONS, or "unavailable"
    take: bool | None
    optional: bool
    text: str
    probs: np.ndarray | None
    equities: dict[str, float]


def gnubg_action(text: str) -> tuple[str, bool | None, bool]:
    """(action, take, optional) of gnubg's "Proper cube action" text."""
    lower = text.lower().strip()
    take = True if lower.endswith(("take", "beaver")) else False if lower.endswith("pass") else None
    optional = lower.startswith("optional")
    if lower.startswith("too good"):
        return TOO_GOOD, take, optional
    if lower.startswith(("no double", "no redouble", "never")):
        return NO_DOUBLE, take, optional
    if "double" in lower:
        return (DOUBLE_TAKE if take else DOUBLE_DROP), take, optional
    raise ValueError(f"unknown gnubg cube action {text!r}")


def parse_hint(text: str) -> GnubgCube:
    """gnubg's answer to ``hint`` before a roll (EMG output, 6 digits)."""
    if "You cannot double" in text or "Proper cube action" not in text:
        return GnubgCube("unavailable", None, False, "", None, {})
    proper = _PROPER.search(text).group(1)
    action, take, optional = gnubg_action(proper)
    probs = None
    if found := _PROBS.search(text):
        values = [float(v) for v in found.groups()]
        probs = np.array([values[0], values[1], values[2], values[4], values[5]])
    equities = {}
    for name, value in _EQUITY.findall(text):
        key = (
            "no_double"
            if name.lower().startswith("no")
            else ("double_drop" if name.endswith("pass") else "double_take")
        )
        equities[key] = float(value)
    return GnubgCube(action, take, optional, proper, probs, equities)


def gnubg_hints(cases: list[Case], ply: int) -> list[GnubgCube]:
    commands = [
        "set player 0 human",
        "set player 1 human",
        "set threads 1",
        "set output digits 6",
        "set output mwc off",
        f"set evaluation cubedecision evaluation plies {ply}",
        _MARKER_COMMAND,
    ]
    for case in cases:
        commands += [f"set xgid {xgid(case.board, case.state)}", "hint", _MARKER_COMMAND]
    with tempfile.NamedTemporaryFile("w", suffix=".gnubg", delete=False) as script:
        script.write("\n".join(commands) + "\n")
    try:
        result = subprocess.run(
            [str(GNUBG), "-t", "-q", "-r", "-c", script.name],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60 + len(cases) * (1 if ply < 2 else 10),
        )
    finally:
        os.unlink(script.name)
    chunks = _MARKER.split(result.stdout)
    if len(chunks) != len(cases) + 2:
        raise RuntimeError(
            f"gnubg answered {len(chunks) - 2} of {len(cases)} positions; stderr: {result.stderr[-2000:]}"
        )
    return [parse_hint(chunk) for chunk in chunks[1:-1]]


# ---------------------------------------------------------------- comparison


def agrees(ours, theirs: GnubgCube) -> bool:
    if theirs.optional and ours.action in (NO_DOUBLE, DOUBLE_TAKE, DOUBLE_DROP, TOO_GOOD):
        return ours.take == theirs.take or theirs.take is None
    return ours.action == theirs.action and ours.take == theirs.take


def _rounded(values: dict[str, float]) -> dict[str, float]:
    return {key: round(float(value), 4) for key, value in values.items()}


def compare(cases: list[Case], answers: list[GnubgCube], sources: dict[str, ProbabilitySource]) -> dict:
    """Agreement per probability source, overall and per scenario, with the rows."""
    totals = {name: [0, 0] for name in [*sources, "gnubg-shown"]}
    by_scenario = {s.label: {name: [0, 0] for name in totals} for s in SCENARIOS}
    double_agree = {name: 0 for name in totals}
    take_agree = {name: 0 for name in totals}
    rows = []
    for case, answer in zip(cases, answers):
        if answer.action == "unavailable":
            continue
        life = cube_life(case.board)
        row = {
            "position_id": position_id(case.board),
            "xgid": xgid(case.board, case.state),
            "scenario": case.scenario.label,
            "game": case.game,
            "turn": case.turn,
            "cube_life": life,
            "gnubg": {
                "action": answer.action,
                "take": answer.take,
                "text": answer.text,
                "probs": None if answer.probs is None else answer.probs.round(4).tolist(),
                "equities": answer.equities,
            },
            "ours": {},
        }
        decisions = {}
        for name, source in sources.items():
            if isinstance(source, PlayerDecider):
                decisions[name] = source.decide(case.board, case.state)
            else:
                probs = source(case.board)
                decisions[name] = (cube_decision(probs, case.state, cube_life=life), probs)
        if answer.probs is not None:
            decisions["gnubg-shown"] = (cube_decision(answer.probs, case.state, cube_life=life), answer.probs)
        for name, (decision, probs) in decisions.items():
            ok = agrees(decision, answer)
            for tally in (totals[name], by_scenario[case.scenario.label][name]):
                tally[0] += ok
                tally[1] += 1
            double_agree[name] += decision.double == (answer.action in (DOUBLE_TAKE, DOUBLE_DROP))
            take_agree[name] += decision.take == answer.take
            row["ours"][name] = {
                "action": decision.action,
                "take": decision.take,
                "agree": ok,
                "probs": np.round(probs, 4).tolist(),
                "equities": _rounded(decision.equities),
            }
        rows.append(row)
    match_rows = [row for row in rows if not row["scenario"].startswith("money")]
    pct = lambda ok, n: round(100.0 * ok / n, 1) if n else None  # noqa: E731
    counts = defaultdict(int)
    for row in rows:
        counts[row["scenario"]] += 1
    return {
        "primary": next(iter(sources)),
        "compared": len(rows),
        "unavailable": sum(a.action == "unavailable" for a in answers),
        "agreement": {name: pct(*totals[name]) for name in totals},
        "match_positions": len(match_rows),
        "match_agreement": {
            name: pct(
                sum(r["ours"][name]["agree"] for r in match_rows if name in r["ours"]),
                sum(name in r["ours"] for r in match_rows),
            )
            for name in totals
        },
        "double_agreement": {name: pct(double_agree[name], totals[name][1]) for name in totals},
        "take_agreement": {name: pct(take_agree[name], totals[name][1]) for name in totals},
        "by_scenario": {
            label: {name: pct(*t) for name, t in tallies.items()} | {"positions": counts[label]}
            for label, tallies in by_scenario.items()
        },
        "rows": rows,
    }


def _describe(action: str, take: bool | None) -> str:
    if action in (DOUBLE_TAKE, DOUBLE_DROP):
        return action
    return f"{action}, {'take' if take else 'pass'}"


def print_report(summary: dict, args, seconds: float, show: int) -> None:
    print(
        f"compared {summary['compared']} cube decisions with gnubg {args.ply}-ply "
        f"(seed {args.seed}; {summary['unavailable']} where gnubg allowed no double) in {seconds:.1f} s"
    )
    print("agreement (action and take):      " + ", ".join(f"{k} {v}%" for k, v in summary["agreement"].items()))
    print(
        f"match play only ({summary['match_positions']}):           "
        + ", ".join(f"{k} {v}%" for k, v in summary["match_agreement"].items())
    )
    print("double/no double agreement:       " + ", ".join(f"{k} {v}%" for k, v in summary["double_agreement"].items()))
    print("take/drop agreement:              " + ", ".join(f"{k} {v}%" for k, v in summary["take_agreement"].items()))
    print("by score and cube:")
    for label, figures in summary["by_scenario"].items():
        print(
            f"  {label:30s} {figures['positions']:4d} positions  "
            + "  ".join(f"{k} {figures[k]}%" for k in summary["agreement"])
        )
    primary = summary["primary"]
    wrong = [row for row in summary["rows"] if not row["ours"][primary]["agree"]]
    print(f"disagreements of the decisions from {primary}: {len(wrong)} (first {min(show, len(wrong))})")
    for row in wrong[:show]:
        gnubg, net = row["gnubg"], row["ours"][primary]
        nn = row["ours"].get("gnubg-nn")
        print(
            f"  {row['xgid']} [{row['scenario']}]\n"
            f"    gnubg: {gnubg['text']}, probs {gnubg['probs']}, {gnubg['equities']}\n"
            f"    ours:  {_describe(net['action'], net['take'])}, probs {net['probs']}, "
            f"{net['equities']}"
            + (f"\n    ours from gnubg-nn probs: {_describe(nn['action'], nn['take'])}, {nn['equities']}" if nn else "")
        )


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
        from scripts.cube_referee import judge, print_judgement

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
