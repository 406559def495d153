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
logged once, with its traceback, and never reaches the bot.  The start, resume and
end of a match, and the matches that ended unseen, are in ``records.lifecycle``;
this module follows the game in between.
"""

from __future__ import annotations

from collections import deque
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
from fibsbot.records.journal import MatchJournal
from fibsbot.records.lifecycle import MatchLifecycle
from fibsbot.records.matfile import MatchRecorder
from fibsbot.records.queue import TrainingQueue
from fibsbot.records.resync import UNSEEN_START
from fibsbot.records.space import DISK

log = structlog.get_logger("fibsbot.records")


class MatchRecords(MatchLifecycle):
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
        keep_finished: int | None = None,
    ) -> None:
        self.matches_dir = Path(matches_dir)
        self.matches_dir.mkdir(parents=True, exist_ok=True)
        self.user = user
        self.events = event_log or log
        self.wire = wire_log
        self.site = site
        self.decisions = DecisionLog(self, queue, net_version)
        self.journal: MatchJournal | None = None
        # match files completed in this run: every one (an arena's bounded run), or the last
        # ``keep_finished`` (a daemon's run of a year, whose memory must not grow a match)
        self.finished: deque[Path] = deque(maxlen=keep_finished)
        self.finished_count = 0
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
        if journal is None or journal.header["opponent"] != opponent:
            # asked at the first board, before a record it begins is open: the journal on disk
            try:
                found = MatchJournal.unfinished(self.matches_dir, self.user, opponent)
                journal = MatchJournal.load(found[-1]) if found else None
            except Exception:  # noqa: BLE001 - a record problem must never reach the bot
                self.events.warning("record_unreadable", opponent=opponent, exc_info=True)
                return None
        if journal is None or journal.recorder.match_length != length:
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
        if DISK.full:  # each line from the server tries the full disk again: play goes on by itself
            DISK.recover()
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
        if isinstance(event, Board) and event.board.player == "You" and snapshot.in_match:
            # a match we play gets a record even when its start or resume line never came
            self.guarded("match begun from its board", self._begin_from_board, event.board)
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

    # --- the game we follow -----------------------------------------------------------------

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
            self._resync_with(journal, board)
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
