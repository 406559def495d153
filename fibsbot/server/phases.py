"""The phases a server match (``fibsbot.server.match``) moves through, and a refused command.

Apart from the match so that its mixins (``fibsbot.server.offers``) share them
without importing the match back.
"""

from __future__ import annotations

from enum import Enum

CENTRED = -1  # the cube owner while nobody owns the cube

Line = tuple[int, str]


class Phase(Enum):
    ROLL = "roll"  # the side on roll must roll or double
    MOVE = "move"  # dice are out, the side on roll must move
    TAKE = "take"  # a double waits for an answer
    BETWEEN = "between"  # a game is over, the next one waits for both to join
    OVER = "over"  # the match is decided


class MatchError(Exception):
    """A command refused; ``str`` is the ``** ...`` line for the player who sent it."""
