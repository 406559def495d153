"""Sparring partners for the arena: players of a style unlike the bot's own self-play.

The learning loop learns from the positions the bot meets; a sparring partner that
plays as the bot does shows it nothing new.  Each partner here takes its checker
moves its own way and its cube and resignation decisions from the net's 0-ply (so
it doubles, takes and drops like a player):

* ``pubeval``: Tesauro's linear evaluator, loose and blot-strewn;
* ``blitz``: the net's 0-ply with a taste for attack: every checker it sends to the
  bar and every point it holds in its home board is worth more to it than the net
  says, so it hits loose, points on heads and closes out where a calmer player would
  build.  On 600 logged decisions of arena games it plays another move than the
  net's 0-ply in 19% of them, sending 0.08 more checkers to the bar a decision (at
  half these weights: 12%, 0.03).

``blitz`` and ``blitz:NET`` are also player specs for ``fibsbot duel`` (registered on
import), so that its score against a net can be measured on duplicate dice, cubeless,
in thousands of games rather than in a few hundred matches.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.players.agent import MoveChoice
from engine.players.registry import PubevalPlayer, register_player
from engine.rules.moves import result_index
from nets.player import load_agent

BLITZ_HIT = 0.2  # equity per opposing checker on the bar after its move, beyond the net's figure
BLITZ_POINT = 0.08  # equity per point made in its home board


class _CubeLikeTheNet:
    """Cube and resignation decisions by the net's 0-ply agent it is handed."""

    def __init__(self, cube_agent) -> None:
        self.cube_agent = cube_agent

    def __getattr__(self, name: str) -> Any:
        return getattr(self.cube_agent, name)


class PubevalSparring(_CubeLikeTheNet):
    """Pubeval's checker play with the net's 0-ply cube handling."""

    def __init__(self, cube_agent) -> None:
        super().__init__(cube_agent)
        self.player = PubevalPlayer()

    def choose_move(self, board, d1, d2, state=None) -> MoveChoice:
        steps, after = self.player.play(board, d1, d2)
        return MoveChoice(steps, after, 0.0, (), 0, steps, 0.0)


def blitz_bonus(after: np.ndarray) -> float:
    """What the blitzer adds to the net's equity of a result (mover in row 0)."""
    return BLITZ_HIT * int(after[1, 24]) + BLITZ_POINT * int((after[0, :6] >= 2).sum())


class BlitzSparring(_CubeLikeTheNet):
    """The net's 0-ply plus ``blitz_bonus``; the net's agent also takes its cube decisions."""

    kernel = None  # in a duel it plays its own choice in Python, never the net's compiled one

    def __init__(self, cube_agent, name: str = "blitz") -> None:
        super().__init__(cube_agent)
        self.name = name

    def choose(self, board, d1, d2, candidates) -> int:
        """A duel's decision: the index of its move among the legal results ``candidates``."""
        after = self.choose_move(board, d1, d2).board
        return result_index(candidates, after)

    def choose_move(self, board, d1, d2, state=None) -> MoveChoice:
        ranked = self.cube_agent.rank_moves(board, d1, d2, ply=0)  # every legal move, the net's best first
        best = max(ranked, key=lambda move: move.equity + blitz_bonus(move.board))
        score = best.equity + blitz_bonus(best.board)
        return MoveChoice(best.steps, best.board, score, best.probs, 0, best.steps, score)


def make_blitz_player(arg: str) -> BlitzSparring:
    """``blitz[:NET]``: the blitzer over net NET's 0-ply (the shipped default net if none)."""
    return BlitzSparring(load_agent(f"net:{arg or 'default'}@0"), name=f"blitz:{arg}" if arg else "blitz")


register_player("blitz", make_blitz_player)


def sparring_partner(opponent: str, load_agent):
    """The arena's sparring side for ``opponent``: a style (``pubeval``, ``blitz``) or a
    player spec ``net:NAME@PLY`` (``load_agent`` builds the net's agent)."""
    if opponent == "pubeval":
        return PubevalSparring(load_agent("net:default@0"))
    if opponent == "blitz":
        return BlitzSparring(load_agent("net:default@0"))
    return load_agent(opponent)
