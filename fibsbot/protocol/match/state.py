"""From a FIBS board line to what the agent needs, and from its move back to a command.

Everything is seen from our side: the engine board has us in row 0 and the
``MatchState`` has us as player 0, whichever colour and direction the server gave
us; a line that gnubg sends its external player (``fibsbot.external``) is read by the
same ``match_state``, told how gnubg writes it (``BoardReading``).  Move legality is
checked here with the driver's own move buffers (the module-level ones of
``engine.rules.moves`` may be in use by the agent in another thread).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import structlog

from engine.rules.ids import CENTRED, MatchState, MatchStateError, Resignation
from engine.rules.moves import Move, MoveBuffers, generate_moves, steps_to_move
from engine.rules.notation import format_fibs
from engine.rules.position import BAR, Position
from fibsbot.protocol.board import FibsBoard
from fibsbot.protocol.match.outputs import (
    DecisionRequest,
    DoubleRequest,
    MoveRequest,
    ResignRequest,
    Send,
    TakeRequest,
)

log = structlog.get_logger(__name__)

US, THEM = 0, 1
_SCORE_CAP = 0x7FFF  # the Match ID's 15-bit score fields


def our_board(fibs: FibsBoard) -> np.ndarray:
    """A writable engine board, row 0 = us (bar counts from the board cells)."""
    return np.array(fibs.position_from_our_view().board, dtype=np.int8)


def may_double(fibs: FibsBoard, crawford: bool | None = None) -> bool:
    """Whether we may double now; FIBS sets both flags in the Crawford game, so check it.
    ``crawford``: whether our record makes this the Crawford game (None: the board decides)."""
    in_crawford_game = fibs.is_crawford_game if crawford is None else crawford
    return fibs.player_may_double and not in_crawford_game


@dataclass(frozen=True)
class BoardReading:
    """Whose fields a board line holds and what its may-double flags say: the FIBS way
    (``CLIP_READING``) or gnubg's, which its external player is sent (``fibsbot.external``).

    FIBS writes every line from our side, never owns a 1-cube and clears both flags
    while a double waits; gnubg writes its player 1's flags first whatever our seat,
    puts its asked player's score first, lets a 1-cube be owned (``set cube owner``)
    and keeps the owner's flags while a double waits, so there the flags alone say.
    """

    our_score_first: bool = True  # fields 1 and 4 are ours (else fields 2 and 5)
    our_flag_first: bool = True  # field 38 is our may-double flag (else field 39)
    flags_alone_tell_owner: bool = False
    jacoby: bool | None = False  # FIBS plays unlimited matches without the Jacoby rule; None: gnubg's default


CLIP_READING = BoardReading()


def cube_owner(fibs: FibsBoard, *, doubled: bool = False, reading: BoardReading = CLIP_READING) -> int:
    """0 = we own the cube, 1 = they do, -1 = centred, as far as the board line tells.

    FIBS: while a double waits for our answer both flags are 0; the doubler owns the
    cube then unless it is still centred.
    """
    ours, theirs = fibs.player_may_double, fibs.opponent_may_double
    if not reading.our_flag_first:
        ours, theirs = theirs, ours
    if not reading.flags_alone_tell_owner:
        if fibs.cube == 1:
            return CENTRED
        if doubled:
            return THEM
    if ours and not theirs:
        return US
    if theirs and not ours:
        return THEM
    return CENTRED


def match_state(
    fibs: FibsBoard,
    *,
    on_roll: int = US,
    doubled: bool = False,
    resigned: int = 0,
    dice: tuple[int, int] = (0, 0),
    crawford: bool | None = None,
    reading: BoardReading = CLIP_READING,
    strict: bool = False,
) -> MatchState:
    """The match state with us as player 0; ``to_decide`` is always us.  ``crawford``: whether
    our record makes this the Crawford game (None: the board decides).

    Not ``strict`` (the live match, which must go on whatever the server writes): scores
    are cut to the Match ID's fields, a cube that a server let be turned in the Crawford
    game is shown to the engine as a game after it, and a state the engine finds
    inconsistent is replaced by the closest one it accepts (logged).  ``strict``: such a
    line raises ``MatchStateError``.
    """
    length = 0 if fibs.is_unlimited else fibs.match_length
    score = (fibs.player_score, fibs.opponent_score)
    if not reading.our_score_first:
        score = score[::-1]
    in_crawford_game = fibs.is_crawford_game if crawford is None else crawford
    if not strict:
        score = (min(score[0], _SCORE_CAP), min(score[1], _SCORE_CAP))
        in_crawford_game = in_crawford_game and fibs.cube == 1
    values: dict[str, Any] = dict(
        cube=fibs.cube,
        cube_owner=cube_owner(fibs, doubled=doubled, reading=reading),
        on_roll=on_roll,
        crawford=in_crawford_game,
        to_decide=US,
        doubled=doubled,
        resigned=Resignation(resigned),
        dice=dice,
        match_length=length,
        score=score,
        jacoby=reading.jacoby,
    )
    try:
        return MatchState(**values)
    except MatchStateError as exc:
        if strict:
            raise
        # a board line the engine finds inconsistent (odd cube, scores past the
        # length): keep playing with the closest state it accepts
        log.warning("match state adjusted", reason=str(exc), line=fibs.to_line())
        cube = fibs.cube if fibs.cube & (fibs.cube - 1) == 0 and fibs.cube <= 1 << 15 else 1
        values.update(cube=cube, crawford=False)
        if length and max(score) > length:
            values.update(match_length=0)
        return MatchState(**values)


def move_request_parts(fibs: FibsBoard, crawford: bool | None = None) -> tuple[np.ndarray, MatchState]:
    dice = fibs.our_dice or (0, 0)
    return our_board(fibs), match_state(fibs, on_roll=US, dice=dice, crawford=crawford)


def double_request_parts(fibs: FibsBoard, crawford: bool | None = None) -> tuple[np.ndarray, MatchState]:
    return our_board(fibs), match_state(fibs, on_roll=US, crawford=crawford)


def take_request_parts(fibs: FibsBoard, crawford: bool | None = None) -> tuple[np.ndarray, MatchState]:
    return our_board(fibs), match_state(fibs, on_roll=THEM, doubled=True, crawford=crawford)


def resign_request_parts(
    fibs: FibsBoard, level: int, crawford: bool | None = None
) -> tuple[np.ndarray, MatchState, bool]:
    on_roll_colour = fibs.colour_on_roll
    we_are_on_roll = on_roll_colour is None or on_roll_colour == fibs.colour
    dice = (fibs.our_dice if we_are_on_roll else fibs.their_dice) or (0, 0)
    state = match_state(fibs, on_roll=US if we_are_on_roll else THEM, resigned=level, dice=dice, crawford=crawford)
    return our_board(fibs), state, we_are_on_roll


def resign_level(points: int, cube: int) -> int:
    """1 single, 2 gammon, 3 backgammon from the points the server quotes."""
    return max(1, min(3, points // max(cube, 1)))


def make_request(
    kind: str, fibs: FibsBoard, serial: int, resign_points: int | None = None, crawford: bool | None = None
) -> DecisionRequest:
    """The decision request of ``kind`` (move, double, take, resign) for a board line;
    ``crawford``: whether our record makes it the Crawford game (None: the board decides)."""
    if kind == "move":
        board, state = move_request_parts(fibs, crawford)
        return MoveRequest(serial=serial, board=board, state=state, fibs=fibs, dice=fibs.player_dice)
    if kind == "double":
        board, state = double_request_parts(fibs, crawford)
        return DoubleRequest(serial=serial, board=board, state=state, fibs=fibs)
    if kind == "take":
        board, state = take_request_parts(fibs, crawford)
        return TakeRequest(serial=serial, board=board, state=state, fibs=fibs)
    if kind != "resign" or resign_points is None:
        raise ValueError(f"no request of kind {kind!r} (resign points {resign_points})")
    level = resign_level(resign_points, fibs.cube)
    board, state, on_roll = resign_request_parts(fibs, level, crawford)
    return ResignRequest(
        serial=serial, board=board, state=state, fibs=fibs, level=level, points=resign_points, we_are_on_roll=on_roll
    )


def answer_commands(request: DecisionRequest, answer: Any, checker: MoveChecker) -> list[Send]:
    """The server commands for an answer: a checked move, double/roll, accept/reject."""
    if isinstance(request, MoveRequest):
        steps = checker.checked_steps(request.board, request.dice, answer)
        return [Send(move_command(request.fibs, steps))] if steps else []
    if isinstance(request, DoubleRequest):
        return [Send("double" if _flag(answer, "double") else "roll")]
    if isinstance(request, TakeRequest):
        return [Send("accept" if _flag(answer, "take") else "reject")]
    return [Send("accept" if _flag(answer, "accept") else "reject")]


def _flag(answer: Any, attribute: str) -> bool:
    """A yes/no answer given as a bool or as an object with that attribute (CubeChoice)."""
    if isinstance(answer, bool):
        return answer
    return bool(getattr(answer, attribute, answer))


# --- moves ------------------------------------------------------------------------------


class MoveChecker:
    """Legal results of a roll with private buffers, and checked FIBS move commands."""

    def __init__(self) -> None:
        self._buffers = MoveBuffers()

    def legal(self, board: np.ndarray, d1: int, d2: int) -> list[tuple[Move, bytes]]:
        """(one move, resulting board bytes) for each distinct legal result."""
        buf = self._buffers
        count = generate_moves(np.ascontiguousarray(board, dtype=np.int8), d1, d2, *buf.args())
        return [(steps_to_move(buf.steps[i]), buf.boards[i].tobytes()) for i in range(count)]

    def has_move(self, board: np.ndarray, d1: int, d2: int) -> bool:
        return any(move for move, _ in self.legal(board, d1, d2))

    def checked_steps(self, board: np.ndarray, dice: tuple[int, int], answer: Any) -> Move:
        """The agent's move if it is legal, else a legal one (logged): never an illegal move."""
        results = self.legal(board, *dice)
        if not any(move for move, _ in results):
            return ()
        by_board = {after: move for move, after in results}
        steps = _steps_of(answer)
        if steps is not None:
            after = apply_steps(board, steps)
            if after is not None and after.tobytes() in by_board:
                return steps
        chosen = getattr(answer, "board", None)
        if chosen is not None:
            chosen_bytes = np.asarray(chosen, dtype=np.int8).tobytes()
            if chosen_bytes in by_board:
                return by_board[chosen_bytes]
        log.error(
            "agent answered an illegal move; playing a legal one instead",
            answer=repr(steps),
            dice=dice,
            position=Position(board),
        )
        return results[0][0]


def _steps_of(answer: Any) -> Move | None:
    steps = getattr(answer, "steps", answer)
    try:
        return tuple((int(a), int(b)) for a, b in steps)
    except (TypeError, ValueError):
        return None


def apply_steps(board: np.ndarray, steps: Move) -> np.ndarray | None:
    """The board after single-die steps (row 0 moving), or None if a step is impossible."""
    after = np.array(board, dtype=np.int16)
    for start, end in steps:
        if not (1 <= start <= 25 and 0 <= end < start):
            return None
        source = BAR if start == 25 else start - 1
        if after[0, source] <= 0:
            return None
        after[0, source] -= 1
        if end == 0:
            continue
        facing = 24 - end  # the opponent's column of our point ``end``
        if after[1, facing] > 1:
            return None
        if after[1, facing] == 1:
            after[1, facing] = 0
            after[1, BAR] += 1
        after[0, end - 1] += 1
    return after.astype(np.int8)


def move_command(fibs: FibsBoard, steps: Move) -> str:
    """``move 8-5 6-5`` in the server's point numbers for our direction."""
    return format_fibs(steps, fibs.direction)
