"""Which game of a match is its Crawford game, from our own record of the match.

The Crawford game is the first game after a player reaches one point short of
the match length: the game that begins with a player at ``length - 1`` while
the game before it began with nobody there.  The board line says so too
(fields 50 and 51), but a server that reloads a saved match at or inside its
Crawford game may lose it: the post-Crawford field goes from 0 to 1 at the same
score, and the server then accepts a double.  So the record decides, and the
board only where the record cannot tell (it does not reach back to the game
before).

Games are never missed between two that the bot saw: a server saves the match
while the bot is away, so the previous game known is the game just before.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import structlog

from fibsbot.protocol.board import FibsBoard

log = structlog.get_logger("fibsbot.protocol.match.driver")

Score = tuple[int, int]


def reckon_crawford(length: int, score: Score, previous: Score | None) -> bool | None:
    """Whether the game beginning at ``score`` is the Crawford game, given the score the
    game just before it began at (None: not known); None when that cannot be told."""
    if length <= 0 or max(score) >= length or length - 1 not in score:
        return False
    if previous is None:
        return True if score == (0, 0) else None  # a 1-point match: its first game
    return length - 1 not in previous


class MatchRecord(Protocol):
    """A record of our matches kept beyond this process (the match journal)."""

    def crawford_game(self, opponent: str, length: int, score: Score) -> bool | None:
        """Whether the game at ``score`` of the match with ``opponent`` is its Crawford
        game, as the record tells it; None when the record cannot."""
        ...


@dataclass
class _Match:
    length: int
    verdicts: dict[Score, bool] = field(default_factory=dict)  # by the score each game began at
    last_start: Score | None = None
    board_claims: dict[Score, bool] = field(default_factory=dict)  # what the latest board of each game said


class CrawfordBook:
    """The games of each running match seen in this process, by opponent: it outlives a
    reload or a reconnection, and asks ``record`` about the games before its memory."""

    def __init__(self, record: MatchRecord | None = None) -> None:
        self.record = record
        self._matches: dict[str, _Match] = {}

    def forget(self, opponent: str | None) -> None:
        """A match ended or a new one began with ``opponent``."""
        self._matches.pop(opponent or "", None)

    def for_board(self, opponent: str, board: FibsBoard) -> bool:
        """Whether the game on ``board`` (in progress) is played under the Crawford rule: our
        record says so, or the server does (it will not take a double then either).  A board
        that contradicts the record is logged when its claim first differs or changes."""
        board_says = board.is_crawford_game
        if board.is_unlimited:
            return board_says
        score = (board.player_score, board.opponent_score)
        ours = self.is_crawford(opponent, board.match_length, score, board_says=board_says)
        claims = self._matches[opponent].board_claims
        if ours != board_says and claims.get(score) != board_says:
            log.warning(
                "crawford_flag_disagrees",
                opponent=opponent,
                score=list(score),
                our_record=ours,
                board=board_says,
                post_crawford_field=board.post_crawford,
                no_crawford_field=board.no_crawford,
            )
        claims[score] = board_says
        return ours or board_says

    def is_crawford(self, opponent: str, length: int, score: Score, *, board_says: bool) -> bool:
        """The verdict for the game in progress at ``score``; the first board of a game
        decides it once, so that a later board (after a reload) cannot change it."""
        match = self._matches.get(opponent)
        if match is None or match.length != length:
            match = self._matches[opponent] = _Match(length)
        verdict = match.verdicts.get(score)
        if verdict is not None:
            return verdict
        verdict = reckon_crawford(length, score, match.last_start)
        if verdict is None and match.last_start is None and self.record is not None:
            verdict = self.record.crawford_game(opponent, length, score)
        if verdict is None:
            verdict = board_says
        if match.last_start is None or sum(score) > sum(match.last_start):
            match.last_start = score
        match.verdicts[score] = verdict
        return verdict
