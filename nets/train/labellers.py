"""Labellers: who says what a position is worth, named by one spec.

A label is the five cubeless probabilities (win, win gammon, win backgammon, lose
gammon, lose backgammon) of the side on roll, *before* its roll, for a board with
that side in row 0: what the nets are trained to output.  The labeller is a
setting of every command that labels (harvest relabelling, retrain, the benchmark
build), written as a spec:

* ``net:NAME@PLY``: our own search (0, 1 or 2 plies) with a shipped net or a path;
* ``rollout:GAMES`` (or ``rollout:GAMES:NAME``): the mean outcome of GAMES cubeless
  rollout games played by a net's 0-ply, truncated at the bearoff database;
* ``bgsage@PLY``: the Open Sage engine (PyPI ``bgsage``, an optional extra) at its
  PLY, counted its way: its 1-ply is one net evaluation (GNU Backgammon's 0-ply),
  its 3-ply GNU Backgammon's 2-ply.  An offline labeller only: the bot never plays
  through it, and without the package the spec is a clear error.

GNU Backgammon is deliberately not a labeller: it referees the nets trained here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.rules.boards import flip_into
from engine.search.nply import invert_probs
from engine.search.nply import won_probs as _won

BGSAGE_PLIES = (1, 2, 3, 4)


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

    @property
    def spec(self) -> str:
        return f"rollout:{self.games}" + ("" if self.net == "default" else f":{self.net}")

    def require(self) -> None:
        """Raise LabellerError now if labelling would fail for want of something."""

    def label(self, boards: np.ndarray, seed: int = 0) -> np.ndarray:
        from nets.train.labels import _agent

        return rollout_labels(_agent(f"net:{self.net}"), boards, self.games, seed)


def rollout_labels(agent, boards: np.ndarray, games: int, seed: int) -> np.ndarray:
    """The mean outcome of ``games`` cubeless rollout games from each board (side on
    roll in row 0, before its roll), all boards on the same dice."""
    from engine.rollout.cubeless import rollout_position

    return np.array([rollout_position(board, games, agent=agent, seed=seed).probs for board in boards], np.float32)


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
            games, _, net = text[8:].partition(":")
            if int(games) < 1:
                raise ValueError
            return RolloutLabeller(int(games), net or "default")
        if text.startswith("bgsage@"):
            sage_ply = int(text[7:])
            if sage_ply not in BGSAGE_PLIES:
                raise ValueError
            return BgsageLabeller(sage_ply, max(1, threads))
    except ValueError:
        pass
    raise LabellerError(
        f"unknown labeller {spec!r}: expected net:NAME@PLY (PLY 0-2), rollout:GAMES[:NAME] or bgsage@PLY (PLY 1-4)"
    )
