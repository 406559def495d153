"""The match driver at play: boards, prompts and the opponent's moves, doubles and resignations.

Handlers of ``fibsbot.protocol.match.driver.MatchDriver`` (its docstring tells the
rules).  ``drive`` turns the situation of the latest board into a decision request,
a roll or a roll timer, once per situation; the prompts only hurry it or, when they
contradict the board, make the driver look at the board again.
"""

from __future__ import annotations

import structlog

from fibsbot.protocol.events import (
    BadBoard,
    Board,
    CantMove,
    DoubleAccepted,
    DoubleOffered,
    Event,
    JoinNextGamePrompt,
    MatchResumed,
    MatchStart,
    NewGame,
    OpponentMoves,
    OpponentMovesFirst,
    OpponentRolls,
    PleaseMove,
    PleaseRollOrDouble,
    ResignAccepted,
    ResignOffered,
    ResignRejected,
    ServerError,
    YouRoll,
    YourTurnToMove,
)
from fibsbot.protocol.match.ending import arm_inactivity, on_game_end
from fibsbot.protocol.match.lobby import refusal
from fibsbot.protocol.match.memory import DriverMemory, Handler, Phase, TimerInfo
from fibsbot.protocol.match.outputs import Output, Send, TimerPurpose, Wait
from fibsbot.protocol.match.situation import Situation, SituationKind, read_situation
from fibsbot.protocol.match.state import make_request, our_board

log = structlog.get_logger("fibsbot.protocol.match.driver")


# --- situations ----------------------------------------------------------------------


def current_situation(m: DriverMemory) -> Situation | None:
    """What the latest board (plus pending double/resign messages) waits for from us."""
    if m.board is None or not m.in_match:
        return None
    return read_situation(
        m.board, resign_points=m.resign_points, double_offered=m.double_offered, crawford_game=m.crawford_game
    )


def drive(m: DriverMemory) -> list[Output]:
    situation = current_situation(m)
    if situation is None:
        m.pending = m.pending_situation = None
        return []
    if situation == m.answered or situation == m.pending_situation:
        return []
    m.pending = m.pending_situation = None
    board = m.board
    assert board is not None
    prompted, m.roll_prompted = m.roll_prompted, False
    if situation.kind is SituationKind.ROLL:
        if prompted:
            return roll(m, situation)
        if m.roll_armed == situation:
            return []
        m.roll_armed = situation
        return [Wait(m.settings.roll_delay, m.timer(TimerInfo(TimerPurpose.ROLL, situation=situation)))]
    if situation.kind is SituationKind.MOVE and not m.checker.has_move(our_board(board), *board.player_dice):
        m.answered = situation  # the server passes the turn by itself
        return []
    if situation.kind is SituationKind.TAKE and m.crawford_game:
        log.warning(
            "double_in_crawford_game",
            opponent=m.opponent,
            cube=board.cube,
            score=[board.player_score, board.opponent_score],
        )
    request = make_request(situation.kind, board, m.next_serial(), m.resign_points, m.crawford_game)
    m.pending, m.pending_situation = request, situation
    return [request]


def join(m: DriverMemory) -> list[Output]:
    """``join`` the next game; within a read, at its end (``MatchDriver.end_read``): an opponent
    who wins a game and logs out in the same breath has left before a ``join`` could reach the
    server, which would answer ``** Error: Join who?``."""
    if m.reading:
        m.join_held = m.opponent
        return []
    return [Send("join")]


def roll(m: DriverMemory, situation: Situation | None) -> list[Output]:
    m.answered = situation
    m.awaiting_ack = True
    return [Send("roll")]


# --- the board -----------------------------------------------------------------------


def expect_board(m: DriverMemory) -> list[Output]:
    info = TimerInfo(TimerPurpose.BOARD, boards_seen=m.boards_seen)
    return [Wait(m.settings.board_delay, m.timer(info))]


def ask_board(m: DriverMemory, reason: str) -> list[Output]:
    if "board" in m.refused:
        return []  # the server does not know the command: the next board line will do
    if m.board_requests >= m.settings.max_board_requests:
        log.warning("giving up asking for the board", reason=reason)
        return []
    m.board_requests += 1
    log.info("asking for the board", reason=reason)
    return [Send("board")]


def on_board(m: DriverMemory, event: Board) -> list[Output]:
    b = event.board
    if b.player != "You":  # a game we watch
        return []
    m.boards_seen += 1
    m.board_requests = 0
    m.awaiting_ack = False
    m.board = b
    entered = not m.in_match and b.turn != 0
    if entered:
        # playing without having seen the start (e.g. resumed behind our back)
        m.phase, m.opponent = Phase.PLAYING, b.opponent
    if m.in_match:
        m.length = None if b.is_unlimited else b.match_length
        if b.turn != 0:
            m.score = (b.player_score, b.opponent_score)
            m.crawford_game = m.crawford.for_board(m.opponent or b.opponent, b)
    if b.turn != b.colour:  # the server waits for the opponent (or nobody)
        m.turn_passed()
    if b.our_dice is not None:
        m.double_offered = False
    armed = arm_inactivity(m) if entered else []
    if m.phase is Phase.RESUMED:
        m.phase = Phase.PLAYING
        if b.turn == 0:
            return join(m)  # a match saved between games
    return [*armed, *drive(m)]


def on_bad_board(m: DriverMemory, event: BadBoard) -> list[Output]:
    log.warning("bad board line", reason=event.reason)
    return ask_board(m, "bad board line") if m.in_match else []


def on_expect_board(m: DriverMemory, event: Event) -> list[Output]:
    return expect_board(m) if m.in_match else []


# --- matches and games -----------------------------------------------------------------


def on_match_start(m: DriverMemory, event: MatchStart) -> list[Output]:
    m.reset_match(Phase.PLAYING, event.opponent, event.length)
    m.saved.forget(event.opponent)  # a new match replaces a saved one
    m.crawford.forget(event.opponent)
    return [*arm_inactivity(m), *expect_board(m)]


def on_match_resumed(m: DriverMemory, event: MatchResumed) -> list[Output]:
    m.reset_match(Phase.RESUMED, event.opponent, event.length)
    m.saved.forget(event.opponent)
    return [*arm_inactivity(m), *expect_board(m)]


def on_new_game(m: DriverMemory, event: NewGame) -> list[Output]:
    m.reset_game()
    return expect_board(m) if m.in_match else []


def on_join_prompt(m: DriverMemory, event: JoinNextGamePrompt) -> list[Output]:
    return join(m) if m.in_match else []


# --- prompts and turns -----------------------------------------------------------------


def on_you_roll(m: DriverMemory, event: YouRoll) -> list[Output]:
    # not a turn boundary by itself: the roll can come glued after the board it
    # belongs to, which must not be answered twice
    return expect_board(m) if m.in_match else []


def on_please_move(m: DriverMemory, event: PleaseMove) -> list[Output]:
    if m.board is not None and m.board.we_must_move:
        return drive(m)
    return ask_board(m, "move prompt but the board says otherwise")


def on_please_roll(m: DriverMemory, event: PleaseRollOrDouble) -> list[Output]:
    situation = current_situation(m)
    kind = situation.kind if situation is not None else None
    if kind is SituationKind.ROLL and situation != m.answered:
        return roll(m, situation)  # the server asks: it will not roll for us
    if kind is SituationKind.ROLL:
        return []  # rolled already: the roll timer came first
    if kind is SituationKind.DOUBLE:
        return drive(m)
    m.roll_prompted = True
    return ask_board(m, "roll prompt but the board says otherwise")


def on_opponent_turn(m: DriverMemory, event: OpponentRolls | OpponentMoves) -> list[Output]:
    if event.player == m.opponent:
        m.turn_passed()
    return []


def on_cant_move(m: DriverMemory, event: CantMove) -> list[Output]:
    if not event.is_us and event.player == m.opponent:
        m.turn_passed()
    return []


# --- doubles and resignations ------------------------------------------------------------


def on_double_offered(m: DriverMemory, event: DoubleOffered) -> list[Output]:
    if event.player != m.opponent:
        return []
    m.double_offered = True
    if m.board is None or m.board.we_must_move:
        return ask_board(m, "double offered but the board is missing or shows our move")
    return drive(m)


def on_double_accepted(m: DriverMemory, event: DoubleAccepted) -> list[Output]:
    m.double_offered = False
    m.turn_passed()
    return []


def on_resign_offered(m: DriverMemory, event: ResignOffered) -> list[Output]:
    if event.is_us or event.player != m.opponent:
        return []
    m.resign_points = event.points
    return drive(m)


def on_resign_answered(m: DriverMemory, event: ResignAccepted | ResignRejected) -> list[Output]:
    m.resign_points = None
    m.answered = None
    if isinstance(event, ResignAccepted):  # the resigner's opponent accepted and wins
        return on_game_end(m, event)
    return drive(m)


# --- refusals ----------------------------------------------------------------------------


def on_server_error(m: DriverMemory, event: ServerError) -> list[Output]:
    if refusal(m, event):
        return []
    if not m.awaiting_ack or not m.in_match:
        return []
    # the server may have refused our last command: look again, a few times
    m.awaiting_ack = False
    situation = m.answered
    tries = m.retries.get(situation, 0) if situation is not None else 0
    if situation is None or tries >= m.settings.max_retries:
        return []
    m.retries[situation] = tries + 1
    m.answered = None
    return ask_board(m, f"server said: {event.message}")


HANDLERS: dict[type[Event], Handler] = {
    Board: on_board,
    BadBoard: on_bad_board,
    MatchStart: on_match_start,
    MatchResumed: on_match_resumed,
    NewGame: on_new_game,
    YourTurnToMove: on_expect_board,
    OpponentMovesFirst: on_expect_board,
    YouRoll: on_you_roll,
    PleaseMove: on_please_move,
    PleaseRollOrDouble: on_please_roll,
    OpponentRolls: on_opponent_turn,
    OpponentMoves: on_opponent_turn,
    CantMove: on_cant_move,
    DoubleOffered: on_double_offered,
    DoubleAccepted: on_double_accepted,
    ResignOffered: on_resign_offered,
    ResignAccepted: on_resign_answered,
    ResignRejected: on_resign_answered,
    JoinNextGamePrompt: on_join_prompt,
    ServerError: on_server_error,
}
