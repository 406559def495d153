"""GNU Backgammon's external-player interface: gnubg asks, we decide.

After ``set player 1 external 127.0.0.1:PORT`` gnubg connects to us and, each
time that player must act, sends one FIBS board line ended by ``\\n`` and a NUL
byte; we answer one line: a move in gnubg notation in our own numbering
(``24/23 13/11``; an empty line when no move is possible), ``roll``, ``double``,
``take`` or ``drop``.  gnubg plays an illegal answer as "no move" without a
word, so answers come only from the engine's legal moves.

What gnubg 1.07 really sends (checked against the binary; gnubg's ``FIBSBoard``
is called with the board of its player 1 and ``fRoll`` = the player on move):

* the board is always that of gnubg's player 1: colour 1 (O), direction -1,
  home 0, bar 25; the may-double flags are player 1's, then player 0's; the
  dice of the roll stand in both dice fields;
* the turn field names the player on move (who rolls, or who doubled): 1 for
  player 1, -1 for player 0; gnubg only asks the external player, so the side
  that must act is our seat.  Our seat is the player on move in every request
  that is not an answer to a double (the first request of a game never is);
  after a double it is the other player, except after a beaver (money play),
  where the doubler is asked again: ``Request.seat`` carries what was learnt;
* ``was_doubled`` is 1 whoever doubled;
* the names and scores of fields 1, 2, 4 and 5 belong together, but field 1 is
  gnubg's player (asked XOR on move): player 0 on ordinary requests.  That rule
  alone gives our score: a name can mislead (gnubg's default name of player 1 is
  the login name, our own default name too, whichever seat we take), so
  ``our_name`` found on the other side is only reported (``names_disagree``);
* fields 47-50 are 0, field 51 is the post-Crawford flag, field 52 is 0 in the
  Crawford game and 1 otherwise;
* gnubg answers resignations for an external player itself (it agrees only to
  a backgammon), so ``accept`` and ``reject`` are never asked for.  A beaver is
  always accepted (``take``): we doubled, so we expected to be the favourite.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from engine.rules.ids import CENTRED, MatchState, MatchStateError
from engine.rules.notation import format_gnubg
from fibsbot.protocol.board import BoardLineError, parse_board_line
from fibsbot.protocol.match.state import BoardReading, match_state

REQUEST_END = b"\0"
MAX_REQUEST = 4096  # a board line is about 150 bytes


class ExternalRequestError(ValueError):
    """A request that is not a board line we can act on."""


class Decider(Protocol):
    """The part of ``engine.players.agent.Agent`` the external player uses."""

    def choose_move(self, board: np.ndarray, d1: int, d2: int, state: MatchState) -> Any: ...
    def double_decision(self, board: np.ndarray, state: MatchState) -> Any: ...
    def take_decision(self, board: np.ndarray, state: MatchState) -> Any: ...


@dataclass(frozen=True)
class Request:
    """One request seen from our side (row 0 of ``board``, player 0 of ``state``)."""

    board: np.ndarray
    state: MatchState
    dice: tuple[int, int] | None
    doubled: bool  # the opponent doubled: answer take or drop
    beaver: bool  # we doubled and the opponent beavered: we accept (take)
    may_double: bool
    seat: int  # our player number in gnubg
    names_disagree: bool = False  # our name stands beside the other player's score


def read_request(line: str, our_name: str | None = None, seat: int | None = None) -> Request:
    """Parse one request from gnubg; ``seat``: our gnubg player if known (see the module notes).
    The match state is the live driver's reading (``protocol.match.state.match_state``), told
    how gnubg writes the line and strict: a state the engine refuses is a bad request."""
    try:
        fibs = parse_board_line(line.strip())
    except BoardLineError as exc:
        raise ExternalRequestError(f"not a board line: {exc}") from None
    if fibs.turn == 0:
        raise ExternalRequestError("the game is over: nothing to decide")
    if seat not in (None, 0, 1):
        raise ValueError(f"seat {seat!r} must be 0, 1 or None")
    doubled = fibs.double_pending
    on_move = 1 if fibs.turn == fibs.colour else 0
    if seat is None:
        seat = 1 - on_move if doubled else on_move
    beaver = doubled and on_move == seat

    player1, player0 = fibs.our_rows()
    ours, theirs = (player1, player0) if seat == 1 else (player0, player1)
    board = np.stack([ours, theirs]).astype(np.int8)

    field1_is_us = seat ^ on_move == seat  # field 1 is gnubg's player number (asked XOR on move)
    named_in_field1 = our_name is not None and fibs.player == our_name and fibs.opponent != our_name
    named_in_field2 = our_name is not None and fibs.opponent == our_name and fibs.player != our_name
    names_disagree = (named_in_field1 and not field1_is_us) or (named_in_field2 and field1_is_us)

    dice = fibs.player_dice if fibs.player_dice != (0, 0) else fibs.opponent_dice
    rolled = None if dice == (0, 0) or doubled else (max(dice), min(dice))
    reading = BoardReading(
        our_score_first=field1_is_us, our_flag_first=seat == 1, flags_alone_tell_owner=True, jacoby=None
    )
    try:
        state = match_state(
            fibs,
            on_roll=0 if beaver or not doubled else 1,
            doubled=doubled,
            dice=rolled or (0, 0),
            reading=reading,
            strict=True,
        )
    except MatchStateError as exc:
        raise ExternalRequestError(f"inconsistent match state: {exc}") from None
    may_double = not doubled and rolled is None and not state.crawford and state.cube_owner in (CENTRED, 0)
    return Request(
        board=board,
        state=state,
        dice=rolled,
        doubled=doubled and not beaver,
        beaver=beaver,
        may_double=may_double,
        seat=seat,
        names_disagree=names_disagree,
    )


def decide(request: Request, agent: Decider) -> str:
    """The answer line (without the line end) for a parsed request."""
    if request.beaver:
        return "take"
    if request.doubled:
        return "take" if agent.take_decision(request.board, request.state).take else "drop"
    if request.dice is None:
        if request.may_double and agent.double_decision(request.board, request.state).double:
            return "double"
        return "roll"
    choice = agent.choose_move(request.board, *request.dice, request.state)
    return format_gnubg(request.board, choice.steps) if choice.steps else ""


def answer(board_line: str, agent: Decider, our_name: str | None = None, seat: int | None = None) -> str:
    """gnubg's request line in, our answer line out (``Error: ...`` for a bad request)."""
    return answer_request(board_line, agent, our_name, seat)[0]


def answer_request(
    board_line: str, agent: Decider, our_name: str | None = None, seat: int | None = None
) -> tuple[str, Request | None]:
    """(answer line, the request as read, None if it was bad)."""
    try:
        request = read_request(board_line, our_name, seat)
    except ExternalRequestError as exc:
        return f"Error: {exc}", None
    return decide(request, agent), request


# ---------------------------------------------------------------------- the server

AnswerHook = Callable[[str, str], None]


class ExternalPlayerServer:
    """Serves gnubg's requests, one connection at a time, the agent in a worker thread."""

    def __init__(
        self, agent: Decider, *, our_name: str | None = None, log: Any = None, on_answer: AnswerHook | None = None
    ) -> None:
        self.agent = agent
        self.our_name = our_name
        self.on_answer = on_answer
        self._log = log
        self._agent_lock = asyncio.Lock()  # the agent is not thread-safe: one decision at a time
        self.requests = 0

    def _event(self, name: str, **fields: Any) -> None:
        if self._log is not None:
            self._log.info(name, **fields)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        seat: int | None = None  # learnt from the first request that is not an answer to a double
        names_reported = False
        self._event("external_connected", peer=str(peer))
        try:
            while True:
                try:
                    raw = await reader.readuntil(REQUEST_END)
                except asyncio.IncompleteReadError:
                    break  # gnubg closed the connection
                except asyncio.LimitOverrunError:
                    self._event("external_request_too_long", peer=str(peer))
                    break
                line = raw[:-1].decode("utf-8", "replace").strip()
                if not line:
                    continue
                async with self._agent_lock:
                    try:
                        reply, request = await asyncio.to_thread(answer_request, line, self.agent, self.our_name, seat)
                        if seat is None and request is not None and not (request.doubled or request.beaver):
                            seat = request.seat
                        if request is not None and request.names_disagree and not names_reported:
                            names_reported = True
                            self._event(
                                "external_names_disagree", our_name=self.our_name, seat=request.seat, request=line
                            )
                    except Exception as exc:  # a failing engine must not leave gnubg waiting
                        reply = f"Error: internal error: {type(exc).__name__}: {exc}"
                        if self._log is not None:
                            self._log.exception("external_engine_failed", request=line)
                self.requests += 1
                self._event("external_answer", request=line, answer=reply, seat=seat)
                if self.on_answer is not None:
                    self.on_answer(line, reply)
                writer.write(reply.encode() + b"\n")
                await writer.drain()
        except ConnectionError as exc:
            self._event("external_connection_lost", peer=str(peer), error=str(exc))
        finally:
            writer.close()
            try:
                await writer.wait_closed()
            except ConnectionError:
                pass
            self._event("external_disconnected", peer=str(peer), requests=self.requests)


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6) to (host, port); ValueError with the reason."""
    host, sep, port_text = text.rpartition(":")
    if not sep or not host or not port_text.isdigit():
        raise ValueError(f"--listen {text!r}: expected HOST:PORT, e.g. 127.0.0.1:8765")
    port = int(port_text)
    if not 0 <= port <= 65535:
        raise ValueError(f"--listen {text!r}: port {port} is outside 0..65535")
    return host.strip("[]"), port
