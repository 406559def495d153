"""Each player's choice at a decision, and what the cubeful rollouts say it costs.

Checker play: every player's move and the best few of our 2-ply ranking are rolled
out cubefully on the same dice, each with the opponent on roll and free to double
(``rollout_branches``, as ``rollout_cubeful_moves`` rolls out candidates); a
player's error is the best rolled-out equity minus that of its own move, with the
standard error of that paired difference.

The cube: ``rollout_cube_decision`` gives no double (ND), double/take (DT) and
double/drop (DP = 1) for the doubler.  The doubler's error is max(ND, min(DT, DP))
minus the value of its own double or no double (the taker answering properly); the
taker's error, charged at every decision as gnubg's benchmarks charge it, is |DT - DP|
when its take or drop is the wrong one (take iff DT < DP).

Equities are the mover's (doubler's): EMG at the score, per starting cube in money play.
"""

from __future__ import annotations

import math
import time

import numpy as np

from engine.cube.met import CubeView
from engine.players.registry import GnubgPlayer
from engine.rollout.cubeful import (
    CubefulSettings,
    mover_equities,
    rollout_after_moves,
    rollout_cube_decision,
    standard_error,
)
from engine.rollout.cubeless import ROLLOUT_PRUNE_KEEP, rollout_agent
from engine.rules.moves import MoveBuffers, generate_moves, steps_to_move
from engine.rules.notation import format_gnubg
from engine.rules.position import position_id
from nets.player import load_agent
from scripts.cube_check.gnubg_hint import GnubgCube
from scripts.referee.decisions import CHECKER, Decision
from scripts.referee.gnubg_answers import cube_answer
from scripts.referee.judge_checker_play import key

TABLE, OUR_2PLY = "net:default@table", "net:default@2"
GNUBG_2PLY, GNUBG_NN_2PLY = "gnubg-1.07@2", "gnubg-nn@2 (cubeless)"
CHECKER_PLAYERS = (TABLE, OUR_2PLY, GNUBG_2PLY, GNUBG_NN_2PLY)
CUBE_PLAYERS = (TABLE, OUR_2PLY, GNUBG_2PLY)
TOP = 3  # the best of our 2-ply ranking rolled out beside the players' choices


def legal_results(decision: Decision, buffers: MoveBuffers) -> dict[bytes, tuple[np.ndarray, tuple]]:
    """Every legal result of a checker decision's roll, by its board's ``key``: the board
    after the move and the move's steps."""
    n = generate_moves(decision.board, *decision.dice, *buffers.args())
    return {key(buffers.boards[i]): (buffers.boards[i].copy(), steps_to_move(buffers.steps[i])) for i in range(n)}


def pooled(decision: Decision, legal: dict, picks: list[bytes]) -> list[bytes]:
    """``picks`` (board keys) without repeats, in order; each must be a legal result."""
    pool = list(dict.fromkeys(picks))
    if any(k not in legal for k in pool):
        raise RuntimeError(f"{decision.xgid}: a chosen move is not among the {len(legal)} legal results")
    return pool


def rollout_seed(seed: int, decision: Decision) -> int:
    """A seed of the rollout dice for one decision, distinct for every decision of a run."""
    kind = (0 if decision.kind == CHECKER else 2) + (0 if decision.play == "match" else 1)
    return seed * 100003 + kind * 10007 + decision.index


class Referee:
    """Our players, gnubg-nn, and the rollout agent, loaded once."""

    def __init__(self, games: int, seed: int, prune: int = ROLLOUT_PRUNE_KEEP, also: tuple[str, ...] = ()) -> None:
        self.games = games
        self.seed = seed
        self.prune = prune
        # ``also``: more of our players (net:NAME@LEVEL) judged beside the usual ones, for trials
        self.ours = {name: load_agent(name) for name in dict.fromkeys((TABLE, OUR_2PLY, *also))}
        self.gnubg_nn = GnubgPlayer(2)
        self.roller = rollout_agent("net:default")
        self.buffers = MoveBuffers()

    def settings(self, decision: Decision) -> CubefulSettings:
        return CubefulSettings(seed=rollout_seed(self.seed, decision), prune=self.prune)

    # ---------------------------------------------------------------- checker play

    def judge_checker(self, decision: Decision, gnubg: tuple[str, np.ndarray] | None) -> dict:
        """``gnubg``: gnubg 1.07's move text and board after it (None: not asked)."""
        board, (d1, d2), state = decision.board, decision.dice, decision.state
        legal = legal_results(decision, self.buffers)
        picks, seconds, plies = {}, {}, {}
        ranked = ()
        for name, agent in self.ours.items():
            start = time.perf_counter()
            choice = agent.choose_move(board, d1, d2, state)
            seconds[name] = round(time.perf_counter() - start, 3)
            picks[name], plies[name] = key(choice.board), choice.ply
            if name == OUR_2PLY:
                ranked = choice.ranked
        boards = np.stack([b for b, _ in legal.values()])
        start = time.perf_counter()
        picks[GNUBG_NN_2PLY] = key(boards[self.gnubg_nn.choose(board, d1, d2, boards)])
        seconds[GNUBG_NN_2PLY] = round(time.perf_counter() - start, 3)
        if gnubg is not None:
            picks[GNUBG_2PLY] = key(gnubg[1])
        pool = pooled(decision, legal, [*picks.values(), *(key(m.board) for m in ranked[:TOP])])
        equities = self._rollout_moves(decision, [legal[k][0] for k in pool])
        means = [float(e.mean()) for e in equities]
        best = int(np.argmax(means))
        errors, error_stderr = {}, {}
        for name, pick in picks.items():
            j = pool.index(pick)
            diff = equities[best] - equities[j]
            errors[name], error_stderr[name] = float(diff.mean()), standard_error(diff) if j != best else 0.0
        return self._row(decision) | {
            "dice": list(decision.dice),
            "candidates": [
                {"move": format_gnubg(board, legal[k][1]), "equity": means[i], "stderr": standard_error(equities[i])}
                for i, k in enumerate(pool)
            ],
            "picks": {name: pool.index(pick) for name, pick in picks.items()},
            "errors": errors,
            "error_stderr": error_stderr,
            "seconds": seconds,
            "table_ply": plies[TABLE],
        }

    def _rollout_moves(self, decision: Decision, afters: list[np.ndarray]) -> list[np.ndarray]:
        """Per-game cubeful equities for the mover of each post-move board."""
        view = CubeView.of(decision.state)
        results = rollout_after_moves(afters, view, self.games, self.settings(decision), self.roller)
        return [mover_equities(result, view) for result in results]

    # ---------------------------------------------------------------- the cube

    def judge_cube(self, decision: Decision, gnubg: GnubgCube | None) -> dict:
        """``gnubg``: gnubg 1.07's hint (None: not asked)."""
        answers, seconds, plies = {}, {}, {}
        for name, agent in self.ours.items():
            start = time.perf_counter()
            choice = agent.double_decision(decision.board, decision.state)
            seconds[name] = round(time.perf_counter() - start, 3)
            answers[name], plies[name] = (bool(choice.double), bool(choice.take)), choice.ply
        gnubg_text = None
        if gnubg is not None and (answer := cube_answer(gnubg)) is not None:
            answers[GNUBG_2PLY], gnubg_text = answer, gnubg.text
        rollout = rollout_cube_decision(
            decision.board, decision.state, self.games, self.settings(decision), self.roller
        )
        equities, stderr = rollout["equities"], rollout["stderr"]
        errors = {name: cube_errors(equities, stderr, *answer) for name, answer in answers.items()}
        return self._row(decision) | {
            "rollout": {
                "action": rollout["action"],
                "equities": equities,
                "stderr": stderr,
                "doubled_games": rollout["doubled_games"],
            },
            "answers": {name: {"double": d, "take": t} for name, (d, t) in answers.items()},
            "gnubg_text": gnubg_text,
            "errors": {name: e["error"] for name, e in errors.items()},
            "error_stderr": {name: e["stderr"] for name, e in errors.items()},
            "double_errors": {name: e["double"] for name, e in errors.items()},
            "take_errors": {name: e["take"] for name, e in errors.items()},
            "seconds": seconds,
            "table_ply": plies[TABLE],
        }

    def _row(self, decision: Decision) -> dict:
        return {
            "kind": decision.kind,
            "play": decision.play,
            "index": decision.index,
            "seed": self.seed,
            "games": self.games,
            "scenario": decision.scenario.label,
            "xgid": decision.xgid,
            "position": position_id(decision.board),
        }


def cube_errors(equities: dict, stderr: dict, double: bool, take: bool) -> dict:
    """The doubler's and the taker's errors of one answer by the rolled-out equities,
    with the standard error of each (the difference's where two rollouts differ; DP is
    exact) and of their sum (taken as independent)."""
    nd, dt, dp = equities["no_double"], equities["double_take"], equities["double_drop"]
    se_nd, se_dt, se_diff = stderr["no_double"], stderr["double_take"], stderr["double_take_minus_no_double"]
    doubled = min(dt, dp)
    best = max(nd, doubled)
    chosen = doubled if double else nd
    double_error = best - chosen
    if double_error == 0.0:
        double_se = 0.0
    elif {best, chosen} == {nd, dt}:
        double_se = se_diff
    else:  # one of them is DP, exact: the other's own error
        double_se = se_nd if nd in (best, chosen) else se_dt
    proper_take = dt < dp
    take_error = abs(dp - dt) if take != proper_take else 0.0
    take_se = se_dt if take_error else 0.0
    return {
        "double": double_error,
        "take": take_error,
        "error": double_error + take_error,
        "stderr": math.hypot(double_se, take_se),
    }
