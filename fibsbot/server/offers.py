"""Doubles and resignations: one player offers, the other accepts or rejects.

A mixin of ``fibsbot.server.match.ServerMatch`` (pure like it): it reads and sets the
match's state and calls its ``_require_turn``, ``_roll``, ``_begin_turn``, ``_boards``,
``_log`` and ``_end_game``.  ``accept`` and ``reject`` answer a pending resignation
first, then a double, as FIBS does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fibsbot.server import messages as msg
from fibsbot.server.phases import CENTRED, Line, MatchError, Phase

RESIGN_LEVELS = {"n": 1, "normal": 1, "g": 2, "gammon": 2, "b": 3, "backgammon": 3}


class Offers:
    # the match state this mixin reads and sets; ServerMatch.__init__ assigns it
    names: tuple[str, str]
    phase: Phase
    crawford_game: bool
    cube: int
    cube_owner: int
    doubler: int | None
    resignation: tuple[int, int] | None  # (seat, points)

    if TYPE_CHECKING:  # the match's own methods, for the checker only

        def _require_turn(self, seat: int, phase: Phase) -> None: ...
        def _roll(self, seat: int, lines: list[Line]) -> bool: ...
        def _begin_turn(self, seat: int, lines: list[Line]) -> None: ...
        def _boards(self, lines: list[Line]) -> None: ...
        def _log(self, *action: object) -> None: ...
        def _end_game(self, winner: int, points: int, bear_off: bool) -> list[Line]: ...

    # --- the cube -----------------------------------------------------------------------

    def double(self, seat: int) -> list[Line]:
        self._require_turn(seat, Phase.ROLL)
        if self.crawford_game:
            raise MatchError(msg.error("This is the Crawford game. No doubling allowed."))
        if self.cube_owner not in (CENTRED, seat):
            raise MatchError(msg.error(f"{self.names[1 - seat]} owns the cube. You can't double."))
        self.phase, self.doubler = Phase.TAKE, seat
        self._log("double", seat)
        lines: list[Line] = [
            (seat, msg.you_double(self.names[1 - seat])),
            (1 - seat, msg.doubles(self.names[seat])),
        ]
        self._boards(lines)
        return lines

    def accept(self, seat: int) -> list[Line]:
        if self.resignation is not None and self.resignation[0] != seat:
            return self._resign_answer(seat, accepted=True)
        if self.phase is not Phase.TAKE or self.doubler != 1 - seat:
            raise MatchError(msg.error("There's nothing to accept."))
        doubler = 1 - seat
        self.cube, self.cube_owner, self.doubler = self.cube * 2, seat, None
        self._log("take", seat)
        lines: list[Line] = [
            (seat, msg.you_accept_double(self.cube)),
            (doubler, msg.accepts_double(self.names[seat], self.cube)),
        ]
        if not self._roll(doubler, lines):  # FIBS rolls for the doubler at once
            self._begin_turn(seat, lines)
        return lines

    def reject(self, seat: int) -> list[Line]:
        if self.resignation is not None and self.resignation[0] != seat:
            return self._resign_answer(seat, accepted=False)
        if self.phase is not Phase.TAKE or self.doubler != 1 - seat:
            raise MatchError(msg.error("There's nothing to reject."))
        doubler, points = 1 - seat, self.cube
        self._log("drop", seat)
        lines: list[Line] = [
            (seat, msg.you_give_up(self.names[doubler], points)),
            (doubler, msg.gives_up(self.names[seat], points)),
        ]
        return lines + self._end_game(doubler, points, bear_off=False)

    # --- resignations ---------------------------------------------------------------------

    def resign(self, seat: int, level_word: str) -> list[Line]:
        if self.phase not in (Phase.ROLL, Phase.MOVE, Phase.TAKE):
            raise MatchError(msg.error("You can only resign during a game."))
        level = RESIGN_LEVELS.get(level_word.lower())
        if level is None:
            raise MatchError(msg.error("Type 'resign n', 'resign g' or 'resign b'."))
        if self.resignation is not None:
            raise MatchError(msg.error("A resignation is already waiting for an answer."))
        points = level * self.cube
        self.resignation = (seat, points)
        return [
            (seat, msg.you_resign(self.names[1 - seat], points)),
            (1 - seat, msg.wants_to_resign(self.names[seat], points)),
        ]

    def _resign_answer(self, seat: int, accepted: bool) -> list[Line]:
        assert self.resignation is not None
        resigner, points = self.resignation
        self.resignation = None
        if not accepted:
            return [(seat, msg.RESIGN_REJECTED_BY_YOU), (resigner, msg.rejects_resign(self.names[seat]))]
        self._log("resign", resigner, points)
        lines: list[Line] = [
            (seat, msg.you_accept_resign(points)),
            (resigner, msg.accepts_resign(self.names[seat], points)),
        ]
        return lines + self._end_game(seat, points, bear_off=False)
