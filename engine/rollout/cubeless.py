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
twice its games per second; ``scripts/rollout_prune_accuracy.py`` measures both).

Each game depends only on its index, so splitting the games over processes gives
exactly the results of one process, and so does a Ray cluster (``ray_address``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from engine.eval.eval_sets import all_in_home as _in_home
from engine.eval.eval_sets import static_set
from engine.eval.net import cubeless_equities, equity_of
from engine.players.registry import install_players, registered_players
from engine.rollout.game import BORNE_OFF, OUT_OF_TURNS, PLAYERS_CHOOSE, STOP, STOPPED, kernel_turns
from engine.rollout.parallel import map_chunks, parallelism, split_range
from engine.rules.dice import DISTINCT_ROLLS, ROLL_WEIGHTS, game_seed
from engine.rules.moves import generate_moves
from engine.search.context import evaluate0
from engine.search.nply import invert_probs, rank_candidates
from engine.search.nply import pruned as _pruned
from engine.search.nply import won_probs as _won

MAX_TURNS = 2000
ROLLOUT_PRUNE_KEEP = 8  # moves the pruning net passes on in a pruned rollout (4 costs accuracy)


@njit(cache=True)
def _choose0(player, board, n, boards):
    """The rollouts' kernel player: the 0-ply choice among the ``n`` results in
    ``boards``, its mover probabilities in ``chosen``; ``player`` is (ctx, prune,
    filters, weights, buf2, buf1, equities, probs, plies, chosen).

    With ``prune`` > 0 (and a pruning net), the pruning net's ``prune`` favourites
    are scored by the full net as one incremental set, without the cache: a rollout
    rarely meets a position twice.  The player is taken apart here rather than in a
    wrapper of the kernel form: every call that receives the search context pays
    for it (a reference count per array), and a wrapper made pruned rollouts about 3% slower."""
    ctx, prune, filters, weights, buf2, buf1, equities, probs, plies, chosen = player
    keep = prune if ctx.prune_keep > 0 else 0
    if keep <= 0 or n <= keep:
        best = rank_candidates(ctx, boards, n, 0, filters, weights, buf2, buf1, equities, probs, plies)
        for j in range(5):
            chosen[j] = probs[best, j]
        return best
    for i in range(n):
        if boards[i, 0].sum() == 0:
            _won(boards[i], chosen)
            return i
    mask = np.zeros(n, np.bool_)
    _pruned(ctx, boards, n, np.empty((2, 25), np.int8), keep, mask)
    few = np.empty((keep, 2, 25), np.int8)
    where = np.empty(keep, np.int64)
    m = 0
    for i in range(n):
        if mask[i]:
            few[m] = boards[i]
            where[m] = i
            m += 1
    static_set(ctx, few, m, probs)
    top = 0
    for c in range(1, m):
        if equity_of(probs[c]) > equity_of(probs[top]):
            top = c
    for j in range(5):
        chosen[j] = probs[top, j]
    return where[top]


@njit(cache=True)
def _luck(player, board, d0, d1, root, after, luck):
    """Play the 0-ply choice for (d0, d1) into ``after`` and return, in ``luck``, how
    much better its 0-ply figures are for the mover than the average over the 21
    rolls of the 0-ply choice of each (gnubg's variance reduction by luck
    adjustment: the sum of these has mean zero, and taking it off a game's result
    removes most of the dice's noise)."""
    boards, steps, tk, st, stack = root
    p = player[-1]  # where _choose0 leaves the probabilities of its choice
    mean = np.zeros(5)
    for r in range(21):
        a, b = DISTINCT_ROLLS[r, 0], DISTINCT_ROLLS[r, 1]
        n = generate_moves(board, a, b, boards, steps, tk, st, stack)
        best = _choose0(player, board, n, boards)
        for j in range(5):
            mean[j] += ROLL_WEIGHTS[r] * p[j]
        if (a == d0 and b == d1) or (a == d1 and b == d0):
            for j in range(5):
                luck[j] = p[j]
            for s in range(2):
                for k in range(25):
                    after[s, k] = boards[best, s, k]
    for j in range(5):
        luck[j] -= mean[j]


@njit(cache=True)
def _game_over(truncate, max_turns, board, turn):
    """Whether a rollout game stops here: both sides in the bearoff database
    (``truncate``), or ``max_turns`` played."""
    return (truncate and _in_home(board[0]) and _in_home(board[1])) or (max_turns > 0 and turn == max_turns)


@njit(cache=True)
def _stop_when_over(state, board, d0, d1, turn, seat, n, candidates):
    """Stop the game where ``_game_over`` says (``kernel_turns``' hook)."""
    truncate, max_turns = state
    return STOP if _game_over(truncate, max_turns, board, turn) else PLAYERS_CHOOSE


@njit(cache=True)
def _take_luck_until_over(state, board, d0, d1, turn, seat, n, candidates):
    """Stop the game where ``_game_over`` says, else play the turn through ``_luck``
    and add its luck, seen by the starting side (seat 0), to ``luck_sum``
    (``kernel_turns``' hook, for ``varredn``)."""
    player, truncate, max_turns, root, after, luck, luck_sum = state
    if _game_over(truncate, max_turns, board, turn):
        return STOP
    # the luck scan generates every roll's moves over the loop's own: its choice goes back as candidate 0
    _luck(player, board, d0, d1, root, after, luck)
    if seat == 1:
        invert_probs(luck, luck)  # a difference: the mover's gains are the starter's losses
        luck[0] -= 1.0
    for j in range(5):
        luck_sum[j] += luck[j]
    candidates[0] = after
    return 0


@njit(cache=True)
def rollout_games(
    ctx,
    start_board,
    seed,
    first_game,
    n_games,
    truncate,
    filters,
    weights,
    root,
    buf2,
    buf1,
    equities,
    probs,
    plies,
    out,
    varredn=False,
    max_turns=0,
    prune=0,
):
    """Fill ``out[i]`` with the five outcomes (or truncated probabilities) of game
    ``first_game + i`` from ``start_board`` (side on roll in row 0, before its roll),
    from that side's point of view.  ``varredn``: less the luck of every roll (see
    ``_luck``); ``max_turns`` > 0: stop after that many turns with the 0-ply figures;
    ``prune`` > 0: the pruning net picks that many moves for the full net (``_choose0``).
    The games are played by ``engine.rollout.game.kernel_turns``."""
    board = np.empty((2, 25), np.int8)
    p = np.empty(5, np.float32)
    result = np.empty(5)  # the side on roll's, float64 as ``out``
    luck_sum = np.zeros(5)  # the starting side's view
    player = (ctx, prune, filters, weights, buf2, buf1, equities, probs, plies, p)
    luck_state = (player, truncate, max_turns, root, np.empty((2, 25), np.int8), np.empty(5), luck_sum)
    for i in range(n_games):
        g = first_game + i
        s = game_seed(seed, g)
        board[:] = start_board
        luck_sum[:] = 0.0
        r = g % 36  # the first roll: every block of 36 games sees each roll once
        d0, d1 = r // 6 + 1, r % 6 + 1
        # a hook of its own for varredn: a hook's state is taken apart every turn, and
        # one holding the search context as well made the rollouts about 5% slower
        if varredn:
            end, seat, _ = kernel_turns(
                _choose0,
                player,
                _choose0,
                player,
                _take_luck_until_over,
                luck_state,
                board,
                s,
                d0,
                d1,
                0,
                MAX_TURNS,
                root,
            )
        else:
            end, seat, _ = kernel_turns(
                _choose0,
                player,
                _choose0,
                player,
                _stop_when_over,
                (truncate, max_turns),
                board,
                s,
                d0,
                d1,
                0,
                MAX_TURNS,
                root,
            )
        if end == BORNE_OFF:
            _won(board, result)  # the winner's, the side on roll at the end
        elif end == STOPPED:
            evaluate0(ctx, board, p)
            for j in range(5):
                result[j] = p[j]
        else:
            result[:] = 0.0  # a game past MAX_TURNS (never seen) counts as nothing
        if end != OUT_OF_TURNS and seat == 1:
            invert_probs(result, result)
        for j in range(5):
            out[i, j] = result[j] - luck_sum[j]


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
    start = (agent.ctx, np.ascontiguousarray(board, np.int8), np.uint64(seed), first, count, truncate)
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
    agent = _worker_agents.get(spec)
    if agent is None:
        install_players(players)  # a Ray or spawned worker knows only the engine's own specs
        agent = _worker_agents[spec] = rollout_agent(spec)
    return _play(agent, board, seed, first, count, truncate, varredn, max_turns, prune)


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
    """Roll out the ``candidates`` best moves (by the agent's 0-ply) with common dice.

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
