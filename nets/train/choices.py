"""The gate's real-life figure: the incumbent and the candidate on every logged decision
they were kept from learning, judged by rollouts only where they choose differently.

A decision where both nets play the same move adds nothing to the difference between
them, whatever it is worth.  So instead of labelling every candidate move of a few
hundred decisions (the real-life benchmark of ``nets.train.real_life``: 34 CPU seconds a
decision with a net of two hidden layers as its roller, 2.8 hours for 300), both nets
choose at 0-ply in each held-out logged decision (``real_life.held_out``: one in five,
never trained on), and the two results of each decision where they differ are rolled
out on the same dice (``CHOICE_GAMES`` variance-reduced games each, played by the
incumbent's 0-ply with its pruning net).  Over the 300 arena matches of a round that is
every one of some 3,500 decisions instead of 300, for the rollouts of the 4-5% that
differ.

Each net's figure is its equity lost (x1000) against the better of the two choices,
averaged over every decision compared (zero where they agree), so the difference is the
candidate's mean loss minus the incumbent's, decision by decision, and its standard
error is over decisions.  Its judge is a rollout played by the incumbent, which leans a
little towards the incumbent's own choices: the gate errs towards keeping it.  Where
more decisions differ than ``max_rollouts``, a seeded sample of them is rolled out and
stands for all (the report says so).
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from engine.players.agent import Agent
from engine.rollout.cubeless import ROLLOUT_PRUNE_KEEP
from nets.train.benchmark.labelling import mover_equities
from nets.train.labellers import rollout_labels
from nets.train.real_life import held_out_pool

CHOICE_GAMES = 108  # a result, on the same dice for both: three blocks of 36 (each first roll once)
MAX_ROLLOUTS = 300  # differing decisions rolled out at most; more are sampled


@dataclass(frozen=True)
class ChoiceComparison:
    positions: int  # held-out logged decisions compared
    differing: int  # where the two nets choose different results
    rolled_out: int  # of those, rolled out (all of them unless more than ``max_rollouts``)
    games: int  # rollout games a result
    incumbent_error: float | None  # x1000, against the better of the two choices
    candidate_error: float | None
    difference: float | None  # candidate minus incumbent: below zero, the candidate loses less
    stderr: float | None
    seconds: float
    method: str = "choices"

    def as_dict(self) -> dict:
        return asdict(self)


def _choice(agent: Agent, board: np.ndarray, d1: int, d2: int) -> np.ndarray:
    return np.ascontiguousarray(agent.rank_moves(board, d1, d2, ply=0)[0].board)


def compare_choices(
    incumbent: Agent,
    candidate: Agent,
    data_dir: Path,
    *,
    games: int = CHOICE_GAMES,
    max_rollouts: int = MAX_ROLLOUTS,
    seed: int = 1,
) -> ChoiceComparison:
    """Both nets' 0-ply choices on the held-out logged decisions of ``data_dir``, the
    differing ones rolled out by the incumbent (see the module's doc)."""
    started = time.perf_counter()
    pool = held_out_pool(Path(data_dir), np.random.default_rng(seed))
    differing = []
    for index, c in enumerate(pool):
        assert c.dice is not None  # the pool holds move decisions only
        d1, d2 = c.dice
        ours, theirs = _choice(incumbent, c.board, d1, d2), _choice(candidate, c.board, d1, d2)
        if not np.array_equal(ours, theirs):
            differing.append((index, ours, theirs))
    n, k = len(pool), len(differing)
    if not n:
        return ChoiceComparison(0, 0, 0, games, None, None, None, None, round(time.perf_counter() - started, 1))
    rng = np.random.default_rng(seed + 1)
    sample = differing if k <= max_rollouts else [differing[i] for i in sorted(rng.choice(k, max_rollouts, False))]
    prune = ROLLOUT_PRUNE_KEEP if incumbent.evaluator.prune is not None else 0
    lost_ours, lost_theirs = [], []
    for index, ours, theirs in sample:
        # the opponent on roll after each move; one seed for both results: the same dice
        afters = np.stack([ours[::-1], theirs[::-1]]).copy()
        labels = rollout_labels(incumbent, afters, games, seed * 1_000_003 + index, varredn=True, prune=prune)
        equity = mover_equities(labels)
        best = equity.max()
        lost_ours.append(1000.0 * (best - equity[0]))
        lost_theirs.append(1000.0 * (best - equity[1]))
    ours_lost, theirs_lost = np.array(lost_ours), np.array(lost_theirs)
    diff = theirs_lost - ours_lost
    share = k / len(sample) if sample else 0.0  # each rolled-out decision stands for this many that differ
    if len(sample) == k:  # every differing decision rolled out: zeros for the rest, the error over decisions
        full = np.zeros(n)
        full[: len(diff)] = diff
        stderr = float(full.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0
    else:  # a sample of them: its spread, scaled to the decisions it stands for
        stderr = float(diff.std(ddof=1) * share * math.sqrt(len(diff)) / n) if len(diff) > 1 else 0.0
    return ChoiceComparison(
        positions=n,
        differing=k,
        rolled_out=len(sample),
        games=games,
        incumbent_error=round(float(ours_lost.sum() * share / n), 4),
        candidate_error=round(float(theirs_lost.sum() * share / n), 4),
        difference=round(float(diff.sum() * share / n), 4),
        stderr=round(stderr, 4),
        seconds=round(time.perf_counter() - started, 1),
    )
