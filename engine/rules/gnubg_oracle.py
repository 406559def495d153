"""GNU Backgammon's own rules code (PyPI ``gnubg-nn``) as an oracle for ours.

Only the tests and ``scripts/checks/check_moves_vs_gnubg.py`` use this; ``gnubg_nn`` is a
test dependency, imported here at module level so callers can skip cleanly.

gnubg_nn boards are ``[[not-on-roll row], [on-roll row]]`` (our rows reversed) and
it moves the row-1 player.  Its ``moves`` returns position keys of the results with
the mover still in row 1, and an empty tuple when no move is legal, where we return
the unchanged position once.
"""

from __future__ import annotations

from dataclasses import dataclass

import gnubg_nn
import numpy as np

from engine.rules.moves import MoveBuffers, generate_moves
from engine.rules.position import Phase

# gnubg_nn's classes (its older numbering, before hypergammon): two-sided bearoff
# database, one-sided database, race, crashed, contact.
GNUBG_PHASES = {
    gnubg_nn.c_over: Phase.OVER,
    1: Phase.BEAROFF,  # CLASS_BEAROFF2: both sides within its two-sided database
    gnubg_nn.c_bearoff: Phase.BEAROFF,  # CLASS_BEAROFF1: one-sided database
    gnubg_nn.c_race: Phase.RACE,
    gnubg_nn.c_crashed: Phase.CRASHED,
    gnubg_nn.c_contact: Phase.CONTACT,
}


def gnubg_board(board: np.ndarray) -> list[list[int]]:
    """Our board (mover in row 0) in gnubg_nn's form: lists, mover in row 1."""
    return board[::-1].tolist()


def gnubg_key(board: np.ndarray) -> str:
    return gnubg_nn.key_of_board(gnubg_board(board))


def gnubg_phase(board: np.ndarray) -> Phase:
    return GNUBG_PHASES[gnubg_nn.classify(gnubg_board(board))]


@dataclass
class MoveComparison:
    """Our distinct results against gnubg's, as sets of gnubg position keys."""

    ours: list[str]
    theirs: list[str]
    no_move: bool  # our generator found no legal move

    @property
    def missing(self) -> set[str]:
        """Results gnubg allows that we do not generate."""
        return set(self.theirs) - set(self.ours)

    @property
    def extra(self) -> set[str]:
        """Results we generate that gnubg does not allow."""
        return set(self.ours) - set(self.theirs)

    @property
    def duplicates(self) -> int:
        return len(self.ours) - len(set(self.ours))

    @property
    def agree(self) -> bool:
        if self.no_move:
            # gnubg reports no result at all; we must report the unchanged board once
            return not self.theirs and len(self.ours) == 1
        return not self.missing and not self.extra and not self.duplicates

    def describe(self) -> str:
        return (
            f"ours {len(self.ours)} results, gnubg {len(self.theirs)}; missing "
            f"{sorted(self.missing)}, extra {sorted(self.extra)}, duplicates {self.duplicates}"
        )


def compare_moves(board: np.ndarray, d1: int, d2: int, buffers: MoveBuffers | None = None) -> MoveComparison:
    buffers = buffers or MoveBuffers()
    n = generate_moves(board, d1, d2, *buffers.args())
    no_move = bool(buffers.steps[0, 0, 0] < 0)
    ours = [gnubg_key(buffers.boards[i]) for i in range(n)]
    theirs = list(gnubg_nn.moves(gnubg_board(board), d1, d2))
    return MoveComparison(ours, theirs, no_move)


def apply_gnubg_move(board: np.ndarray, flat_move) -> np.ndarray:
    """Play gnubg's ``[from, to, from, to, ...]`` (0-based, 24 bar, negative off) on
    our board (mover in row 0); the mover stays in row 0."""
    after = board.copy()
    for src, dst in zip(flat_move[0::2], flat_move[1::2]):
        if after[0, src] == 0:
            raise ValueError(f"gnubg move {flat_move} takes a checker from empty column {src}")
        after[0, src] -= 1
        if dst >= 0:
            after[0, dst] += 1
            if after[1, 23 - dst] == 1:  # a blot is hit and goes to its bar
                after[1, 23 - dst] = 0
                after[1, 24] += 1
    return after


def gnubg_pubeval_result(board: np.ndarray, d1: int, d2: int) -> np.ndarray:
    """The board after gnubg's pubeval move (unchanged when no move is legal)."""
    return apply_gnubg_move(board, list(gnubg_nn.pub_best_move(gnubg_board(board), d1, d2)))
