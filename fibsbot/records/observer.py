"""The records a match leaves: the match journal and ``.mat``, the JSON event log, the training queue.

``MatchRecords`` is a match observer (``fibsbot.protocol.match.outputs.MatchObserver``): it
watches events and decisions and never steers.  Player 0 of every record is us.
Every action goes into the match's journal (``records.journal``) at once, synced
to disk, and the ``.mat`` beside it is rewritten with it.  Our own actions are
journaled from our decisions *before* the command is sent (the client tells its
observers first), so a kill can only leave one of ours that the server never got,
which ``records.resync`` takes back; the opponent's come from the server's lines,
translated to their own numbering (their direction is the opposite of ours).

A resumed match continues its journal and ``.mat`` once the first board shows
where the server stands; a roll it never saw that changes no position (a dance, or
two rolls to one board) is recorded as one roll that fits, with a log line.  A game
whose beginning we never saw, or that cannot be followed, is left out of the ``.mat``
with one log line, and the queue rows of its decisions lose their place in the file.
The end of a match is journaled at the server's final score.  A failure in here is
logged once, with its traceback, and never reaches the bot.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import structlog

from engine.rules.notation import parse_fibs
from fibsbot.protocol.events import (
    Board,
    CantMove,
    DoubleAccepted,
    DoubleOffered,
    DoubleRejected,
    Event,
    GameEnd,
    MatchEnd,
    MatchResumed,
    MatchStart,
    NewGame,
    NoSavedMatches,
    OnlyPossibleMove,
    OpeningRoll,
    OpponentMoves,
    OpponentRolls,
    ResignAccepted,
    SavedMatch,
    SavedMatchesHeader,
    Welcome,
    YouDoubled,
    YouRoll,
)
from fibsbot.protocol.match.outputs import DecisionRequest, MatchSnapshot, Send
from fibsbot.records.decisions import DecisionLog
from fibsbot.records.journal import FINISHED, REPLACED, MatchJournal
from fibsbot.records.matfile import MatchRecorder
from fibsbot.records.queue import TrainingQueue
from fibsbot.records.resync import UNSEEN_START, conclude, reconcile

log = structlog.get_logger("fibsbot.records")


class MatchRecords:
    """Observer writing ``matches/*.journal.json`` and ``*.mat``, decision events, and queue rows."""

    def __init__(
        self,
        matches_dir: Path,
        queue: TrainingQueue | None,
        *,
        user: str,
        net_version: str,
        event_log: Any = None,
        wire_log: Any = None,
        site: str | None = None,
    ) -> None:
        self.matches_dir = Path(matches_dir)
        self.matches_dir.mkdir(parents=True, exist_ok=True)
        self.user = user
        self.events = event_log or log
        self.wire = wire_log
        self.site = site
        self.decisions = DecisionLog(self, queue, net_version)
        self.journal: MatchJournal | None = None
        self.finished: list[Path] = []  # match files completed in this run
        self._direction = -1
        self._resync = False  # the next board decides where a resumed match stands
        self._new_game = False  # "Starting a new game" seen: the next board begins a game we follow
        self._opening: tuple[int, int] | None = None
        self._listing: set[str] | None = None  # the opponents of a saved-match listing being read
        self._live: Path | None = None  # the journal of the match begun or resumed in this session
        # the server's score before the game on the board (ours, theirs): the match can end in a
        # game the record left out, and then only the server's score says where it ended
        self._score_before_game: tuple[int, int] | None = None

    # --- compatibility and counters -----------------------------------------------------------

    def crawford_game(self, opponent: str, length: int, score: tuple[int, int]) -> bool | None:
        """For the match driver (``protocol.match.crawford.MatchRecord``): whether the game at
        ``score`` of the match with ``opponent`` is its Crawford game, by our journal of it."""
        journal = self.journal
        if journal is None or journal.header["opponent"] != opponent or journal.recorder.match_length != length:
            return None
        return journal.recorder.crawford_game_at(score)

    @property
    def recorder(self) -> MatchRecorder | None:
        return self.journal.recorder if self.journal is not None else None

    @property
    def queued(self) -> int:
        return self.decisions.queued

    @property
    def net_version(self) -> str:
        return self.decisions.net_version

    @net_version.setter
    def net_version(self, value: str) -> None:
        self.decisions.net_version = value

    # --- the conversation --------------------------------------------------------------

    def on_received(self, line: str) -> None:
        if self.wire is not None:
            self.wire.received(line)

    def on_sent(self, command: str) -> None:
        if self.wire is not None:
            self.wire.sent(command)

    # --- events ---------------------------------------------------------------------------

    def on_event(self, event: Event, snapshot: MatchSnapshot) -> None:
        if isinstance(event, Welcome):
            self._listing = None  # a new session: a listing cut short by the drop proves nothing
            self._live = None
        elif self._listing is not None and not isinstance(event, SavedMatch):
            listed, self._listing = self._listing, None  # the listing is complete
            self.guarded("saved listing", self._conclude_unlisted, listed)
        handler = _HANDLERS.get(type(event))
        if isinstance(event, MatchEnd) and snapshot.in_match:
            return  # the driver found it does not belong to this match
        if handler is not None:
            self.guarded(f"event {type(event).__name__}", handler, self, event)

    def on_decision(self, request: DecisionRequest, answer: Any, commands: list[Send]) -> None:
        self.guarded(f"decision {request.kind}", self.decisions.journal, request, commands)
        try:
            self.decisions.log(request, answer, commands)
        except Exception:  # noqa: BLE001 - the record of the game is intact: only the event is missing
            try:
                self.events.warning("decision_log_failed", kind=request.kind, exc_info=True)
            except Exception:  # noqa: BLE001
                pass

    def guarded(self, source: str, function: Any, *args: Any) -> None:
        """Run a record step; a failure is logged once with its traceback and costs the game's record."""
        try:
            function(*args)
        except Exception:  # noqa: BLE001 - a record problem must never reach the bot
            try:
                self.events.warning("record_skipped", source=source, exc_info=True)
                self.leave_out(f"record failed at {source}")
            except Exception:  # noqa: BLE001 - not even the report of one
                pass

    def _following(self) -> bool:
        return self.journal is not None and self.journal.game_in_progress

    def record(self, *action: Any) -> None:
        """An action of the game we follow (nothing while no game is followed)."""
        journal = self.journal
        if journal is not None and journal.game_in_progress:
            journal.record(*action)

    def leave_out(self, reason: str) -> None:
        journal = self.journal
        if journal is not None and journal.game_in_progress:
            number = journal.recorder.games[-1].number
            journal.record("leave_out", reason)
            self.events.warning("game_left_out", record=journal.mat_path.name, game=number, reason=reason)
            self.decisions.unplace_left_out(journal)

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

    def _start(self, event: MatchStart) -> None:
        for path in MatchJournal.unfinished(self.matches_dir, self.user, event.opponent):
            # the server keeps no saved match beside a new one: it ended unseen, or this one replaces it
            self._conclude(MatchJournal.load(path), leave_out=False)
        journal = MatchJournal.create(self.matches_dir, self.user, event.opponent, event.length, site=self.site)
        self._open(journal)
        self.events.info("match_start", opponent=event.opponent, length=event.length, record=journal.mat_path.name)

    def _resumed(self, event: MatchResumed) -> None:
        found = MatchJournal.unfinished(self.matches_dir, self.user, event.opponent)
        if found:
            journal = MatchJournal.load(found[-1])
        else:
            journal = MatchJournal.create(
                self.matches_dir, self.user, event.opponent, event.length, site=self.site, event="resumed match"
            )
        self._open(journal)
        self._resync = True
        self.events.info(
            "match_resumed",
            opponent=event.opponent,
            length=event.length,
            record=journal.mat_path.name,
            continued=bool(found),
        )

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

    def _open(self, journal: MatchJournal) -> None:
        self.decisions.unplace_left_out(journal)  # a kill may have come between a leave-out and the queue
        self.journal = journal
        self._live = journal.path
        self._new_game = False
        self._opening = None
        self._score_before_game = None

    def _board(self, event: Board) -> None:
        board = event.board
        if board.player != "You" or self.journal is None:
            return
        self._direction = board.direction
        if board.turn != 0:  # a game's last board may already show its points
            self._score_before_game = (board.player_score, board.opponent_score)
        journal = self.journal
        journal.set_length(0 if board.is_unlimited else board.match_length)
        if self._resync:
            self._resync = False
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
        if journal.game_in_progress or board.turn == 0 or journal.recorder.is_over:
            return
        if self._new_game:
            self._new_game = False
            journal.record("game", board.player_score, board.opponent_score, board.is_crawford_game)
            if self._opening is not None:
                ours, theirs = self._opening
                journal.record("opening", 0 if ours > theirs else 1, max(ours, theirs), min(ours, theirs))
        else:
            self._unseen(board)

    def _unseen(self, board) -> None:
        """A game we cannot follow: one log line and one journal note per game (a resume sees it again)."""
        journal = self.journal
        assert journal is not None  # only _board calls it, with a journal open
        score = [board.player_score, board.opponent_score]
        last = journal.actions[-1] if journal.actions else None
        if last is not None and last[0] == "leave_out":
            started = next(a for a in reversed(journal.actions) if a[0] == "game")
            if started[1:3] == score:
                return  # the game just left out, logged then
        if last is not None and last[0] == "unseen" and last[1:3] == score:
            return  # logged at an earlier board of this game
        games = journal.recorder.games
        if games and list(games[-1].score) == score:
            return  # a late board of the game just ended (sent before our answer to a double)
        journal.record("unseen", *score, UNSEEN_START)
        self.events.warning("game_left_out", record=journal.mat_path.name, score=score, reason=UNSEEN_START)

    def _new_game_event(self, event: NewGame) -> None:
        self.leave_out("the game's end was never seen")
        self._new_game, self._opening = True, None

    def _opening_roll(self, event: OpeningRoll) -> None:
        self._opening = (event.our_die, event.their_die)

    def _our_roll(self, event: YouRoll) -> None:
        self.record("roll", 0, event.d1, event.d2)

    def _their_roll(self, event: OpponentRolls) -> None:
        self.record("roll", 1, event.d1, event.d2)

    def _their_move(self, event: OpponentMoves) -> None:
        if self._following():
            self._move(1, parse_fibs(event.move, -self._direction))

    def _only_move(self, event: OnlyPossibleMove) -> None:
        if self._following():
            self._move(0, parse_fibs(event.move, self._direction))

    def _cant_move(self, event: CantMove) -> None:
        self._move(0 if event.is_us else 1, ())

    def _move(self, player: int, steps) -> None:
        journal = self.journal
        if journal is None or not journal.game_in_progress:
            return
        dice = journal.state.dice.get(player)
        if dice is None:
            self.leave_out(f"a move of player {player} without its roll")
            return
        journal.record("move", player, *dice, [list(step) for step in steps])

    def _cube(self, player: int, action: str) -> None:
        """A cube action from the server's lines, unless our decision journaled it already."""
        journal = self.journal
        game = journal.recorder.current_game if journal is not None else None
        if journal is None or game is None:
            return
        if action == "double":
            # a resumed match announces a pending double again, maybe after our take of it was journaled
            cube = [a for a in journal.actions if a[0] in ("double", "take", "game", "move")][-2:]
            already = game.offered == player or cube == [["double", player], ["take", 1 - player]]
        else:
            already = game.offered is None
        if not already:
            self.record(action, player)

    def _we_double(self, event: YouDoubled) -> None:
        self._cube(0, "double")

    def _they_double(self, event: DoubleOffered) -> None:
        self._cube(1, "double")

    def _accepted(self, event: DoubleAccepted) -> None:
        self._cube(0 if event.is_us else 1, "take")

    def _dropped(self, event: DoubleRejected) -> None:
        self.record("drop", 0 if event.is_us else 1)
        self._match_over(1 if event.is_us else 0, event.points)

    def _resigned(self, event: ResignAccepted) -> None:
        self.record("resign", 1 if event.is_us else 0, event.points)
        self._match_over(0 if event.is_us else 1, event.points)

    def _game_end(self, event: GameEnd) -> None:
        self.record("win", 0 if event.we_won else 1, event.points)
        self._match_over(0 if event.we_won else 1, event.points)

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


_HANDLERS = {
    MatchStart: MatchRecords._start,
    MatchResumed: MatchRecords._resumed,
    Board: MatchRecords._board,
    NewGame: MatchRecords._new_game_event,
    OpeningRoll: MatchRecords._opening_roll,
    YouRoll: MatchRecords._our_roll,
    OpponentRolls: MatchRecords._their_roll,
    OpponentMoves: MatchRecords._their_move,
    OnlyPossibleMove: MatchRecords._only_move,
    CantMove: MatchRecords._cant_move,
    YouDoubled: MatchRecords._we_double,
    DoubleOffered: MatchRecords._they_double,
    DoubleAccepted: MatchRecords._accepted,
    DoubleRejected: MatchRecords._dropped,
    ResignAccepted: MatchRecords._resigned,
    GameEnd: MatchRecords._game_end,
    MatchEnd: MatchRecords._match_end,
    SavedMatchesHeader: MatchRecords._listing_begins,
    SavedMatch: MatchRecords._listed,
    NoSavedMatches: MatchRecords._none_saved,
}
