"""Cubeful rollouts, money and match, with common random numbers.

Each game is played out with the cube in play: before every roll the side on roll
decides by the cubeful 0-ply evaluation (Janowski's interpolation of the net's 0-ply
probabilities), the other side takes or drops, and every move is chosen by its
cubeful value (``engine.rollout.cubeful_kernel``), as GNU Backgammon's cubeful
rollouts play at 0-ply.  Results are points times the cube in money play (normalised
to the starting cube, as gnubg shows them) and match winning chances at the score in
a match, shown as EMG (gnubg's normalised match equity).

Game ``g`` has the dice of ``game_seed(seed, g)`` and first roll ``g mod 36`` whatever
is rolled out, so the branches of a cube decision and the candidates of a move meet
the same dice, and the standard error of their differences shrinks.  Each game
depends only on its index: processes and Ray give the results of one process.
Unlike cubeless rollouts, games are not cut at the bearoff database (its cubeless
probabilities would need the cube's value guessed there): they play to the end, or
with ``max_turns`` stop there with the cubeful 0-ply value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engine.cube.cubeful import flip_view, view_may_double
from engine.cube.janowski_kernel import cube_owner, cube_rules
from engine.cube.met import ME, CubeView, mwc_to_equity
from engine.players.registry import registered_players
from engine.rollout.cubeful_kernel import CubefulGames, cubeful_games
from engine.rollout.cubeless import rollout_agent, worker_agent
from engine.rollout.parallel import map_chunks, parallelism, split_range
from engine.rules.boards import kernel_board
from engine.rules.ids import MatchState


@dataclass(frozen=True)
class CubefulResult:
    """A cubeful rollout of one position for the side on roll (``view``'s ME)."""

    view: CubeView
    values: np.ndarray  # per game: money in points per starting cube, a match in MWC
    final_cubes: np.ndarray  # per game: the cube at its end (a dropped double counts as turned)

    @property
    def games(self) -> int:
        return len(self.values)

    @property
    def mean(self) -> float:
        return float(self.values.mean())

    @property
    def stderr(self) -> float:
        return standard_error(self.values)

    @property
    def equity(self) -> float:
        """Money: equity per starting cube; a match: EMG at the starting cube."""
        return self.mean if self.view.money else float(mwc_to_equity(self.mean, self.view))

    @property
    def equity_stderr(self) -> float:
        return self.stderr * emg_per_mwc(self.view)

    @property
    def mwc(self) -> float | None:
        return None if self.view.money else self.mean

    def as_dict(self) -> dict:
        out = {
            "games": self.games,
            "equity": self.equity,
            "equity_stderr": self.equity_stderr,
            "doubled_games": float(np.mean(self.final_cubes > self.view.cube)),
        }
        if not self.view.money:
            out["mwc"], out["mwc_stderr"] = self.mean, self.stderr
        return out


def standard_error(values: np.ndarray) -> float:
    """The standard error of the mean of per-game ``values`` (0 for a single game)."""
    n = len(values)
    return float(np.std(values, ddof=1) / math.sqrt(n)) if n > 1 else 0.0


def mover_equities(result: CubefulResult, view: CubeView) -> np.ndarray:
    """Per-game equities, for the mover seeing the game as ``view``, of a rollout of its
    post-move board (``result``: the other side's values, on roll after the move)."""
    if view.money:
        return np.asarray(-result.values, np.float64)
    return np.asarray(mwc_to_equity(1.0 - result.values, view), np.float64)


def emg_per_mwc(view: CubeView) -> float:
    """How much EMG one unit of MWC is worth at ``view``'s cube (1 in money play)."""
    if view.money:
        return 1.0
    return 2.0 / (view.mwc(ME, view.cube, winner=ME) - view.mwc(ME, view.cube, winner=1))


@dataclass(frozen=True)
class CubefulSettings:
    """How the games are played and where: the same for every branch of a decision."""

    spec: str = "net:default"
    seed: int = 1
    workers: int = 1
    ray_address: str | None = None
    varredn: bool = False
    max_turns: int = 0
    prune: int = 0


def _play(agent, board, view: CubeView, first_decides: bool, settings: CubefulSettings, first: int, count: int):
    if isinstance(settings.prune, bool) or settings.prune < 0:
        raise ValueError(f"prune is a number of moves (0: no pruning), not {settings.prune!r}")
    values = np.zeros(count)
    cubes = np.zeros(count, np.int64)
    games = CubefulGames(bool(first_decides), bool(settings.varredn), int(max(0, settings.max_turns)))
    start = (agent.ctx, kernel_board(board), np.uint64(settings.seed), first, count)
    game_rules = (cube_rules(view), games, view.cube, cube_owner(view))
    arguments: tuple = (*start, *game_rules, *agent.self_play_scratch(), settings.prune, values, cubes)
    cubeful_games(*arguments)
    return values, cubes


def _worker(players: dict, board, view, first_decides, settings: CubefulSettings, first: int, count: int):
    return _play(worker_agent(players, settings.spec), board, view, first_decides, settings, first, count)


def rollout_branches(
    branches: list[tuple[np.ndarray, CubeView, bool]], games: int, settings: CubefulSettings, agent=None
) -> list[CubefulResult]:
    """Roll out each ``(board, view, first_decides)`` (side on roll in row 0, seeing the
    game as ``view``; ``first_decides`` False: it does not double before its first
    roll) on the same dice; every branch's chunks go out in one batch."""
    if games < 1:
        raise ValueError("a rollout needs at least one game")
    if settings.workers <= 1 and settings.ray_address is None:
        agent = agent or rollout_agent(settings.spec)
        parts = [_play(agent, b, v, f, settings, 0, games) for b, v, f in branches]
    else:
        ranges = split_range(games, parallelism(settings.workers, settings.ray_address))
        players = registered_players()
        tasks = [(players, b, v, f, settings, first, count) for b, v, f in branches for first, count in ranges]
        chunks = map_chunks(_worker, tasks, workers=settings.workers, ray_address=settings.ray_address)
        k = len(ranges)
        parts = [
            (
                np.concatenate([c[0] for c in chunks[i * k : (i + 1) * k]]),
                np.concatenate([c[1] for c in chunks[i * k : (i + 1) * k]]),
            )
            for i in range(len(branches))
        ]
    return [CubefulResult(view, values, cubes) for (_, view, _), (values, cubes) in zip(branches, parts)]


def rollout_cubeful_position(
    board: np.ndarray,
    state: MatchState,
    games: int,
    settings: CubefulSettings = CubefulSettings(),
    agent=None,
    *,
    first_decides: bool = False,
) -> CubefulResult:
    """Roll out a position before its roll for the side on roll (``state.on_roll``, row
    0).  As gnubg's ``rollout`` of the current position, it does not double before
    its first roll (its cube decision is ``rollout_cube_decision``'s question); with
    ``first_decides`` it may."""
    return rollout_branches([(board, CubeView.of(state), first_decides)], games, settings, agent)[0]


def rollout_cube_decision(
    board: np.ndarray, state: MatchState, games: int, settings: CubefulSettings = CubefulSettings(), agent=None
) -> dict:
    """The cube decision of ``state.on_roll`` rolled out: no double (it keeps the cube
    this turn, then plays on as the rollout does) and double/take (the cube doubled and
    the other side's) on the same dice; double/drop is exact.  Names as ``hint --json``."""
    view = CubeView.of(state)
    if not view_may_double(view):
        raise ValueError("the side on roll may not double here (the cube is not its own, or the cube is dead)")
    doubled = view.doubled()
    no_double, double_take = rollout_branches([(board, view, False), (board, doubled, True)], games, settings, agent)
    # double/take values as the doubler's equity at the present cube
    nd = no_double.equity
    taken = _at_cube_values(double_take, view)
    dt, dt_se = float(taken.mean()), standard_error(taken)
    dp = 1.0
    diff = taken - _at_cube_values(no_double, view)
    return {
        "action": _action(nd, dt, dp),
        "equities": {"no_double": nd, "double_take": dt, "double_drop": dp},
        "stderr": {
            "no_double": no_double.equity_stderr,
            "double_take": dt_se,
            "double_take_minus_no_double": standard_error(diff),
        },
        "games": games,
        "doubled_games": {
            "no_double": float(np.mean(no_double.final_cubes > view.cube)),
            "double_take": float(np.mean(double_take.final_cubes > doubled.cube)),
        },
    }


def _at_cube_values(result: CubefulResult, view: CubeView) -> np.ndarray:
    """Per-game values of ``result`` as equities at ``view``'s cube (money: points per
    ``view.cube``; a match: EMG at ``view.cube``)."""
    if view.money:
        return result.values * (result.view.cube / view.cube)
    return mwc_to_equity(result.values, view)


def _action(no_double: float, double_take: float, double_drop: float) -> str:
    """gnubg's names for a cube decision from its three equities."""
    if double_take >= no_double and double_drop >= no_double:
        return "double, take" if double_take < double_drop else "double, drop"
    if double_take >= double_drop and no_double > double_drop:
        return "too good"
    return "no double"


def rollout_after_moves(
    afters: list[np.ndarray], view: CubeView, games: int, settings: CubefulSettings, agent=None
) -> list[CubefulResult]:
    """Roll out post-move boards (the mover, seeing the game as ``view``, in row 0) on the
    same dice, the other side on roll and free to double at once, as gnubg's move
    rollouts; ``mover_equities`` turns each result into the mover's equities."""
    theirs = flip_view(view)
    branches = [(np.ascontiguousarray(after[::-1]), theirs, True) for after in afters]
    return rollout_branches(branches, games, settings, agent)


def rollout_cubeful_moves(
    board: np.ndarray,
    state: MatchState,
    d1: int,
    d2: int,
    games: int,
    settings: CubefulSettings = CubefulSettings(),
    *,
    candidates: int = 5,
    agent=None,
) -> list[dict]:
    """Roll out the ``candidates`` best moves of (d1, d2) by the agent's 0-ply, each
    result with the opponent on roll and free to double, on the same dice; ranked by
    the rolled-out cubeful equity for the mover, best first, each with its standard
    error and the standard error of its difference to the first."""
    agent = agent or rollout_agent(settings.spec)
    view = CubeView.of(state)
    ranked = agent.rank_moves(board, d1, d2, ply=0)[:candidates]
    results = rollout_after_moves([move.board for move in ranked], view, games, settings, agent)
    rows = [(move, mover_equities(result, view), result) for move, result in zip(ranked, results)]
    rows.sort(key=lambda row: -row[1].mean())
    base = rows[0][1]
    out = []
    for move, equities, result in rows:
        diff = equities - base
        out.append(
            {
                "steps": move.steps,
                "equity": float(equities.mean()),
                "equity_stderr": standard_error(equities),
                "diff": float(diff.mean()),
                "diff_stderr": standard_error(diff),
                "doubled_games": float(np.mean(result.final_cubes > view.cube)),
            }
        )
    return out
