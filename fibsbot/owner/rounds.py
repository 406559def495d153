"""The retrain rounds of a data directory: every ``fibsbot retrain`` that ran there.

``fibsbot retrain`` appends each round's report to ``DIR/training/retrains.jsonl``
(``fibsbot.owner.readers.retrains`` reads it); here each becomes what an owner running
the loop on a timer wants to see of it: when, how many positions it labelled, the
gate's figures with their standard errors, promoted or not and why, or why it failed.
``fibsbot status`` lists the latest rounds, ``fibsbot report`` every one.
"""

from __future__ import annotations

import datetime as dt
import re

RECENT_ROUNDS = 10  # the text lists this many rounds; --json and the report list them all
# the gate's reason repeats the figures shown beside it; its verdict follows them
_GATE_VERDICT = re.compile(r"^real-life benchmark \(\d+ decisions\): .*?: (?=not better|worse|promoted)")


def earlier_figures(report: dict, net: str) -> dict:
    """A net's figures in a report from before the real-life gate (benchmark error, ppg vs
    pubeval); since then a report's "candidate" is where a refused candidate is kept, a path."""
    figures = report.get(net)
    return figures if isinstance(figures, dict) else {}


def completed_retrains(history: list[dict]) -> list[dict]:
    """The retrains that reached an end (a verdict, or nothing new), not those that failed."""
    return [report for report in history if not report.get("failed")]


def retrain_rounds(history: list[dict]) -> list[dict]:
    """Each retrain, oldest first: when, what it labelled, the gate's figures with their
    standard errors, and whether it promoted its candidate (or why it failed)."""
    return [_round(number, report) for number, report in enumerate(history, 1)]


def _paired(figures: dict | None) -> dict | None:
    """Both nets' errors on a benchmark and the paired difference, where it was measured."""
    if not figures or figures.get("incumbent_error") is None:
        return None
    keys = ("version", "positions", "incumbent_error", "candidate_error", "difference", "stderr")
    paired = {key: figures.get(key) for key in keys}
    if figures.get("method") == "choices":  # the gate's choices compared (``nets.train.choices``)
        paired.update({key: figures.get(key) for key in ("method", "differing", "rolled_out", "games")})
    return paired


def _round(number: int, report: dict) -> dict:
    duel, gnubg = report.get("head_to_head") or {}, report.get("vs_gnubg") or {}
    inc, cand = earlier_figures(report, "incumbent"), earlier_figures(report, "candidate")
    theirs, ours = gnubg.get("candidate") or {}, gnubg.get("incumbent") or {}
    return {
        "round": number,
        "started": report.get("started"),
        "finished": report.get("finished"),
        "seconds": report.get("seconds"),
        "failed": report.get("failed"),
        "labeller": report.get("labeller"),
        "positions_labelled": report.get("positions_labelled"),
        "training_positions": report.get("training_positions"),
        "real_life_choices": _paired(report.get("real_life_choices")),
        "real_life_benchmark": _paired(report.get("real_life_benchmark")),
        "head_to_head": (
            {key: duel.get(key) for key in ("games", "ppg", "stderr")} if duel.get("ppg") is not None else None
        ),
        "vs_gnubg": (
            {
                "games": gnubg.get("games"),
                "incumbent_ppg": ours.get("ppg"),
                "candidate_ppg": theirs.get("ppg"),
                "stderr": theirs.get("stderr"),
            }
            if theirs.get("ppg") is not None
            else None
        ),
        "shipped_benchmark": _paired(report.get("shipped_benchmark")),
        # retrains before the real-life gate: the shipped benchmark and ppg against pubeval
        "earlier_gate": (
            {
                "error_before": inc.get("error"),
                "error_after": cand.get("error"),
                "ppg_before": inc.get("ppg"),
                "ppg_after": cand.get("ppg"),
            }
            if cand.get("error") is not None
            else None
        ),
        "promoted": bool(report.get("promoted")),
        "version": report.get("version"),
        "reason": report.get("reason") or "",
    }


def _when(stamp: str | None) -> str:
    """An ISO time as ``2026-11-27 10:15 UTC`` (as written, when it is not one)."""
    if not stamp:
        return "time unknown"
    try:
        moment = dt.datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    if moment.tzinfo is not None:
        moment = moment.astimezone(dt.UTC)
    return moment.strftime("%Y-%m-%d %H:%M") + (" UTC" if moment.tzinfo is not None else "")


def _took(seconds) -> str:
    if seconds is None:
        return ""
    seconds = float(seconds)
    if seconds < 90:
        return f", {seconds:.0f} s"
    return f", {seconds / 60:.0f} min" if seconds < 5400 else f", {seconds / 3600:.1f} h"


def _paired_text(figures: dict) -> str:
    """Both nets' errors and their paired difference, as ``_paired`` keeps them."""
    return (
        f"{figures['incumbent_error']:.3f} -> {figures['candidate_error']:.3f}, "
        f"{figures['difference']:+.3f} +/- {_number(figures['stderr'], '.3f')}"
    )


def round_figures(r: dict) -> list[str]:
    """The gate's figures of one round as short phrases, each with its standard error."""
    parts = []
    choices = r.get("real_life_choices")
    if choices:
        parts.append(
            f"real-life choices ({choices['positions']} decisions, {choices['differing']} differ) "
            + _paired_text(choices)
        )
    real = r.get("real_life_benchmark")
    if real:
        parts.append(
            f"real-life benchmark v{real.get('version') or '?'} ({real['positions']} decisions) {_paired_text(real)}"
        )
    duel = r.get("head_to_head")
    if duel:
        parts.append(
            f"head to head {duel['ppg']:+.4f} +/- {_number(duel['stderr'], '.4f')} ppg ({duel['games']} games)"
        )
    gnubg = r.get("vs_gnubg")
    if gnubg:
        parts.append(
            f"vs gnubg 0-ply {_number(gnubg['incumbent_ppg'], '+.4f')} -> {gnubg['candidate_ppg']:+.4f} "
            f"+/- {_number(gnubg['stderr'], '.4f')} ppg"
        )
    shipped = r.get("shipped_benchmark")
    if shipped:
        parts.append(f"shipped benchmark {_paired_text(shipped)}")
    earlier = r.get("earlier_gate")
    if earlier:
        parts.append(
            f"benchmark error {_number(earlier['error_before'], '.2f')} -> {_number(earlier['error_after'], '.2f')}, "
            f"ppg vs pubeval {_number(earlier['ppg_before'], '+.3f')} -> {_number(earlier['ppg_after'], '+.3f')}"
        )
    return parts


def round_verdict(r: dict) -> str:
    """Promoted or not, and why, without the figures the reason repeats."""
    if r.get("failed"):
        return f"failed: {r['failed']}"
    why = _GATE_VERDICT.sub("", r.get("reason") or "")
    if r.get("promoted"):
        return f"promoted as {r.get('version')}"
    if why.startswith("promoted"):  # the gate passed it, but the retrain was told not to promote
        return "not promoted (--no-promote), though the gate passed it"
    return "not promoted" + (f": {why}" if why else "")


def round_labelled(r: dict) -> str:
    """What a round labelled, and into a training set of what size."""
    return (
        f"{_number(r['positions_labelled'], 'd')} positions labelled"
        + (f" by {r['labeller']}" if r.get("labeller") else "")
        + (f" ({r['training_positions']} in the set)" if r.get("training_positions") is not None else "")
    )


def round_when(r: dict) -> str:
    """When a round finished, and how long it took."""
    return _when(r.get("finished")) + _took(r.get("seconds"))


def format_retrain_rounds(rounds: list[dict]) -> list[str]:
    """The status lines of the latest rounds, oldest first."""
    if not rounds:
        return []
    shown = rounds[-RECENT_ROUNDS:]
    earlier = len(rounds) - len(shown)
    lines = [
        f"retrain rounds: {len(rounds)}"
        + (f" (the last {len(shown)} below; --json and fibsbot report list them all)" if earlier else "")
    ]
    for r in shown:
        head = f"  {r['round']}. {round_when(r)}: "
        if r.get("failed"):
            lines.append(head + round_verdict(r))
            continue
        lines.append(head + "; ".join([round_labelled(r), *round_figures(r), round_verdict(r)]))
    return lines


def _number(value, spec: str) -> str:
    return "-" if value is None else format(value, spec)
