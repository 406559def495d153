"""The Crawford game in a match record: the recorder's own reckoning, and what the file says of it.

The recorder (``records.matfile.MatchRecorder``) decides which game is the
Crawford game from the games it holds, left-out and unseen ones included
(``fibsbot.protocol.match.crawford``: the game that begins at ``length - 1``
after one that began short of it); the server's word counts only where the
record cannot tell.  A reader that finds nothing else in a ``.mat`` takes the
file's first game at ``length - 1`` for the Crawford game (gnubg does); where
that is wrong, because the Crawford game is not in the file, the header names
it: ``; [CrawfordGame "N"]``, or ``"none"``.  A double that a server accepted
in the Crawford game is kept, with ``; [Server rule breach "Game N: ..."]``.
"""

from __future__ import annotations

from typing import Protocol

from fibsbot.protocol.match.crawford import reckon_crawford

CRAWFORD_GAME_HEADER = "CrawfordGame"  # the file's number of the Crawford game, or "none"
RULE_BREACH_HEADER = "Server rule breach"  # "Game N: ...": the server allowed what the rules forbid

Score = tuple[int, int]


def crawford_by_scores(length: int, scores: list[Score]) -> int | None:
    """The index of the game a reader takes for the Crawford game when the file says nothing:
    the first that begins with a player at ``length - 1``."""
    if length <= 0:
        return None
    return next((i for i, score in enumerate(scores) if length - 1 in score and max(score) < length), None)


class _RecordedGame(Protocol):
    number: int
    score: Score
    crawford: bool

    @property
    def end_score(self) -> Score | None: ...


class CrawfordReckoning:
    """A mixin of ``MatchRecorder``: the Crawford verdict of each game begun."""

    crawford_rule: bool
    match_length: int
    games: list  # of _RecordedGame
    _crawford_at: dict[Score, bool]  # every game begun (left-out and unseen ones too), by its score
    _last_start: Score | None

    def crawford_game_at(self, score: Score) -> bool | None:
        """Whether the game beginning at ``score`` is the Crawford game, as this record tells
        it (a game begun already keeps its verdict); None when the record cannot tell."""
        known = self._crawford_at.get((int(score[0]), int(score[1])))
        return known if known is not None else self._reckon_crawford(score)

    def _reckon_crawford(self, score: Score) -> bool | None:
        if not self.crawford_rule:
            return False
        previous = self._last_start
        games: list[_RecordedGame] = self.games
        ended = next((game.end_score for game in reversed(games) if game.score == previous), None)
        if ended is not None and ended != score:  # games between that the record does not hold
            return False if self.match_length - 1 in ended else None
        return reckon_crawford(self.match_length, score, previous)

    def _crawford_verdict(self, score: Score, server_says: bool | None) -> bool:
        """The verdict for a game beginning at ``score``, remembered; the server's word, or
        else the first game seen at ``length - 1``, only where the record cannot tell."""
        verdict = self._reckon_crawford(score)
        if verdict is None:
            first_seen = not any(self._crawford_at.values()) and self.match_length - 1 in score
            verdict = bool(server_says) if server_says is not None else first_seen
        verdict = verdict and self.match_length > 0
        self._crawford_at[score] = verdict
        self._last_start = score
        return verdict

    def _crawford_header(self) -> list[str]:
        """``CrawfordGame`` where a reader would take another game (or one not in the file) for it."""
        games: list[_RecordedGame] = self.games
        ours = next((game.number for game in games if game.crawford), None)
        first = crawford_by_scores(self.match_length, [game.score for game in games])
        if (games[first].number if first is not None else None) == ours:
            return []
        return [f'; [{CRAWFORD_GAME_HEADER} "{ours if ours is not None else "none"}"]']
