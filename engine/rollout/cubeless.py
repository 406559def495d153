"""Cubeless rollouts with common random numbers.

Game ``g`` of a rollout uses the dice of ``game_seed(seed, g)`` whatever position
is rolled out, so candidates of one decision meet the same dice sequences and the
standard error of their difference shrinks (it is measured, see ``rollout_moves``).
The first roll of game ``g`` is roll ``g mod 36`` of the 36 (quasi-random: every
block of 36 games sees each first roll once).  Games stop ("truncate") once both
sides are inside the one-sided bearoff database, whose probabilities then stand for
the rest of the game; play is the agent's 0-ply choice: every legal move scored by
the full net, or with ``prune`` = K as gnubg's rollouts play by default, the pruning
net's K favourites scored by the full net (``ROLLOUT_PRUNE_KEEP``, 8, is the default of
``fibsbot rollout --prune``: about as accurate as the full net on every move, at about
twice its games per second; ``scripts/checks/rollout_prune_accuracy.py`` measures both).

Each game depends only on its index, so splitting the games over processes gives
exactly the results of one process, and so does a Ray cluster (``ray_address``).
The games themselves are numba kernels (``engine.rollout.cubeless_kernel``); this
module hands them out and sums up their outcomes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engine.eval.net import cubeless_equities
from engine.players.registry import install_players, registered_players
from engine.rollout.cubeless_kernel import rollout_games
from engine.rollout.parallel import map_chunks, parallelism, split_range
from engine.rules.boards import kernel_board

ROLLOUT_PRUNE_KEEP = 8  # moves the pruning net passes on in a pruned rollout (4 costs accuracy)


@dataclass(frozen=True)
class RolloutResult:
    games: int
    probs: tuple[float, ...]  # mean of the five outputs, the starting side's view
    probs_stderr: tuple[float, ...]
    equity: float  # cubeless money equity of the starting side
    equity_stderr: float
    equities: np.ndarray  # per-game equity, for paired comparisons

    def as_dict(self) -> dict:
        return {
            "games": self.games,
            "probs": list(self.probs),
            "probs_stderr": list(self.probs_stderr),
            "equity": self.equity,
            "equity_stderr": self.equity_stderr,
        }


def _summarise(outcomes: np.ndarray) -> RolloutResult:
    n = len(outcomes)
    eq = cubeless_equities(outcomes)
    se = outcomes.std(axis=0, ddof=1) / math.sqrt(n) if n > 1 else np.zeros(5)
    return RolloutResult(
        n,
        tuple(float(x) for x in outcomes.mean(axis=0)),
        tuple(float(x) for x in se),
        float(eq.mean()),
        float(eq.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0,
        eq,
    )


def _play(
    agent,
    board: np.ndarray,
    seed: int,
    first: int,
    count: int,
    truncate: bool,
    varredn: bool = False,
    max_turns: int = 0,
    prune: int = 0,
) -> np.ndarray:
    if isinstance(prune, bool) or prune < 0:
        raise ValueError(f"prune is a number of moves (0: no pruning), not {prune!r}")
    out = np.zeros((count, 5), np.float64)
    start = (agent.ctx, kernel_board(board), np.uint64(seed), first, count, truncate)
    arguments: tuple = (*start, *agent.self_play_scratch(), out, varredn, max_turns, prune)
    rollout_games(*arguments)
    return out


def rollout_agent(spec: str):
    """The searching agent of a player spec (``net:NAME``): its 0-ply plays the games."""
    from engine.players.agent import Agent
    from engine.players.registry import PlayerSpecError, make_player

    agent = make_player(spec)
    if not isinstance(agent, Agent):
        raise PlayerSpecError(f"{spec}: a rollout needs a net (net:NAME), not {agent.name}")
    return agent


_worker_agents: dict = {}


def worker_agent(players: dict, spec: str):
    """The agent of ``spec`` in a worker process or Ray task, made once per worker: a
    spawned worker knows only the engine's own specs until ``players`` are installed."""
    agent = _worker_agents.get(spec)
    if agent is None:
        install_players(players)
        agent = _worker_agents[spec] = rollout_agent(spec)
    return agent


def _worker(
    players: dict,
    spec: str,
    board: np.ndarray,
    seed: int,
    first: int,
    count: int,
    truncate: bool,
    varredn: bool = False,
    max_turns: int = 0,
    prune: int = 0,
) -> np.ndarray:
    return _play(worker_agent(players, spec), board, seed, first, count, truncate, varredn, max_turns, prune)


def _outcomes(
    boards: list[np.ndarray],
    games: int,
    spec: str,
    agent,
    seed: int,
    truncate: bool,
    workers: int,
    ray_address: str | None,
    varredn: bool = False,
    max_turns: int = 0,
    prune: int = 0,
) -> list[np.ndarray]:
    """Per-game outcomes of ``games`` games from each board; every board's chunks go out
    in one batch so the processes or the cluster stay busy across boards."""
    if workers <= 1 and ray_address is None:
        if agent is None:
            agent = rollout_agent(spec)
        return [_play(agent, board, seed, 0, games, truncate, varredn, max_turns, prune) for board in boards]
    ranges = split_range(games, parallelism(workers, ray_address))
    players = registered_players()
    tasks = [
        (players, spec, board, seed, first, count, truncate, varredn, max_turns, prune)
        for board in boards
        for first, count in ranges
    ]
    parts = map_chunks(_worker, tasks, workers=workers, ray_address=ray_address)
    k = len(ranges)
    return [np.concatenate(parts[i * k : (i + 1) * k]) for i in range(len(boards))]


def rollout_position(
    board: np.ndarray,
    games: int,
    *,
    spec: str = "net:default",
    agent=None,
    seed: int = 1,
    truncate: bool = True,
    workers: int = 1,
    ray_address: str | None = None,
    varredn: bool = False,
    max_turns: int = 0,
    prune: int = 0,
) -> RolloutResult:
    """Roll out a position (side on roll in row 0, before its roll).

    With ``workers > 1`` or a ``ray_address`` the games run in processes or Ray tasks
    that load ``spec`` themselves (``agent`` is then not used).  ``varredn``: luck
    adjustment over the 21 rolls at every turn (about 21 times the work per game);
    ``max_turns`` > 0: games stop after that many turns with the 0-ply figures; ``prune``
    > 0: play as gnubg's rollouts do, the pruning net choosing that many moves for the
    full net to score (``ROLLOUT_PRUNE_KEEP`` is the usual figure)."""
    if games < 1:
        raise ValueError("a rollout needs at least one game")
    return _summarise(
        _outcomes([board], games, spec, agent, seed, truncate, workers, ray_address, varredn, max_turns, prune)[0]
    )


def rollout_moves(
    board: np.ndarray,
    d1: int,
    d2: int,
    games: int,
    *,
    spec: str = "net:default",
    agent=None,
    seed: int = 1,
    truncate: bool = True,
    workers: int = 1,
    candidates: int = 5,
    ray_address: str | None = None,
    varredn: bool = False,
    max_turns: int = 0,
    prune: int = 0,
) -> list[dict]:
    """Roll out the ``candidates`` best moves (by the agent's 0-ply) with common dice,
    ranked by their rolled-out equity, best first.

    Each entry has the mover's equity, its standard error, and the difference to the
    first move with the standard error of that paired difference."""
    if games < 1:
        raise ValueError("a rollout needs at least one game")
    agent = agent or rollout_agent(spec)
    ranked = agent.rank_moves(board, d1, d2, ply=0)[:candidates]
    afters = [np.ascontiguousarray(move.board[::-1]) for move in ranked]  # opponent on roll
    outcomes = _outcomes(afters, games, spec, agent, seed, truncate, workers, ray_address, varredn, max_turns, prune)
    rows = []
    for move, per_game in zip(ranked, outcomes):
        res = _summarise(per_game)
        rows.append((move, -res.equities, res))
    rows.sort(key=lambda row: -row[1].mean())  # best rolled-out equity first
    base = rows[0][1]
    out = []
    for move, eq, res in rows:
        diff = eq - base
        out.append(
            {
                "steps": move.steps,
                "equity": float(eq.mean()),
                "equity_stderr": res.equity_stderr,
                "diff": float(diff.mean()),
                "diff_stderr": float(diff.std(ddof=1) / math.sqrt(len(diff))) if len(diff) > 1 else 0.0,
                "probs": [1 - res.probs[0], res.probs[3], res.probs[4], res.probs[1], res.probs[2]],
            }
        )
    return out
