"""Labellers: who says what a position is worth, named by one spec.

A label is the five cubeless probabilities (win, win gammon, win backgammon, lose
gammon, lose backgammon) of the side on roll, *before* its roll, for a board with
that side in row 0: what the nets are trained to output.  The labeller is a
setting of every command that labels (harvest relabelling, retrain, the benchmark
build), written as a spec:

* ``net:NAME@PLY``: our own search (0, 1 or 2 plies) with a shipped net or a path;
* ``rollout:GAMES`` (or ``rollout:GAMES:NAME``): the mean outcome of GAMES cubeless
  rollout games played by a net's 0-ply, truncated at the bearoff database; ``+vr``
  adds variance reduction (luck adjustment over the 21 rolls at every turn) and
  ``+prune`` plays as gnubg's rollouts do (the pruning net picks the moves the full
  net scores), e.g. ``rollout:36+vr+prune``; ``rollout:GAMES/CLOSE`` is for benchmark
  labelling (``nets.train.benchmark.labelling``): every candidate move gets GAMES, and
  those still close to the best get CLOSE more, on fresh dice (a short rollout's noise
  otherwise decides which close move is "best");
* ``bgsage@PLY``: the Open Sage engine (PyPI ``bgsage``, an optional extra) at its
  PLY, counted its way: its 1-ply is one net evaluation (GNU Backgammon's 0-ply),
  its 3-ply GNU Backgammon's 2-ply.  An offline labeller only: the bot never plays
  through it, and without the package the spec is a clear error.

GNU Backgammon is deliberately not a labeller: it referees the nets trained here.

``default_labeller`` is the strongest one available, in this order: Open Sage at its
3-ply (GNU Backgammon's 2-ply depth) where the extra is installed, else our own
variance-reduced, pruned rollouts (``DEFAULT_ROLLOUT``).  ``label_spread`` labels over
local processes or a Ray cluster, as rollouts do.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.eval.eval_sets import won_probs as _won
from engine.rules.boards import flip_into
from engine.search.nply import invert_probs

BGSAGE_PLIES = (1, 2, 3, 4)
DEFAULT_BGSAGE = "bgsage@3"
# 36 variance-reduced games carry about the information of ~800 plain ones (the luck of
# every roll is taken out), pruning halves the cost of each game
DEFAULT_ROLLOUT = "rollout:36+vr+prune"


class LabellerError(ValueError):
    """A labeller spec that names nothing usable."""


@dataclass(frozen=True)
class NetLabeller:
    net: str
    ply: int

    @property
    def spec(self) -> str:
        return f"net:{self.net}@{self.ply}"

    def require(self) -> None:
        """Raise LabellerError now if labelling would fail for want of something."""

    def label(self, boards: np.ndarray, seed: int = 0) -> np.ndarray:
        from nets.train.labels import _agent, label_positions

        return label_positions(_agent(f"net:{self.net}"), boards, self.ply)


@dataclass(frozen=True)
class RolloutLabeller:
    games: int
    net: str = "default"
    varredn: bool = False
    prune: bool = False
    close_games: int = 0  # benchmark labelling only: more games for the candidates close to the best

    @property
    def spec(self) -> str:
        flags = ("+vr" if self.varredn else "") + ("+prune" if self.prune else "")
        games = f"{self.games}/{self.close_games}" if self.close_games else f"{self.games}"
        return f"rollout:{games}" + ("" if self.net == "default" else f":{self.net}") + flags

    def closer(self) -> RolloutLabeller | None:
        """The labeller of the second look at close candidates (None: there is none)."""
        if not self.close_games:
            return None
        return RolloutLabeller(self.close_games, self.net, self.varredn, self.prune)

    def require(self) -> None:
        """Raise LabellerError now if labelling would fail for want of something."""

    def label(self, boards: np.ndarray, seed: int = 0) -> np.ndarray:
        from engine.rollout.cubeless import ROLLOUT_PRUNE_KEEP
        from nets.train.labels import _agent

        prune = ROLLOUT_PRUNE_KEEP if self.prune else 0
        agent = _agent(f"net:{self.net}")
        return rollout_labels(agent, boards, self.games, seed, varredn=self.varredn, prune=prune)


def rollout_labels(
    agent, boards: np.ndarray, games: int, seed: int, *, varredn: bool = False, prune: int = 0
) -> np.ndarray:
    """The mean outcome of ``games`` cubeless rollout games from each board (side on
    roll in row 0, before its roll), all boards on the same dice; clipped to [0, 1], which
    a variance-reduced mean (the luck taken out) can leave by a little."""
    from engine.rollout.cubeless import rollout_position

    probs = [
        rollout_position(board, games, agent=agent, seed=seed, varredn=varredn, prune=prune).probs for board in boards
    ]
    return np.clip(np.array(probs, np.float32).reshape(-1, 5), 0.0, 1.0)


def sage_board(board: np.ndarray) -> list[int]:
    """Our board (side on roll in row 0) as bgsage's 26 signed counts from the side
    on roll's view: index i (1..24) is its point i, its checkers positive and the
    opponent's negative; index 25 its bar, index 0 the opponent's bar."""
    out = [0] * 26
    for i in range(24):
        out[i + 1] += int(board[0, i])
        out[24 - i] -= int(board[1, i])  # the opponent's point i + 1 is our point 24 - i
    out[25] = int(board[0, 24])
    out[0] = int(board[1, 24])
    return out


def finished_label(board: np.ndarray) -> np.ndarray | None:
    """The exact label of a board whose game is over (one side has borne off), else None."""
    if board[1].sum() != 0:
        return None
    mover = np.empty((2, 25), np.int8)
    flip_into(board, mover)  # the side that just moved, in row 0, has no checkers left
    won = np.empty(5, np.float32)
    _won(mover, won)
    invert_probs(won, won)
    return won


@dataclass(frozen=True)
class BgsageLabeller:
    ply: int
    threads: int = 1

    @property
    def spec(self) -> str:
        return f"bgsage@{self.ply}"

    def require(self) -> None:
        _bgsage_batch()

    def label(self, boards: np.ndarray, seed: int = 0) -> np.ndarray:
        batch_evaluate = _bgsage_batch()
        out = np.zeros((len(boards), 5), np.float32)
        todo = []
        for i, board in enumerate(boards):
            done = finished_label(board)
            if done is None:
                todo.append(i)
            else:
                out[i] = done
        if todo:
            # cubeless: the probabilities do not depend on the cube, so a centred cube at 1
            results = batch_evaluate(
                [{"board": sage_board(boards[i]), "cube_value": 1, "cube_owner": "centered"} for i in todo],
                eval_level=f"{self.ply}ply",
                n_threads=self.threads,
            )
            for i, result in zip(todo, results):
                out[i] = result.probs.to_list()
        return out


def _bgsage_batch():
    try:
        from bgsage.batch import batch_evaluate
    except ImportError as exc:
        raise LabellerError("the bgsage labeller needs the optional package: pip install 'fibsbot[bgsage]'") from exc
    return batch_evaluate


Labeller = NetLabeller | RolloutLabeller | BgsageLabeller


def parse_labeller(spec: str, threads: int = 1) -> Labeller:
    """The labeller a spec names (see the module's doc); LabellerError if none."""
    text = spec.strip()
    try:
        if text.startswith("net:"):
            name, _, ply = text[4:].rpartition("@")
            if not name or int(ply) not in (0, 1, 2):
                raise ValueError
            return NetLabeller(name, int(ply))
        if text.startswith("rollout:"):
            head, *flags = text[8:].split("+")
            counts, _, net = head.partition(":")
            games, slash, close = counts.partition("/")
            close_games = int(close) if slash else 0
            if int(games) < 1 or not set(flags) <= {"vr", "prune"} or len(set(flags)) != len(flags):
                raise ValueError
            if slash and close_games < 1:
                raise ValueError
            return RolloutLabeller(int(games), net or "default", "vr" in flags, "prune" in flags, close_games)
        if text.startswith("bgsage@"):
            sage_ply = int(text[7:])
            if sage_ply not in BGSAGE_PLIES:
                raise ValueError
            return BgsageLabeller(sage_ply, max(1, threads))
    except ValueError:
        pass
    raise LabellerError(
        f"unknown labeller {spec!r}: expected net:NAME@PLY (PLY 0-2), rollout:GAMES[/CLOSE][:NAME][+vr][+prune] "
        "or bgsage@PLY (PLY 1-4)"
    )


def default_labeller() -> str:
    """The strongest labeller this installation has: Open Sage's 3-ply, else our rollouts."""
    try:
        _bgsage_batch()
    except LabellerError:
        return DEFAULT_ROLLOUT
    return DEFAULT_BGSAGE


def label_spread(
    spec: str, boards: np.ndarray, *, seed: int = 0, workers: int = 1, ray_address: str | None = None
) -> np.ndarray:
    """``parse_labeller(spec).label(boards, seed)`` shared over ``workers`` local processes or
    the Ray cluster at ``ray_address`` (the same labels as one process: each board's rollout
    dice depend on the seed alone)."""
    from engine.rollout.parallel import map_chunks, parallelism

    boards = np.ascontiguousarray(boards, np.int8).reshape(-1, 2, 25)
    if len(boards) == 0:
        return np.zeros((0, 5), np.float32)
    if isinstance(parse_labeller(spec), BgsageLabeller) and ray_address is None:
        return parse_labeller(spec, threads=workers).label(boards, seed=seed)  # threads of its own
    pieces = parallelism(workers, ray_address) * 4 if (workers > 1 or ray_address) else 1
    chunks = [c for c in np.array_split(boards, pieces) if len(c)]
    labelled = map_chunks(_label_chunk, [(spec, c, seed) for c in chunks], workers=workers, ray_address=ray_address)
    return np.concatenate(labelled).astype(np.float32)


def _label_chunk(spec: str, boards: np.ndarray, seed: int) -> np.ndarray:
    return parse_labeller(spec).label(boards, seed=seed)
