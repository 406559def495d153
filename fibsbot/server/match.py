"""One match between two players: the game rules and what each side is told.

Pure state machine: every command returns the lines to send as ``(seat, text)``
pairs (seat 0 is the inviter, seat 1 the player who joined) or raises MatchError
with the refusal for the player who sent it.  Boards are ``board:`` lines; the
caller may drop them for a player whose ``autoboard`` toggle is off.  Doubles and
resignations are the ``Offers`` mixin (``fibsbot.server.offers``).

Seats and the board: the 26 server cells are shared, O checkers positive.  Seat 0
plays X moving 1 -> 24 (direction 1), seat 1 plays O moving 24 -> 1 (direction -1),
so each client meets both colours and both directions over its matches.  Each
seat's checkers are kept as an engine row in its own numbering.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import numpy as np

from engine.rules.position import Position, game_result
from fibsbot.protocol.board import UNLIMITED, FibsBoard, O, X
from fibsbot.server import messages as msg
from fibsbot.server.config import DEFAULT_TOGGLES
from fibsbot.server.dice import DiceSource
from fibsbot.server.offers import Offers
from fibsbot.server.phases import CENTRED, Line, MatchError, Phase
from fibsbot.server.rules import IllegalMove, Results, legal_results, move_echo, pieces_to_move, play_move

COLOUR = (X, O)
DIRECTION = (1, -1)
# consecutive dances before the server stops rolling on its own: only a mutual
# closeout (both sides on the bar against closed boards) gets near it
MAX_AUTO_PASSES = 64


def fibs_default_toggles(name: str, toggle: str) -> bool:
    return DEFAULT_TOGGLES[toggle]


class ServerMatch(Offers):
    def __init__(
        self,
        players: tuple[str, str],
        length: int,
        dice: DiceSource,
        toggle: Callable[[str, str], bool] = fibs_default_toggles,
    ) -> None:
        if length < 0:
            raise ValueError(f"match length must be >= 0 (0 = unlimited), got {length}")
        self.names = players
        self.length = length  # 0: unlimited
        self.scores = [0, 0]
        self._dice = dice
        self._toggle = toggle  # a player's current toggles: "double", "automove"
        self.crawford_game = length == 1  # a 1-point match is Crawford from the start
        self.post_crawford = False
        self.rows = np.zeros((2, 25), dtype=np.int8)
        self.phase = Phase.BETWEEN
        self.turn = 0
        self.dice: tuple[int, int] | None = None
        self.cube = 1
        self.cube_owner = CENTRED
        self.doubler: int | None = None
        self.resignation: tuple[int, int] | None = None  # (seat, points)
        self.joined: set[int] = set()
        self.games = 0
        self._results: Results = []
        # the server's own record, per game: starting score, actions ("move", seat, dice,
        # steps), ("double"|"take"|"drop", seat), ("resign", seat, points); winner, points
        self.history: list[dict] = []
        self.announcement: list[Line] = []  # the match-end lines, once the match is decided

    # --- queries ---------------------------------------------------------------------

    def seat_of(self, name: str) -> int:
        return self.names.index(name)

    def opponent_of(self, name: str) -> str:
        return self.names[1 - self.seat_of(name)]

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def acting_seat(self) -> int:
        """Who the server waits for (the doubled side while a double is pending)."""
        if self.phase is Phase.TAKE and self.doubler is not None:
            return 1 - self.doubler
        return self.turn

    def position(self, seat: int) -> Position:
        """The position with ``seat`` in row 0."""
        return Position.from_rows(self.rows[seat], self.rows[1 - seat])

    def may_double_now(self, seat: int) -> bool:
        return (
            self.phase is Phase.ROLL
            and self.turn == seat
            and not self.crawford_game
            and self.cube_owner in (CENTRED, seat)
            and self._toggle(self.names[seat], "double")
        )

    def _may_double_flag(self, seat: int) -> bool:
        if self.crawford_game:
            return True  # FIBS shows both flags set in the Crawford game
        if self.phase is Phase.TAKE:
            return False
        return self.cube_owner in (CENTRED, seat)

    def board_for(self, seat: int) -> str:
        other = 1 - seat
        playing = self.phase in (Phase.ROLL, Phase.MOVE, Phase.TAKE)
        waits_for = self.acting_seat if playing else None
        on_roll: Literal["us", "them"] | None = None if waits_for is None else ("us" if waits_for == seat else "them")
        dice = self.dice if self.phase is Phase.MOVE and self.dice else (0, 0)
        return FibsBoard.from_rows(
            self.rows[seat],
            self.rows[other],
            on_roll=on_roll,
            opponent=self.names[other],
            match_length=self.length or UNLIMITED,
            player_score=self.scores[seat],
            opponent_score=self.scores[other],
            player_dice=dice if self.turn == seat else (0, 0),
            opponent_dice=dice if self.turn == other else (0, 0),
            cube=self.cube,
            player_may_double=self._may_double_flag(seat),
            opponent_may_double=self._may_double_flag(other),
            was_doubled=int(self.phase is Phase.TAKE and self.doubler == other),
            colour=COLOUR[seat],
            direction=DIRECTION[seat],
            can_move=pieces_to_move(self._results) if self.phase is Phase.MOVE and self.turn == seat else 0,
            post_crawford=self.post_crawford,
        ).to_line()

    def _boards(self, lines: list[Line]) -> None:
        lines += [(0, self.board_for(0)), (1, self.board_for(1))]

    # --- starting and resuming ------------------------------------------------------------

    def start(self) -> list[Line]:
        """The join: seat 1 accepted seat 0's invitation."""
        lines: list[Line] = [
            (1, msg.now_playing(self.names[0], self.length)),
            (0, msg.has_joined(self.names[1], self.length)),
        ]
        return lines + self._new_game()

    def resume(self, joiner: int, *, lose_crawford: bool = False) -> list[Line]:
        """The saved match goes on; ``lose_crawford``: as a faulty server, forget that it is at
        or in its Crawford game (the board shows post-Crawford, and a double is accepted)."""
        if lose_crawford and self.crawford_game:
            self.crawford_game, self.post_crawford = False, True
        inviter = 1 - joiner
        lines: list[Line] = [
            (joiner, msg.resumed_by_you(self.names[inviter])),
            (inviter, msg.resumed_by_them(self.names[joiner])),
        ]
        points = [(self.names[s], self.scores[s]) for s in (0, 1)]
        for detail in msg.resume_details(self.names[self.acting_seat], self.length, points):
            lines += [(0, detail), (1, detail)]
        self._boards(lines)
        if self.phase is Phase.BETWEEN:
            return lines + self._new_game()
        if self.phase is Phase.ROLL and self.may_double_now(self.turn):
            lines.append((self.turn, msg.PLEASE_ROLL_OR_DOUBLE))  # the boards are out already
        elif self.phase is Phase.ROLL:
            self._begin_turn(self.turn, lines)
        elif self.phase is Phase.MOVE:
            lines.append((self.turn, msg.please_move(pieces_to_move(self._results))))
        elif self.phase is Phase.TAKE and self.doubler is not None:
            lines.append((1 - self.doubler, msg.doubles(self.names[self.doubler])))
        return lines

    def suspend(self) -> None:
        """The match is being saved: pending offers that need both players lapse."""
        self.resignation = None
        self.joined.clear()

    def _log(self, *action) -> None:
        if self.history:
            self.history[-1]["actions"].append(action)

    def _new_game(self) -> list[Line]:
        self.games += 1
        self.history.append({"score": tuple(self.scores), "actions": [], "winner": None, "points": 0})
        self.rows[:] = Position.initial().board
        self.cube, self.cube_owner, self.doubler, self.resignation = 1, CENTRED, None, None
        self.joined.clear()
        lines: list[Line] = [(s, msg.new_game(self.names[1 - s])) for s in (0, 1)]
        while True:
            d0, d1 = self._dice.roll()
            if d0 != d1:
                break
        lines += [
            (0, msg.opening_roll(d0, self.names[1], d1)),
            (1, msg.opening_roll(d1, self.names[0], d0)),
        ]
        starter = 0 if d0 > d1 else 1
        self.turn, self.dice = starter, (max(d0, d1), min(d0, d1))
        self.phase = Phase.MOVE
        self._results = legal_results(self.position(starter), self.dice)
        lines += [
            (starter, msg.YOUR_TURN_TO_MOVE),
            (1 - starter, msg.makes_first_move(self.names[starter])),
        ]
        self._boards(lines)  # and no "Please move": FIBS does not prompt the opening move
        return lines

    # --- turns --------------------------------------------------------------------------

    def _begin_turn(self, seat: int, lines: list[Line]) -> None:
        """Hand the turn to ``seat``: prompt it, or roll for it when it may not double."""
        for _ in range(MAX_AUTO_PASSES):
            self.turn, self.dice, self.phase = seat, None, Phase.ROLL
            if self.may_double_now(seat):
                break
            if self._roll(seat, lines):
                return
            seat = 1 - seat
        self.turn, self.dice, self.phase = seat, None, Phase.ROLL
        self._boards(lines)
        lines.append((seat, msg.PLEASE_ROLL_OR_DOUBLE))

    def _roll(self, seat: int, lines: list[Line]) -> bool:
        """Roll for ``seat``; False when it cannot move (the caller passes the turn).

        With ``toggle automove`` on, a roll with a single legal result is played at
        once ("The only possible move is ...") and the turn handed on here.
        """
        d1, d2 = self._dice.roll()
        self.turn, self.dice, self.phase = seat, (d1, d2), Phase.MOVE
        self._results = legal_results(self.position(seat), self.dice)
        lines += [(seat, msg.you_roll(d1, d2)), (1 - seat, msg.rolls(self.names[seat], d1, d2))]
        self._boards(lines)
        pieces = pieces_to_move(self._results)
        if not pieces:
            self._log("move", seat, (d1, d2), ())
            lines += [(seat, msg.YOU_CANT_MOVE), (1 - seat, msg.cant_move(self.names[seat]))]
            return False
        if len(self._results) == 1 and self._toggle(self.names[seat], "automove"):
            steps, after = self._results[0]
            lines.append((seat, msg.only_possible_move(move_echo(steps, DIRECTION[seat]))))
            self._play(seat, steps, after, lines)
        else:
            lines.append((seat, msg.please_move(pieces)))
        return True

    def _require_turn(self, seat: int, phase: Phase) -> None:
        if self.phase in (Phase.BETWEEN, Phase.OVER):
            raise MatchError(
                msg.error(
                    "The game is over. Type 'join' to start the next game."
                    if self.phase is Phase.BETWEEN
                    else "The match is over."
                )
            )
        if self.acting_seat != seat:
            raise MatchError(msg.error("It's not your turn."))
        if self.phase is not phase:
            raise MatchError(
                msg.error(
                    {
                        Phase.ROLL: "You have to roll the dice first.",
                        Phase.MOVE: "You already rolled. Please move.",
                        Phase.TAKE: "Please accept or reject the double first.",
                    }[self.phase]
                )
            )

    def roll(self, seat: int) -> list[Line]:
        self._require_turn(seat, Phase.ROLL)
        lines: list[Line] = []
        if not self._roll(seat, lines):
            self._begin_turn(1 - seat, lines)
        return lines

    def move(self, seat: int, text: str) -> list[Line]:
        self._require_turn(seat, Phase.MOVE)
        assert self.dice is not None
        try:
            steps, after = play_move(self.position(seat), self.dice, text, DIRECTION[seat], self._results)
        except IllegalMove as exc:
            raise MatchError(msg.error(str(exc))) from None
        lines: list[Line] = []
        self._play(seat, steps, after, lines)
        return lines

    def _play(self, seat: int, steps, after: Position, lines: list[Line]) -> None:
        """Carry out a checked move: tell the opponent, then end the game or pass the turn."""
        self._log("move", seat, self.dice, tuple(steps))
        self.rows[seat], self.rows[1 - seat] = after.board[0], after.board[1]
        lines.append((1 - seat, msg.moves(self.names[seat], move_echo(steps, DIRECTION[seat]))))
        if after.off(0) == 15:
            lines += self._end_game(seat, game_result(after.board, 0) * self.cube, bear_off=True)
        else:
            self._begin_turn(1 - seat, lines)

    # --- the end of a game ------------------------------------------------------------------

    def _end_game(self, winner: int, points: int, bear_off: bool) -> list[Line]:
        loser = 1 - winner
        self.phase, self.dice, self.doubler, self.resignation = Phase.BETWEEN, None, None, None
        self._results = []
        self.scores[winner] += points
        if self.history:
            self.history[-1].update(winner=winner, points=points)
        over = bool(self.length) and self.scores[winner] >= self.length
        if over:
            self.phase = Phase.OVER
        elif self.crawford_game:
            self.crawford_game, self.post_crawford = False, True
        elif self.length and not self.post_crawford and self.scores[winner] == self.length - 1:
            self.crawford_game = True  # the next game
        lines: list[Line] = []
        self._boards(lines)  # turn 0: the final position, whoever ended the game
        if bear_off:
            lines += [(winner, msg.you_win_game(points)), (loser, msg.wins_game(self.names[winner], points))]
        if over:
            won, lost = self.scores[winner], self.scores[loser]
            self.announcement = [
                (winner, msg.you_win_match(self.length, won, lost)),
                (loser, msg.wins_match(self.names[winner], self.length, won, lost)),
            ]
            return lines + self.announcement
        for seat in (0, 1):
            own, other = (self.names[seat], self.scores[seat]), (self.names[1 - seat], self.scores[1 - seat])
            lines += [(seat, msg.score_line(self.length, own, other)), (seat, msg.JOIN_NEXT_GAME)]
        return lines

    def join(self, seat: int) -> list[Line]:
        """``join`` between games; the next game starts when both have joined."""
        if self.phase is not Phase.BETWEEN:
            raise MatchError(msg.error("The game is still going on."))
        self.joined.add(seat)
        if len(self.joined) < 2:
            return [(seat, msg.wait_for_join(self.names[1 - seat]))]
        return self._new_game()
