"""Positions to learn from, and their labels by deeper search.

``selfplay_positions`` plays the agent against itself at 0-ply, with a little
exploration (a random legal move now and then, so the positions are not only the
ones the net already likes), and keeps every position before its roll;
``selfplay_parallel`` spreads the games over processes or a Ray cluster (each game
depends only on its index, so the positions are the same however they are split).
``label_positions`` evaluates positions at 0, 1 or 2 ply (the daemon's queued
disagreements become positions in ``nets.train.retrain.queue_positions``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.rollout.game import PLAYERS_CHOOSE, kernel_game
from engine.rollout.parallel import map_chunks, parallelism, split_range
from engine.rules.dice import game_seed, splitmix64
from engine.search.nply import evaluate_at, rank_candidates

MAX_TURNS = 500


@njit(cache=True)
def random_move(game_seed_value, turn, n, explore):
    """Index of a random one of ``n`` moves in a share ``explore`` of the turns (the
    same turns for the same game), else -1."""
    r = splitmix64(game_seed_value ^ np.uint64(turn * 7919 + 17))
    if (r >> np.uint64(11)) * (1.0 / 9007199254740992.0) < explore:
        return np.int64(splitmix64(r) % np.uint64(n))
    return np.int64(-1)


# Inlined into its callers: as a call of its own, taking the search context apart
# on every turn (a reference count per array), it made self-play 4% slower than
# the loop that called the search directly; inlined, about 2%
@njit(inline="always")
def search_choose(params, board, n, candidates):
    """The kernel player of a searching agent: its choice among ``n`` candidates at
    the ply in ``params`` (ctx, ply, filters, weights, buf2, buf1, equities, probs,
    plies), whose ``probs`` and ``plies`` then hold every candidate's figures."""
    ctx, ply, filters, weights, buf2, buf1, equities, probs, plies = params
    return rank_candidates(ctx, candidates, n, ply, filters, weights, buf2, buf1, equities, probs, plies)


@njit(cache=True)
def _keep_and_explore(state, board, d0, d1, turn, seat, n, candidates):
    """Keep the position before every roll but the opening one while ``out`` has
    room; play a random move now and then (``kernel_turns``' hook)."""
    out, count, explore, game_seed_value = state
    if turn > 0 and count[0] < out.shape[0]:
        out[count[0]] = board
        count[0] += 1
    if n > 1:
        explored = random_move(game_seed_value, turn, n, explore)
        if explored >= 0:
            return explored
    return PLAYERS_CHOOSE


@njit(cache=True)
def _selfplay(ctx, seed, first_game, n_games, explore, filters, weights, root, buf2, buf1, equities, probs, plies, out):
    count = np.zeros(1, np.int64)
    # the ply as int64, not a literal 0: a literal compiles the whole search apart
    player = (ctx, np.int64(0), filters, weights, buf2, buf1, equities, probs, plies)
    for g in range(first_game, first_game + n_games):
        s = game_seed(seed, g)
        kernel_game(
            search_choose,
            player,
            search_choose,
            player,
            _keep_and_explore,
            (out, count, explore, s),
            s,
            MAX_TURNS,
            root,
        )
        if count[0] >= out.shape[0]:
            break
    return count[0]


def selfplay_positions(agent, games: int, seed: int = 1, explore: float = 0.05, first_game: int = 0) -> np.ndarray:
    """Every position before its roll (side on roll in row 0) of ``games`` games."""
    out = np.zeros((games * 120, 2, 25), np.int8)
    arguments: tuple = (agent.ctx, np.uint64(seed), first_game, games, explore, *agent.self_play_scratch(), out)
    n = _selfplay(*arguments)
    return out[:n].copy()


@njit(cache=True)
def _label(ctx, boards, ply, buf2, buf1, out):
    for i in range(boards.shape[0]):
        evaluate_at(ctx, boards[i], ply, buf2, buf1, out[i])


def label_positions(agent, boards: np.ndarray, ply: int) -> np.ndarray:
    out = np.zeros((len(boards), 5), np.float32)
    _label(agent.ctx, np.ascontiguousarray(boards, np.int8), ply, agent._buf2.args(), agent._buf1.args(), out)
    return out


_agents: dict = {}


def _agent(spec: str):
    from nets.player import load_agent

    return _agents.get(spec) or _agents.setdefault(spec, load_agent(spec, ply=0))


def _label_worker(spec: str, boards: np.ndarray, ply: int) -> np.ndarray:
    return label_positions(_agent(spec), boards, ply)


def label_parallel(spec: str, boards: np.ndarray, ply: int, workers: int, ray_address: str | None = None) -> np.ndarray:
    """``label_positions`` over ``workers`` processes or a Ray cluster (same labels as one process)."""
    if workers <= 1 and ray_address is None:
        return _label_worker(spec, boards, ply)
    chunks = [c for c in np.array_split(boards, parallelism(workers, ray_address) * 4) if len(c)]
    if not chunks:
        return np.zeros((0, 5), np.float32)
    return np.concatenate(
        map_chunks(_label_worker, [(spec, c, ply) for c in chunks], workers=workers, ray_address=ray_address)
    )


def selfplay_games(agent, games: int, seed: int = 1, explore: float = 0.05, first_game: int = 0) -> np.ndarray:
    """Like ``selfplay_positions`` but never cut short: the buffer grows until every
    position of the games fits, so a split of the games cannot change the result."""
    capacity = max(games, 1) * 120
    while True:
        out = np.zeros((capacity, 2, 25), np.int8)
        arguments: tuple = (agent.ctx, np.uint64(seed), first_game, games, explore, *agent.self_play_scratch(), out)
        n = _selfplay(*arguments)
        if n < capacity:  # a full buffer may have dropped positions: play again with room
            return out[:n].copy()
        capacity *= 2


def _selfplay_worker(spec: str, seed: int, explore: float, first_game: int, games: int) -> np.ndarray:
    return selfplay_games(_agent(spec), games, seed, explore, first_game)


def selfplay_parallel(
    spec: str, games: int, seed: int = 1, explore: float = 0.05, workers: int = 1, ray_address: str | None = None
) -> np.ndarray:
    """Every position before its roll of self-play games ``0 .. games - 1``, the games
    split over ``workers`` processes or a Ray cluster (same positions, same order, as
    one process)."""
    if games < 1:
        raise ValueError("self-play needs at least one game")
    ranges = split_range(games, parallelism(workers, ray_address))
    parts = map_chunks(
        _selfplay_worker,
        [(spec, seed, explore, first, count) for first, count in ranges],
        workers=workers,
        ray_address=ray_address,
    )
    return np.concatenate(parts)
