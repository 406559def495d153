"""Our cube decisions set against gnubg's for ``check_cube_vs_gnubg.py``, and its report.

A decision agrees when the action (no double, double/take, double/drop, too good)
and the take are the same; gnubg's "optional" doubles count either way.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from engine.cube.decision import DOUBLE_DROP, DOUBLE_TAKE, NO_DOUBLE, TOO_GOOD, cube_decision, cube_life
from engine.rules.ids import position_id, xgid
from scripts.cube_check.cases import SCENARIOS, Case, PlayerDecider, ProbabilitySource
from scripts.cube_check.gnubg_hint import GnubgCube


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
