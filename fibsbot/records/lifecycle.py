"""The life of a match in the records: its start or resume, its end, and the matches that ended unseen.

``MatchLifecycle`` is the part of ``records.observer.MatchRecords`` that opens and
closes journals; the following of the game in between stays in the observer.  A new
match concludes the opponent's unfinished journals (the server keeps no saved match
beside a new one).  A resumed match continues its journal once the first board shows
where the server stands (``records.resync.reconcile``).  A saved-match listing that
no longer names an opponent concludes that opponent's journals: the match ended
while we were away.  The end of a match is journaled at the server's final score,
or, in a game the record left out, at the score the server's last board and the
points won make.

A match the bot plays always gets a record: when its start or resume line never came
(lost, or glued to another line by a faulty server), its first board of a game in
progress begins it, for it carries the names, the length and the score.  The
opponent's unfinished journal of that length is continued, as for a resume, unless a
new game at 0-0 was just announced: then it is a new match, as if its start had come.
"""

from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fibsbot.protocol.board import FibsBoard
from fibsbot.protocol.events import MatchEnd, MatchResumed, MatchStart, NoSavedMatches, SavedMatch, SavedMatchesHeader
from fibsbot.records.decisions import DecisionLog
from fibsbot.records.journal import FINISHED, REPLACED, MatchJournal
from fibsbot.records.resync import conclude, reconcile


class MatchLifecycle:
    """Mixin of ``MatchRecords``: opening, resuming, concluding and finishing match journals."""

    # set by ``MatchRecords.__init__``, which explains them
    matches_dir: Path
    user: str
    site: str | None
    events: Any
    decisions: DecisionLog
    journal: MatchJournal | None
    finished: deque[Path]
    finished_count: int
    _resync: bool
    _new_game: bool
    _opening: tuple[int, int] | None
    _listing: set[str] | None
    _live: Path | None
    _score_before_game: tuple[int, int] | None

    if TYPE_CHECKING:  # the following of the game, in ``MatchRecords``

        def guarded(self, source: str, function: Any, *args: Any) -> None: ...

        def leave_out(self, reason: str) -> None: ...

    # --- a match begins ---------------------------------------------------------------------

    def _start(self, event: MatchStart) -> None:
        self._begin(event.opponent, event.length, announced=True)

    def _begin(self, opponent: str, length: int | None, *, announced: bool, event: str | None = None) -> None:
        for path in MatchJournal.unfinished(self.matches_dir, self.user, opponent):
            # the server keeps no saved match beside a new one: it ended unseen, or this one replaces it
            self._conclude(MatchJournal.load(path), leave_out=False)
        journal = MatchJournal.create(self.matches_dir, self.user, opponent, length, site=self.site, event=event)
        self._open(journal)
        self.events.info(
            "match_start", opponent=opponent, length=length, record=journal.mat_path.name, announced=announced
        )

    def _resumed(self, event: MatchResumed) -> None:
        self._resume(event.opponent, event.length, MatchJournal.unfinished(self.matches_dir, self.user, event.opponent))

    def _resume(self, opponent: str, length: int | None, found: list[Path], *, announced: bool = True) -> None:
        if found:
            journal = MatchJournal.load(found[-1])
        else:
            journal = MatchJournal.create(
                self.matches_dir, self.user, opponent, length, site=self.site, event="resumed match"
            )
        self._open(journal)
        self._resync = True
        self.events.info(
            "match_resumed",
            opponent=opponent,
            length=length,
            record=journal.mat_path.name,
            continued=bool(found),
            announced=announced,
        )

    def _begin_from_board(self, board: FibsBoard) -> None:
        """A board of a game in progress of a match we play that has no record open: its start or
        resume line never came, so the board begins the record (see the module's docstring)."""
        length = 0 if board.is_unlimited else board.match_length
        score = (board.player_score, board.opponent_score)
        announced_game, opening = self._new_game, self._opening  # "Starting a new game" came before the board
        first_game = announced_game and score == (0, 0)
        if board.turn == 0 or self._recording(board.opponent, length, first_game):
            return
        self.events.warning("match_start_unseen", opponent=board.opponent, length=length, score=list(score))
        found = [
            path
            for path in MatchJournal.unfinished(self.matches_dir, self.user, board.opponent)
            if (MatchJournal.load(path).header.get("length") or 0) == length
        ]
        if first_game or not found:
            event = None if score == (0, 0) else "resumed match"
            self._begin(board.opponent, length or None, announced=False, event=event)
            # the game was seen from its start: it is recorded from there
            self._new_game, self._opening = announced_game, opening
        else:
            self._resume(board.opponent, length or None, found, announced=False)  # the board resyncs it

    def _recording(self, opponent: str, length: int, first_game: bool) -> bool:
        """Whether the record open is of the match with ``opponent`` of ``length`` points (0:
        unlimited); ``first_game``: a game at 0-0 was announced, which only a new match has."""
        journal = self.journal
        if journal is None or journal.header["opponent"] != opponent:
            return False
        if (journal.recorder.match_length or length) != length:
            return False
        return not (first_game and any(action[0] in ("game", "unseen") for action in journal.actions))

    def _open(self, journal: MatchJournal) -> None:
        self.decisions.unplace_left_out(journal)  # a kill may have come between a leave-out and the queue
        self.journal = journal
        self._live = journal.path
        self._new_game = False
        self._opening = None
        self._score_before_game = None

    def _resync_with(self, journal: MatchJournal, board: FibsBoard) -> None:
        """The first board of a resumed match: bring the journal to where the server stands."""
        actions, note = reconcile(journal, board)
        kept = _common(journal.actions, actions)  # our unsent action may have been taken back
        if actions != journal.actions:
            journal.rewrite(actions)
        self.events.info(
            "record_resumed",
            record=journal.mat_path.name,
            games=len(journal.recorder.games),
            actions=len(actions),
            state=note,
        )
        self._rewritten(journal, kept, note)

    # --- matches that ended while we were away ----------------------------------------------

    def _listing_begins(self, event: SavedMatchesHeader) -> None:
        self._listing = set()

    def _listed(self, event: SavedMatch) -> None:
        if self._listing is not None:
            self._listing.add(event.opponent)

    def _none_saved(self, event: NoSavedMatches) -> None:
        self._conclude_unlisted(set())

    def _conclude_unlisted(self, listed: set[str]) -> None:
        """Journals of matches the server no longer keeps: the match ended while we were away.
        Of an opponent's unfinished journals only the newest can be the match the server lists."""
        journals = [
            self.journal if self.journal is not None and self.journal.path == path else MatchJournal.load(path)
            for path in MatchJournal.unfinished(self.matches_dir, self.user)
            if path != self._live
        ]
        newest = {journal.header["opponent"]: journal.path for journal in journals}  # oldest first
        for journal in journals:
            if journal.header["opponent"] not in listed or newest[journal.header["opponent"]] != journal.path:
                self._conclude(journal, leave_out=True)

    def _conclude(self, journal: MatchJournal, leave_out: bool) -> None:
        """Complete a match that ended unseen; ``leave_out``: else leave its game out (with why)."""
        actions, note = conclude(journal)
        if note == "left_out" and not leave_out:
            journal.finish(REPLACED)  # a new match took its place: the record stays as it was
            self.events.info("record_replaced", journal=journal.path.name)
            return
        before = len(journal.actions)
        if actions != journal.actions:
            journal.rewrite(actions)
        journal.finish(FINISHED if journal.recorder.is_over else REPLACED)
        if self.journal is journal:
            self.journal = None
        self.events.info("record_concluded", record=journal.mat_path.name, state=note, status=journal.status)
        self._rewritten(journal, before, note)

    def _rewritten(self, journal: MatchJournal, before: int, note: str) -> None:
        """Log what a resync or conclusion added: rolls it could only guess, a game it left out."""
        for action in journal.actions[before:]:
            if action[0] == "roll_guessed":
                self.events.warning(
                    "roll_guessed",
                    record=journal.mat_path.name,
                    player=action[1],
                    recorded=action[2:4],
                    fitting=action[4],
                )
        if note == "left_out":
            self.events.warning("game_left_out", record=journal.mat_path.name, reason=journal.actions[-1][1])
            self.decisions.unplace_left_out(journal)

    # --- the match ends ---------------------------------------------------------------------

    def _match_over(self, winner: int, points: int) -> None:
        """A score that reaches the length ends the match, match-end line or not; in a game the
        record left out, the server's score before the game and the points won say so."""
        journal = self.journal
        if journal is None:
            return
        if journal.recorder.is_over:
            self._finish(None)
            return
        length, before = journal.recorder.match_length, self._score_before_game
        if journal.game_in_progress or not length or before is None:
            return
        score = list(before)
        score[winner] += points
        if score[winner] >= length:
            self._finish(None, (score[0], score[1]))

    def _match_end(self, event: MatchEnd) -> None:
        self._finish(event)

    def _finish(self, event: MatchEnd | None, server_score: tuple[int, int] | None = None) -> None:
        journal = self.journal
        if journal is None:
            return
        self.leave_out("the match ended before this game was recorded")
        score: tuple[int, ...] = server_score or journal.recorder.score
        if event is not None:  # the server's score stands, whatever games the record left out
            score = tuple(event.scores) if event.we_won else tuple(reversed(event.scores))
        self.guarded("match end", journal.record, "end", *score)
        journal.finish()
        self.journal = None
        self.finished.append(journal.mat_path)
        self.finished_count += 1
        we_won = event.we_won if event is not None else score[0] > score[1]
        scores = list(event.scores) if event is not None else sorted(score, reverse=True)
        winner = self.user if we_won else journal.header["opponent"]
        self.events.info(
            "match_end",
            winner=winner,
            we_won=we_won,
            scores=scores,
            announced=event is not None,
            record=journal.mat_path.name,
        )


def _common(a: list, b: list) -> int:
    """The length of the common beginning of two action lists."""
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
