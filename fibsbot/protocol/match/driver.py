"""The match state machine: server events in, commands and decision requests out.

Pure and synchronous (no IO, no asyncio): see ``fibsbot.protocol.match.outputs`` for the
outputs and how a caller resolves them.  Play is driven by the latest board line,
never by prompts or by our own idea of whose turn it is:

* our turn, our dice set, not yet answered -> a move decision (the opening move
  comes without a ``Please move`` prompt); a roll with no legal move asks nothing;
* our turn, no dice, we may double -> a double-or-roll decision;
* our turn, no dice, we may not double (Crawford game, the opponent owns the cube)
  -> the server usually rolls for us: ``roll`` only if it has not after a short
  ``Wait`` (or at once if it prompts ``Please roll or double``);
* the opponent doubled (``was_doubled``, or the ``doubles`` message) -> take decision
  (in the Crawford game too, logged, if the server lets it through: the Crawford game
  comes from our own record of the match, ``protocol.match.crawford``, not the board);
* the opponent offers to resign -> accept/reject decision;
* between games -> ``join``; match end (the match-end line, or a score that
  reaches the match length: the line may never come) -> idle; saved matches are
  resumed (``invite U``) as ``fibsbot.protocol.match.lobby`` and ``saved`` decide;
* no match activity for ``inactivity_timeout`` seconds -> idle, with a log line;
* unsure (no board after a match start or a roll, a malformed board, a prompt
  that contradicts the board, a command the server refused) -> ``board``, unless
  the server refused that command: then the next board line is awaited.

Each situation that needs an answer has a key (kind, position, dice, cube, score).
A redisplay of the same board keeps the pending request; anything else makes it
stale, and ``decided`` drops stale answers.  A situation is answered once until
the turn passes (so a dance by the opponent, which repeats the position, still
gets a fresh decision).
"""

from __future__ import annotations

from typing import Any

import structlog

from fibsbot.protocol.board import FibsBoard
from fibsbot.protocol.events import (
    BadBoard, Board, CantMove, DoubleAccepted, DoubleOffered, DoubleRejected, Event,
    GameEnd, GameSaved, JoinNextGamePrompt, MatchEnd, MatchResumed, MatchStart,
    NewGame, OpponentMoves, OpponentMovesFirst, OpponentRolls, PleaseMove,
    PleaseRollOrDouble, ResignAccepted, ResignOffered, ResignRejected, ServerError,
    YouRoll, YourTurnToMove,
)  # fmt: skip
from fibsbot.protocol.match.crawford import CrawfordBook, MatchRecord
from fibsbot.protocol.match.ending import MatchEnding, TimerInfo
from fibsbot.protocol.match.lobby import LobbyHandlers
from fibsbot.protocol.match.outputs import DecisionRequest, MatchSnapshot, Output, Send, Timer, Wait
from fibsbot.protocol.match.saved import SavedMatches
from fibsbot.protocol.match.state import MoveChecker, answer_commands, make_request, may_double, our_board

log = structlog.get_logger(__name__)

Key = tuple[Any, ...]


class MatchDriver(LobbyHandlers, MatchEnding):
    """One bot's match state across connections; feed it every parsed event."""

    def __init__(self, *, roll_delay: float = 2.0, board_delay: float = 5.0,
                 max_retries: int = 3, max_board_requests: int = 3,
                 inactivity_timeout: float | None = 600.0,
                 match_record: MatchRecord | None = None) -> None:  # fmt: skip
        self.roll_delay = roll_delay
        self.board_delay = board_delay
        self.max_retries = max_retries
        self.max_board_requests = max_board_requests
        self.inactivity_timeout = inactivity_timeout
        self.matches_finished = 0
        self.saved = SavedMatches()
        self.crawford = CrawfordBook(match_record)  # ``match_record``: the journal, for a resumed match
        self.refused: set[str] = set()  # commands the server does not know
        self._activity = 0
        self._checker = MoveChecker()
        self._serial = 0
        self._boards_seen = 0
        self._timers: dict[int, TimerInfo] = {}
        self._reset_match(in_match=False, opponent=None, length=None)

    # --- public API ------------------------------------------------------------------

    @property
    def in_match(self) -> bool:
        return self._in_match

    @property
    def opponent(self) -> str | None:
        return self._opponent

    @property
    def board(self) -> FibsBoard | None:
        return self._board

    @property
    def pending(self) -> DecisionRequest | None:
        return self._pending

    @property
    def saved_opponent(self) -> str | None:
        return self.saved.latest

    def snapshot(self) -> MatchSnapshot:
        return MatchSnapshot(
            in_match=self._in_match, opponent=self._opponent, match_length=self._length,
            board=self._board, saved_opponent=self.saved.latest,
            matches_finished=self.matches_finished,
        )  # fmt: skip

    def handle(self, event: Event) -> list[Output]:
        """Commands, timers and decision requests that ``event`` calls for."""
        handler = self._HANDLERS.get(type(event))
        if handler is None:
            return []
        if type(event) not in self._LOBBY_HANDLERS:
            self._activity += 1
        return handler(self, event)

    def decided(self, request: DecisionRequest, answer: Any) -> list[Send]:
        """The commands for the agent's answer, or [] when the request went stale."""
        if request is not self._pending:
            log.info("stale decision dropped", kind=request.kind, serial=request.serial)
            return []
        self._answered, self._pending, self._pending_key = self._pending_key, None, None
        commands = answer_commands(request, answer, self._checker)
        self._awaiting_ack = bool(commands)
        return commands

    def timer_expired(self, timer: Timer) -> list[Output]:
        info = self._timers.pop(timer.serial, None)
        if info is None:
            return []
        if info.purpose == "inactive":
            return self._inactivity_check(info)
        if info.purpose == "roll":
            if self._situation()[0] == info.key and self._answered != info.key:
                return self._roll(info.key)
            return []
        if self._boards_seen == info.boards_seen and self._in_match:
            return self._ask_board("no board arrived")
        return []

    def connection_lost(self) -> None:
        """The server saves a running match when we drop: remember whom to resume with."""
        if self._in_match and self._opponent:
            self.saved.suspect(self._opponent)
        self._timers.clear()
        self.refused.clear()  # the next connection may be to another server
        self._reset_match(in_match=False, opponent=None, length=None)

    def resume_commands(self) -> list[Send]:
        """After a login: ask for the saved matches; the listing leads to ``invite U``."""
        return [self.saved.new_session()]

    # --- state -----------------------------------------------------------------------

    def _reset_match(self, *, in_match: bool, opponent: str | None, length: int | None) -> None:
        self._in_match = in_match
        self._opponent = opponent
        self._length = length
        self._score: tuple[int, int] | None = None  # during a game, from its boards
        self._board: FibsBoard | None = None
        self._board_requests = 0
        self._just_resumed = False
        self._reset_game()

    def _reset_game(self) -> None:
        self._crawford_game = False  # the game in progress, as our record and the board tell it
        self._double_offered = False
        self._resign_points: int | None = None
        self._pending: DecisionRequest | None = None
        self._pending_key: Key | None = None
        self._answered: Key | None = None
        self._roll_armed: Key | None = None
        self._roll_prompted = False  # "Please roll or double" came before its board
        self._awaiting_ack = False
        self._retries: dict[Key, int] = {}

    def _turn_passed(self) -> None:
        self._answered = None
        self._roll_armed = None
        self._roll_prompted = False

    def _next_serial(self) -> int:
        self._serial += 1
        return self._serial

    def _timer(self, info: TimerInfo) -> Timer:
        timer = Timer(serial=self._next_serial(), purpose=info.purpose)
        self._timers[timer.serial] = info
        return timer

    def _expect_board(self) -> list[Output]:
        info = TimerInfo(purpose="board", boards_seen=self._boards_seen)
        return [Wait(self.board_delay, self._timer(info))]

    def _ask_board(self, reason: str) -> list[Send]:
        if "board" in self.refused:
            return []  # the server does not know the command: the next board line will do
        if self._board_requests >= self.max_board_requests:
            log.warning("giving up asking for the board", reason=reason)
            return []
        self._board_requests += 1
        log.info("asking for the board", reason=reason)
        return [Send("board")]

    # --- situations ------------------------------------------------------------------

    def _situation(self) -> tuple[Key | None, str | None]:
        """What the latest board (plus pending double/resign messages) waits for from us."""
        b = self._board
        if b is None or b.turn == 0 or not self._in_match:
            return None, None
        cells = b.board
        score = (b.player_score, b.opponent_score)
        if self._resign_points is not None:
            return ("resign", self._resign_points, cells, score), "resign"
        # FIBS negates the turn after a double, so the doubled side sees its own colour
        if (b.opponent_doubled and b.is_our_turn) or (self._double_offered and not b.we_must_move):
            return ("take", cells, b.cube, score), "take"
        if b.we_must_move:
            return ("move", cells, b.our_dice, b.cube, score), "move"
        if b.we_must_roll_or_double:
            kind = "double" if may_double(b, self._crawford_game) else "roll"
            return (kind, cells, b.cube, score), kind
        return None, None

    def _drive(self) -> list[Output]:
        key, kind = self._situation()
        if key is None:
            self._pending = self._pending_key = None
            return []
        if key == self._answered or key == self._pending_key:
            return []
        self._pending = self._pending_key = None
        board = self._board
        assert board is not None and kind is not None
        prompted, self._roll_prompted = self._roll_prompted, False
        if kind == "roll":
            if prompted:
                return list(self._roll(key))
            if self._roll_armed == key:
                return []
            self._roll_armed = key
            return [Wait(self.roll_delay, self._timer(TimerInfo(purpose="roll", key=key)))]
        if kind == "move" and not self._checker.has_move(our_board(board), *board.player_dice):
            self._answered = key  # the server passes the turn by itself
            return []
        if kind == "take" and self._crawford_game:
            log.warning("double_in_crawford_game", opponent=self._opponent, cube=board.cube,
                        score=[board.player_score, board.opponent_score])
        request = make_request(kind, board, self._next_serial(), self._resign_points, self._crawford_game)
        self._pending, self._pending_key = request, key
        return [request]

    def _roll(self, key: Key | None) -> list[Send]:
        self._answered = key
        self._awaiting_ack = True
        return [Send("roll")]

    # --- event handlers ----------------------------------------------------------------

    def _on_board(self, event: Board) -> list[Output]:
        b = event.board
        if b.player != "You":  # a game we watch
            return []
        self._boards_seen += 1
        self._board_requests = 0
        self._awaiting_ack = False
        self._board = b
        entered = not self._in_match and b.turn != 0
        if entered:
            # playing without having seen the start (e.g. resumed behind our back)
            self._in_match, self._opponent = True, b.opponent
        if self._in_match:
            self._length = None if b.is_unlimited else b.match_length
            if b.turn != 0:
                self._score = (b.player_score, b.opponent_score)
                self._crawford_game = self.crawford.for_board(self._opponent or b.opponent, b)
        if b.turn != b.colour:  # the server waits for the opponent (or nobody)
            self._turn_passed()
        if b.our_dice is not None:
            self._double_offered = False
        armed = self._arm_inactivity() if entered else []
        if b.turn == 0 and self._just_resumed and self._in_match:
            self._just_resumed = False
            return [Send("join")]  # a match saved between games
        self._just_resumed = False
        return [*armed, *self._drive()]

    def _on_bad_board(self, event: BadBoard) -> list[Output]:
        log.warning("bad board line", reason=event.reason)
        return self._ask_board("bad board line") if self._in_match else []

    def _on_match_start(self, event: MatchStart) -> list[Output]:
        self._reset_match(in_match=True, opponent=event.opponent, length=event.length)
        self.saved.forget(event.opponent)  # a new match replaces a saved one
        self.crawford.forget(event.opponent)
        return [*self._arm_inactivity(), *self._expect_board()]

    def _on_match_resumed(self, event: MatchResumed) -> list[Output]:
        self._reset_match(in_match=True, opponent=event.opponent, length=event.length)
        self._just_resumed = True
        self.saved.forget(event.opponent)
        return [*self._arm_inactivity(), *self._expect_board()]

    def _on_new_game(self, event: NewGame) -> list[Output]:
        self._reset_game()
        return self._expect_board() if self._in_match else []

    def _on_expect_board(self, event: Event) -> list[Output]:
        return self._expect_board() if self._in_match else []

    def _on_you_roll(self, event: YouRoll) -> list[Output]:
        # not a turn boundary by itself: the roll can come glued after the board it
        # belongs to, which must not be answered twice
        return self._expect_board() if self._in_match else []

    def _on_please_move(self, event: PleaseMove) -> list[Output]:
        if self._board is not None and self._board.we_must_move:
            return self._drive()
        return self._ask_board("move prompt but the board says otherwise")

    def _on_please_roll(self, event: PleaseRollOrDouble) -> list[Output]:
        key, kind = self._situation()
        if kind == "roll" and key != self._answered:
            return list(self._roll(key))  # the server asks: it will not roll for us
        if kind == "roll":
            return []  # rolled already: the roll timer came first
        if kind == "double":
            return self._drive()
        self._roll_prompted = True
        return self._ask_board("roll prompt but the board says otherwise")

    def _on_opponent_turn(self, event: OpponentRolls | OpponentMoves) -> list[Output]:
        if event.player == self._opponent:
            self._turn_passed()
        return []

    def _on_cant_move(self, event: CantMove) -> list[Output]:
        if not event.is_us and event.player == self._opponent:
            self._turn_passed()
        return []

    def _on_double_offered(self, event: DoubleOffered) -> list[Output]:
        if event.player != self._opponent:
            return []
        self._double_offered = True
        if self._board is None or self._board.we_must_move:
            return self._ask_board("double offered but the board is missing or shows our move")
        return self._drive()

    def _on_double_accepted(self, event: DoubleAccepted) -> list[Output]:
        self._double_offered = False
        self._turn_passed()
        return []

    def _on_resign_offered(self, event: ResignOffered) -> list[Output]:
        if event.is_us or event.player != self._opponent:
            return []
        self._resign_points = event.points
        return self._drive()

    def _on_resign_answered(self, event: ResignAccepted | ResignRejected) -> list[Output]:
        self._resign_points = None
        self._answered = None
        if isinstance(event, ResignAccepted):  # the resigner's opponent accepted and wins
            return self._on_game_end(event)
        return self._drive()

    def _on_game_end(self, event: GameEnd | DoubleRejected | ResignAccepted) -> list[Output]:
        self._reset_game()
        self._board = None  # nothing on the last board of a game waits for us
        self._end_if_score_reached(event)
        return self._invite_if_idle()

    def _on_join_prompt(self, event: JoinNextGamePrompt) -> list[Output]:
        return [Send("join")] if self._in_match else []

    def _on_server_error(self, event: ServerError) -> list[Output]:
        if self._refusal(event):
            return []
        if not self._awaiting_ack or not self._in_match:
            return []
        # the server may have refused our last command: look again, a few times
        self._awaiting_ack = False
        key = self._answered
        tries = self._retries.get(key, 0) if key is not None else 0
        if key is None or tries >= self.max_retries:
            return []
        self._retries[key] = tries + 1
        self._answered = None
        return self._ask_board(f"server said: {event.message}")

    _HANDLERS: dict[type, Any] = {
        Board: _on_board, BadBoard: _on_bad_board, MatchStart: _on_match_start,
        MatchResumed: _on_match_resumed, NewGame: _on_new_game,
        YourTurnToMove: _on_expect_board, OpponentMovesFirst: _on_expect_board,
        YouRoll: _on_you_roll, PleaseMove: _on_please_move,
        PleaseRollOrDouble: _on_please_roll, OpponentRolls: _on_opponent_turn,
        OpponentMoves: _on_opponent_turn, CantMove: _on_cant_move,
        DoubleOffered: _on_double_offered, DoubleAccepted: _on_double_accepted,
        ResignOffered: _on_resign_offered, ResignAccepted: _on_resign_answered,
        ResignRejected: _on_resign_answered, GameEnd: _on_game_end,
        DoubleRejected: _on_game_end, JoinNextGamePrompt: _on_join_prompt,
        MatchEnd: MatchEnding._on_match_end, GameSaved: MatchEnding._on_game_saved, ServerError: _on_server_error,
        **LobbyHandlers._LOBBY_HANDLERS,
    }  # fmt: skip
