"""Cubeful values n plies deep, as GNU Backgammon computes them ("cubeful n-ply").

A position's cubeful value at n plies is the average, over the 21 rolls, of the
value of the reply the side on roll would pick (chosen at 0-ply, as in the cubeless
search), looked at n-1 plies deep from the other side; at 0 plies it is Janowski's
interpolation of the net's cubeless probabilities (``engine.cube.janowski``).  What makes
it cubeful is what happens at each inner node: the side on roll may double first,
so a node's value under a cube position is ``min(double/take, double/drop)`` when
both are at least "no double", else "no double" (gnubg's eval.c,
``EvaluatePositionCubeful4``).  Every cube position a node can be asked about is
carried down at once: below a node that may double, each position splits in two
(the cube as it is, and doubled and taken), so a 2-ply cube decision carries 2 cube
positions to the first level and 4 to the leaves.

The tree is built one level at a time: all nodes of a level are expanded in one
compiled call (``expand_nodes``), and the leaves of all of them are turned into
cubeful values in one vectorised pass per cube position, so a 3-ply look (9,261
leaves) costs a few hundred milliseconds, not seconds of interpreter time.

Values are absolute for the side on roll at each node: money in points (a cube of
2 doubles them), a match in match winning chance.  The top node (``decide_at_root``
False) takes no cube decision: its caller wants "no double" and "double, take"
side by side.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from numba import njit

from engine.cube.janowski import cube_lives, cubeful
from engine.cube.met import ME, THEM, CubeView, gammon_values, mwc_to_equity
from engine.rules.dice import ROLL_WEIGHTS
from engine.rules.ids import CENTRED, MatchState
from engine.rules.moves import MoveBuffers
from engine.search.context import SearchContext
from engine.search.nply import choose_replies

MAX_CUBE = 1 << 15  # the Match ID's cube field
PARALLEL_NODES = 16  # a level with fewer nodes is expanded on one thread: splitting it costs more than it saves


@njit(cache=True, nogil=True)  # nogil: a tree's worker threads expand slices of a level at once
def expand_nodes(ctx, boards, n, buf, replies, reply_probs, weights):
    """For each of ``n`` boards (side on roll in row 0) and each of the 21 rolls: the
    reply chosen at 0-ply by the equity of the side on roll with gammon values
    ``weights`` (mover in row 0), and its mover's 0-ply probabilities."""
    probs = np.empty(5, np.float32)
    for i in range(n):
        choose_replies(ctx, boards[i], buf, probs, replies[i], reply_probs[i], weights)


def reply_weights(view: CubeView) -> np.ndarray:
    """The gammon values a side picks its replies by (gnubg picks them by the equity
    at the score): (win gammon, win backgammon, lose gammon, lose backgammon)."""
    if view.money:
        return np.ones(4)
    win_gammon, lose_gammon, win_bg, lose_bg = gammon_values(view)
    return np.array([win_gammon, win_bg, lose_gammon, lose_bg])


def view_may_double(view: CubeView) -> bool:
    """Whether the viewer (on roll) may double: the cube is centred or its own, and in
    a match it is not the Crawford game and the present cube does not already win
    the match for it (``engine.cube.decision.may_double`` on a view)."""
    if view.owner not in (CENTRED, ME) or 2 * view.cube > MAX_CUBE:
        return False
    return view.money or (not view.crawford and view.away[0] > view.cube)


def flip_view(view: CubeView) -> CubeView:
    """The same cube seen by the other player."""
    owner = CENTRED if view.owner == CENTRED else (THEM if view.owner == ME else ME)
    return CubeView(view.away[::-1], view.cube, owner, view.crawford, view.jacoby, view.beavers)


def cash_value(view: CubeView) -> float:
    """What the viewer gets when its double is dropped."""
    return float(view.cube) if view.money else view.mwc(ME, view.cube, winner=ME)


def other_sides_probs(probs: np.ndarray) -> np.ndarray:
    """Each row's five probabilities for the other side (``engine.cube.decision.invert_probabilities``
    over many rows)."""
    return np.stack([1.0 - probs[:, 0], probs[:, 3], probs[:, 4], probs[:, 1], probs[:, 2]], axis=1)


def _other_side(values: np.ndarray, money: bool) -> np.ndarray:
    return -values if money else 1.0 - values


@dataclass
class _Level:
    boards: np.ndarray  # (M, 2, 25), the side on roll in row 0
    probs: np.ndarray  # (M, 5), its 0-ply probabilities
    over: np.ndarray  # (M,) the game has ended (the other side bore off its last checker)


class CubefulTree:
    """Expands positions with one agent's context and scratch.  With ``helpers``
    (more contexts of the same nets, each with its own scratch and cache), a level's
    nodes are split among that many more threads: ``expand_nodes`` runs without the
    GIL, so a deep look uses as many cores as the tree has contexts."""

    def __init__(self, ctx: SearchContext, helpers: tuple[SearchContext, ...] = ()) -> None:
        self.ctx = ctx
        self.buffers = MoveBuffers()
        self.workers = [(ctx, self.buffers)] + [(helper, MoveBuffers()) for helper in helpers]
        self._pool = ThreadPoolExecutor(len(helpers), thread_name_prefix="cubeful-tree") if helpers else None

    def _expand_all(self, boards: np.ndarray, replies: np.ndarray, reply_probs: np.ndarray, weights) -> None:
        """``expand_nodes`` over all ``boards``, split among the tree's threads when
        there are enough of them to be worth it."""
        n = len(boards)
        if self._pool is None or n < PARALLEL_NODES:
            expand_nodes(self.ctx, boards, n, self.buffers.args(), replies, reply_probs, weights)
            return
        edges = np.linspace(0, n, len(self.workers) + 1).astype(np.int64)
        slices = [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:])]

        def expand(worker: int) -> None:
            ctx, buffers = self.workers[worker]
            a, b = slices[worker]
            expand_nodes(ctx, boards[a:b], b - a, buffers.args(), replies[a:b], reply_probs[a:b], weights)

        helpers = [self._pool.submit(expand, worker) for worker in range(1, len(self.workers))]
        expand(0)
        for helper in helpers:
            helper.result()

    def _expand(self, level: _Level, view: CubeView) -> tuple[_Level, np.ndarray]:
        """The next level below the unfinished nodes of ``level`` (its side on roll
        seeing the game as ``view``), and their indices."""
        live = np.flatnonzero(~level.over)
        boards = np.ascontiguousarray(level.boards[live], dtype=np.int8)
        replies: np.ndarray = np.zeros((len(live), 21, 2, 25), np.int8)
        reply_probs = np.zeros((len(live), 21, 5), np.float32)
        if len(live):
            self._expand_all(boards, replies, reply_probs, reply_weights(view))
        replies = replies.reshape(-1, 2, 25)
        mover = reply_probs.reshape(-1, 5).astype(np.float64)
        over = replies[:, 0].sum(axis=1) == 0
        child_probs = other_sides_probs(mover)
        return _Level(replies[:, ::-1], child_probs, over), live

    def values(
        self, boards, probs, views: list[CubeView], plies: int, *, decide_at_root: bool, cubeless: bool = False
    ) -> np.ndarray:
        """Cubeful values ``(len(boards), len(views))`` for the side on roll of each
        board (row 0) under each of ``views`` (all money or all match), ``plies`` deep.

        ``probs``: the boards' own 0-ply probabilities for their side on roll (the
        leaves' values at 0 plies; deeper levels get theirs from the expansion).
        ``cubeless``: nobody doubles and every leaf is valued with a dead cube, so the
        values are cubeless equities (or match winning chances) n plies deep.
        """
        decide_at_root = decide_at_root and not cubeless
        boards = np.asarray(boards, np.int8).reshape(-1, 2, 25)
        levels = [_Level(boards, np.asarray(probs, np.float64).reshape(-1, 5), boards[:, 1].sum(axis=1) == 0)]
        parents = []
        for depth in range(plies):
            child, live = self._expand(levels[-1], views[0] if depth % 2 == 0 else flip_view(views[0]))
            levels.append(child)
            parents.append(live)
        level_views = [list(views)]
        for depth in range(plies):
            deciding = (depth > 0 or decide_at_root) and not cubeless
            below = []
            for view in level_views[-1]:
                below.append(flip_view(view))
                if deciding:
                    below.append(flip_view(_doubled(view)))
            level_views.append(below)
        money = views[0].money
        values = _leaf_values(
            levels[-1], level_views[-1], deciding=(plies > 0 or decide_at_root) and not cubeless, dead=cubeless
        )
        for depth in range(plies - 1, -1, -1):
            level, live = levels[depth], parents[depth]
            child_values = _other_side(values, money).reshape(len(live), 21, len(level_views[depth + 1]))
            averaged = np.einsum("nrv,r->nv", child_values, ROLL_WEIGHTS)
            deciding = (depth > 0 or decide_at_root) and not cubeless
            out = _leaf_values(level, level_views[depth], ended_only=True)  # ended games keep these
            for j, view in enumerate(level_views[depth]):
                if deciding:
                    out[live, j] = _decided(view, averaged[:, 2 * j], averaged[:, 2 * j + 1])
                else:
                    out[live, j] = averaged[:, j]
            values = out
        return values


def _decided(view: CubeView, no_double: np.ndarray, double_take: np.ndarray) -> np.ndarray:
    """The value of the side on roll, free to double first (gnubg's GetECF3): the
    double is made when both answers leave it at least as well off as waiting."""
    if not view_may_double(view):
        return no_double
    drop = cash_value(view)
    doubles = (double_take >= no_double) & (drop >= no_double)
    return np.where(doubles, np.minimum(double_take, drop), no_double)


def _doubled(view: CubeView) -> CubeView:
    """After the viewer doubles and is taken (a cube it may not turn stays as it is:
    that half of the split is never chosen)."""
    return view.doubled() if view_may_double(view) else view


def _leaf_values(
    level: _Level, views: list[CubeView], *, deciding: bool = False, dead: bool = False, ended_only: bool = False
) -> np.ndarray:
    """Janowski values of the nodes of ``level`` under every view, the side on roll
    free to double first where ``deciding`` (gnubg decides at the leaves too), the
    cube dead everywhere with ``dead``; with
    ``ended_only`` just the ended games (the cube is dead there; the other rows are
    left at zero for the caller to fill)."""
    rows = np.flatnonzero(level.over) if ended_only else np.arange(len(level.boards))
    out = np.zeros((len(level.boards), len(views)))
    if len(rows) == 0:
        return out
    probs = level.probs[rows]
    lives = np.zeros(len(rows)) if ended_only or dead else np.where(level.over, 0.0, cube_lives(level.boards))
    done: dict[CubeView, np.ndarray] = {}

    def janowski(view: CubeView) -> np.ndarray:
        if view not in done:
            done[view] = cubeful(probs, view, lives)
        return done[view]

    for j, view in enumerate(views):
        if deciding and not ended_only:
            out[rows, j] = _decided(view, janowski(view), janowski(_doubled(view)))
        else:
            out[rows, j] = janowski(view)
    return out


# ---------------------------------------------------------------- decisions


def to_equity(value: float, view: CubeView) -> float:
    """An absolute value of the viewer (points, or match winning chance) as an
    equity normalised to ``view``'s cube (gnubg's EMG in a match)."""
    return float(value) / view.cube if view.money else float(mwc_to_equity(float(value), view))


def cube_equities(tree: CubefulTree, board, probs, state: MatchState, plies: int) -> dict[str, float]:
    """No double, double/take, double/drop of ``state.on_roll`` (its checkers in row 0
    of ``board``, ``probs`` its 0-ply probabilities), cubeful ``plies`` deep,
    normalised to the present cube as ``engine.cube.decision.cubeful_equities`` gives them."""
    view = CubeView.of(state)
    views = [view, view.doubled()]
    no_double, double_take = tree.values(
        np.asarray(board)[None], np.asarray(probs)[None], views, plies, decide_at_root=False
    )[0]
    return {
        "no_double": to_equity(no_double, view),
        "double_take": to_equity(double_take, view),
        "double_drop": to_equity(cash_value(view), view),
    }


CUBELESS_MONEY = MatchState(jacoby=False)


def move_equities(tree: CubefulTree, candidates, mover_probs, state: MatchState | None, plies: int) -> np.ndarray:
    """Cubeful equities of post-move boards (mover, ``state.on_roll``, in row 0) for the
    mover, the opponent on roll and free to double first, ``plies`` deep;
    ``mover_probs``: each board's 0-ply probabilities for the mover.  Without a
    ``state``: cubeless money equities, ``plies`` deep."""
    cubeless = state is None
    state = CUBELESS_MONEY if state is None else state
    candidates = np.asarray(candidates, np.int8).reshape(-1, 2, 25)
    mover = np.asarray(mover_probs, np.float64).reshape(-1, 5)
    theirs = other_sides_probs(mover)
    view = CubeView.of(state)
    values = tree.values(candidates[:, ::-1], theirs, [flip_view(view)], plies, decide_at_root=True, cubeless=cubeless)[
        :, 0
    ]
    ours = _other_side(values, view.money)
    return ours / view.cube if view.money else mwc_to_equity(ours, view)
