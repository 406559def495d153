"""The gate of ``fibsbot retrain``: whether a candidate net replaces the incumbent.

A candidate trained on a few thousand new positions differs from the incumbent by
less than the noise of any one measurement, so every figure here is paired:

* **Real-life choices** (``nets.train.choices``): both nets choose a move in every
  held-out logged decision, and where they differ both results are rolled out on the
  same dice; the figure is the mean difference of their equity losses (x1000) over all
  the decisions, with the standard error of that difference, which is much smaller than
  either net's own error bar because most decisions are easy for both.  (The labelled
  real-life benchmark, ``nets.train.real_life``, judged the same way where a caller
  passes its figures.)
* **Head to head** on duplicate dice: the candidate against the incumbent, each pair
  of games played twice with the seats swapped, so that the luck cancels.
* The shipped benchmark and the ppg against gnubg's 0-ply (where gnubg-nn is
  installed) are measured for the record; they do not decide.

The rule: promote when the candidate's real-life error is lower by more than one
paired standard error and it is not worse head to head by more than one standard
error.  Without a held-out logged decision there is nothing to judge the candidate on,
and the incumbent stays.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engine.players.agent import Agent


@dataclass(frozen=True)
class Verdict:
    promote: bool
    reason: str


def paired_benchmark(incumbent: Agent, candidate: Agent, benchmark) -> dict:
    """Both nets' move error (x1000) on ``benchmark`` and the paired standard error of the
    difference (candidate minus incumbent)."""
    from nets.train.benchmark.players import NetBenchmarkPlayer
    from nets.train.benchmark.scoring import move_outcomes

    records = list(benchmark.moves)
    if not records:
        return {"positions": 0, "incumbent_error": None, "candidate_error": None, "difference": None, "stderr": None}
    ours = np.array([loss for loss, _ in move_outcomes(NetBenchmarkPlayer(incumbent), records)]) * 1000.0
    theirs = np.array([loss for loss, _ in move_outcomes(NetBenchmarkPlayer(candidate), records)]) * 1000.0
    diff = theirs - ours
    n = len(diff)
    return {
        "positions": n,
        "incumbent_error": round(float(ours.mean()), 4),
        "candidate_error": round(float(theirs.mean()), 4),
        "difference": round(float(diff.mean()), 4),
        "stderr": round(float(diff.std(ddof=1) / math.sqrt(n)), 4) if n > 1 else 0.0,
    }


def head_to_head(candidate: Agent, incumbent_spec: str, games: int, seed: int) -> dict:
    """The candidate's points per game against the incumbent on duplicate dice."""
    from engine.rollout.duel import run_duel_players

    if games < 2:
        return {"games": 0, "ppg": None, "stderr": None}
    duel = run_duel_players(candidate, incumbent_spec, games, seed=seed)
    return {"games": duel["games"], "ppg": round(duel["ppg"], 4), "stderr": round(duel["stderr"], 4)}


def against(agent: Agent, opponent: str, games: int, seed: int) -> dict | None:
    """ppg of ``agent`` against another player spec (``gnubg0``, ``pubeval``), None where that
    player cannot be built here (gnubg-nn not installed)."""
    from engine.players.registry import PlayerSpecError, make_player
    from engine.rollout.duel import run_duel_players

    if games < 2:
        return None
    try:
        make_player(opponent)
    except (PlayerSpecError, ImportError):
        return None
    duel = run_duel_players(agent, opponent, games, seed=seed)
    return {
        "opponent": opponent,
        "games": duel["games"],
        "ppg": round(duel["ppg"], 4),
        "stderr": round(duel["stderr"], 4),
    }


def real_life_text(real_life: dict) -> str:
    """What a real-life figure is, in a phrase: the choices compared (``nets.train.choices``)
    or the labelled benchmark (``nets.train.real_life``)."""
    if real_life.get("method") == "choices":
        return (
            f"real-life choices ({real_life['positions']} held-out decisions, {real_life['differing']} differ, "
            f"{real_life['rolled_out']} rolled out {real_life['games']} games a result)"
        )
    return f"real-life benchmark ({real_life['positions']} decisions)"


def judge(real_life: dict, duel: dict) -> Verdict:
    """The promotion rule of the module's doc, with the figures that decided it."""
    if not real_life.get("positions"):
        return Verdict(False, "no real-life decisions yet (no held-out logged decision to judge): kept the incumbent")
    diff, bar = real_life["difference"], real_life["stderr"]
    text = (
        f"{real_life_text(real_life)}: error {real_life['incumbent_error']:.3f} -> "
        f"{real_life['candidate_error']:.3f}, difference {diff:+.3f} +- {bar:.3f}"
    )
    if duel.get("ppg") is not None:
        text += f"; head to head {duel['ppg']:+.4f} +- {duel['stderr']:.4f} ppg over {duel['games']} games"
    if diff >= -bar:
        return Verdict(False, f"{text}: not better by more than its standard error, kept the incumbent")
    if duel.get("ppg") is not None and duel["ppg"] < -duel["stderr"]:
        return Verdict(False, f"{text}: worse head to head, kept the incumbent")
    return Verdict(True, f"{text}: promoted")
