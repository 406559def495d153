"""0-ply evaluation with a pair of nets (contact and race) and the neural move choice.

An ``Evaluator`` holds a contact net and optionally a race net; positions with no
contact left go to the race net.  Inside numba the pair travels as one tuple
(``NetPair``, from ``Evaluator.kernel_params``) so duels and training run without
Python in the loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
from numba import njit

from engine.eval.limits import MAX_HIDDEN, MAX_INPUTS, MAX_SECOND_HIDDEN, RAW_LANES
from engine.eval.net import Net, as_board_batch, equity_of, evaluate_one
from engine.eval.pubeval import board_has_contact
from engine.rules.boards import mover_win_points


class NetPair(NamedTuple):
    """The contact net's ``NetArrays`` fields, the race net's (the contact net again
    when there is none), and whether to use the race net: flat, in this order, as
    the training kernels unpack it."""

    contact_W1: np.ndarray
    contact_b1: np.ndarray
    contact_W2: np.ndarray
    contact_b2: np.ndarray
    contact_W3: np.ndarray
    contact_b3: np.ndarray
    contact_arch: int
    contact_enc: int
    race_W1: np.ndarray
    race_b1: np.ndarray
    race_W2: np.ndarray
    race_b2: np.ndarray
    race_W3: np.ndarray
    race_b3: np.ndarray
    race_arch: int
    race_enc: int
    use_race: bool


# inline: a call passes the nets' tuple of arrays field by field, and this runs for
# every position a lookahead looks up (the 2-ply search ran about 15% faster inlined)
@njit(cache=True, inline="always")
def evaluate_pair(nets, board, x, h, raw, probs):
    """Five probabilities of ``board`` (side on roll in row 0) with the fitting net."""
    if nets.use_race and not board_has_contact(board):
        evaluate_one(
            nets.race_W1,
            nets.race_b1,
            nets.race_W2,
            nets.race_b2,
            nets.race_W3,
            nets.race_b3,
            nets.race_arch,
            nets.race_enc,
            board,
            x,
            h,
            raw,
            probs,
        )
    else:
        evaluate_one(
            nets.contact_W1,
            nets.contact_b1,
            nets.contact_W2,
            nets.contact_b2,
            nets.contact_W3,
            nets.contact_b3,
            nets.contact_arch,
            nets.contact_enc,
            board,
            x,
            h,
            raw,
            probs,
        )


@njit(cache=True)
def candidate_equities(nets, candidates, n, equities, probs_out):
    """Equity for the mover of each post-move board (mover in row 0), and the
    mover's five probabilities in ``probs_out``."""
    x = np.zeros(MAX_INPUTS, dtype=np.float32)
    h = np.empty(MAX_HIDDEN, dtype=np.float32)
    raw = np.empty(RAW_LANES, dtype=np.float32)
    opp = np.empty(5, dtype=np.float32)
    flipped = np.empty((2, 25), dtype=np.int8)
    for i in range(n):
        cand = candidates[i]
        if cand[0].sum() == 0:
            pts = mover_win_points(cand)
            equities[i] = pts
            probs_out[i, 0] = 1.0
            probs_out[i, 1] = 1.0 if pts >= 2 else 0.0
            probs_out[i, 2] = 1.0 if pts >= 3 else 0.0
            probs_out[i, 3] = 0.0
            probs_out[i, 4] = 0.0
            continue
        for k in range(25):
            flipped[0, k] = cand[1, k]
            flipped[1, k] = cand[0, k]
        evaluate_pair(nets, flipped, x, h, raw, opp)
        probs_out[i, 0] = 1.0 - opp[0]
        probs_out[i, 1] = opp[3]
        probs_out[i, 2] = opp[4]
        probs_out[i, 3] = opp[1]
        probs_out[i, 4] = opp[2]
        equities[i] = -equity_of(opp)


@njit(cache=True)
def best_candidate(candidates, n, equities):
    """Index of the candidate to play: the highest equity, except that a move ending
    the game always beats playing on.  Winning now is never worse than any
    continuation, but a net's estimate of playing on can exceed the single point a
    finished game brings (an untrained net may see a sure gammon), so trusting the
    equities alone could decline the win."""
    best = -1
    for i in range(n):
        if candidates[i, 0].sum() == 0 and (best < 0 or equities[i] > equities[best]):
            best = i
    if best >= 0:
        return best
    best = 0
    for i in range(1, n):
        if equities[i] > equities[best]:
            best = i
    return best


@njit(cache=True)
def net_choose(params, board, n, candidates):
    """Kernel for duels: the candidate with the highest 0-ply equity (a win first)."""
    nets, equities, probs = params
    candidate_equities(nets, candidates, n, equities, probs)
    return best_candidate(candidates, n, equities)


@dataclass
class Evaluator:
    """A contact net plus an optional race net."""

    contact: Net
    race: Net | None = None
    name: str = "net"
    prune: Net | None = None  # a small net that pre-selects replies inside a search
    # a one-layer net that picks the few moves a costly contact net (two hidden layers)
    # scores at a 0-ply root (``engine.eval.static.prune_root``)
    root: Net | None = None

    def kernel_params(self) -> NetPair:
        race = self.race or self.contact
        if (
            max(self.contact.W1.shape[0], race.W1.shape[0]) > MAX_INPUTS
            or max(self.contact.hidden, race.hidden) > MAX_HIDDEN
            or max(self.contact.hidden2, race.hidden2) > MAX_SECOND_HIDDEN
        ):
            raise ValueError(
                f"nets larger than {MAX_INPUTS} inputs, {MAX_HIDDEN} hidden units or {MAX_SECOND_HIDDEN} in a "
                "second hidden layer are not supported"
            )
        return NetPair(*self.contact.arrays(), *race.arrays(), self.race is not None)

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        """(n, 5) probabilities of boards with the side on roll in row 0."""
        boards, single = as_board_batch(boards)
        out = np.zeros((len(boards), 5), dtype=np.float32)
        nets = self.kernel_params()
        x = np.zeros(MAX_INPUTS, np.float32)
        h = np.empty(MAX_HIDDEN, np.float32)
        raw = np.empty(RAW_LANES, np.float32)
        for i in range(len(boards)):
            evaluate_pair(nets, boards[i], x, h, raw, out[i])
        return out[0] if single else out

    def move_equities(self, candidates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Equities and probabilities, for the mover, of post-move boards."""
        n = len(candidates)
        equities = np.zeros(n, np.float64)
        probs = np.zeros((n, 5), np.float32)
        candidate_equities(self.kernel_params(), np.ascontiguousarray(candidates), n, equities, probs)
        return equities, probs

    @classmethod
    def load(cls, path: str | Path) -> Evaluator:
        """A net file, or a pair: ``X.npz`` with ``X.race.npz`` beside it (and ``X.prune.npz``,
        ``X.root.npz`` where they are there)."""
        path = Path(path).with_suffix(".npz")

        def beside(role: str) -> Net | None:
            found = path.with_name(f"{path.stem}.{role}.npz")
            return Net.load(found) if found.exists() else None

        return cls(Net.load(path), beside("race"), path.stem, beside("prune"), beside("root"))
