"""Bring a match journal in line with the server's board after an interruption.

When a match is resumed (or the bot comes back after a crash), the journal may be
off by what was in flight at the moment of the interruption:

* our own last action was journaled before it was sent (write-ahead) and the
  server never got it: it is taken back;
* the opponent's last turn (a roll and its move or dance, a double, a take of our
  double) reached the server but not our journal: it is inferred from the board,
  but only when exactly one roll explains it (the roll we saw, the dice the board
  shows, or the only roll among all 21 that leads there);
* a new game began unseen: its opening is inferred the same way.

A candidate is accepted when replaying it gives the server's position, cube,
score, pending double and the player the server waits for.  When nothing fits, the
game in progress is left out of the ``.mat`` (``leave_out``) rather than written
wrongly; the games after it are recorded from their start.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from fibsbot.protocol.board import FibsBoard
from fibsbot.protocol.match.state import MoveChecker
from fibsbot.records.journal import Action, MatchJournal, Replayed, replay

ROLLS = [(d1, d2) for d1 in range(1, 7) for d2 in range(d1, 7)]
_OWN_ACTIONS = ("move", "double", "take", "drop")


def _awaited(board: FibsBoard) -> int | None:
    """0 when the server waits for us (to roll, move or answer a double), 1 for them."""
    if board.turn == 0:
        return None
    return 0 if board.turn == board.colour else 1


def _fits(state: Replayed, board: FibsBoard, server_rows: np.ndarray) -> bool:
    game = state.recorder.current_game
    if game is None or state.awaited != _awaited(board):
        return False
    our_double_pending = board.double_pending and not board.opponent_doubled
    return (
        np.array_equal(game.board, server_rows)
        and game.cube == board.cube
        and game.score == (board.player_score, board.opponent_score)
        and (game.offered == 1) == board.opponent_doubled
        and (game.offered == 0) == our_double_pending
    )  # fmt: skip


class _Inference:
    def __init__(self, journal: MatchJournal, board: FibsBoard) -> None:
        self.journal = journal
        self.board = board
        self.server_rows = np.array(board.position_from_our_view().board, dtype=np.int8)
        self.checker = MoveChecker()

    def replay(self, actions: list[Action]) -> Replayed | None:
        try:
            return replay(self.journal.header, self.journal.mat_path, actions)
        except Exception:  # a candidate that does not even replay is no candidate
            return None

    def fits(self, actions: list[Action]) -> bool:
        state = self.replay(actions)
        return state is not None and _fits(state, self.board, self.server_rows)

    def moves_reaching(self, state: Replayed, player: int, dice: tuple[int, int]) -> list[list]:
        """The moves of ``player`` with ``dice`` that lead to the server's position."""
        game = state.recorder.current_game
        assert game is not None
        rows = np.stack([game.board[player], game.board[1 - player]])
        target = np.stack([self.server_rows[player], self.server_rows[1 - player]]).tobytes()
        found = []
        for move, after in self.checker.legal(rows, *dice):
            if after == target:
                found.append([list(step) for step in move])
        return found

    def missing_turn(self, base: list[Action], state: Replayed) -> Iterator[list[Action]]:
        """Candidates that add the opponent's one unseen action to ``base``."""
        game = state.recorder.current_game
        if game is None:
            return
        if game.offered == 0:
            yield base + [["take", 1]]
        if state.awaited != 1 or game.offered is not None:
            return
        if self.board.opponent_doubled:
            yield base + [["double", 1]]
            return
        known = state.dice.get(1)
        for dice in [known] if known else ROLLS:
            for steps in self.moves_reaching(state, 1, dice)[:1]:
                yield base + [["move", 1, *dice, steps]]

    def unseen_opening(self, base: list[Action], state: Replayed) -> Iterator[list[Action]]:
        """Candidates for a game that began while we were away."""
        b = self.board
        start = base + [["game", b.player_score, b.opponent_score, b.is_crawford_game]]
        if _awaited(b) == 0 and b.our_dice is not None and b.our_dice[0] != b.our_dice[1]:
            yield start + [["opening", 0, *sorted(b.our_dice, reverse=True)]]
        if _awaited(b) == 1 and b.their_dice is not None and b.their_dice[0] != b.their_dice[1]:
            yield start + [["opening", 1, *sorted(b.their_dice, reverse=True)]]
        opened = self.replay(start)
        if opened is None or _awaited(b) != 0:
            return
        for high, low in ((d2, d1) for d1, d2 in ROLLS if d1 != d2):
            opened.dice, opened.awaited = {1: (high, low)}, 1
            for steps in self.moves_reaching(opened, 1, (high, low))[:1]:
                yield start + [["opening", 1, high, low], ["move", 1, high, low, steps]]

    def candidates(self) -> Iterator[list[Action]]:
        actions = self.journal.actions
        bases = [actions]
        if actions and actions[-1][0] in _OWN_ACTIONS and actions[-1][1] == 0:
            bases.append(actions[:-1])  # journaled before sending: maybe never sent
        for base in bases:
            state = self.replay(base)
            if state is None:
                continue
            if state.recorder.game_in_progress:
                yield base
                yield from self.missing_turn(base, state)
            elif not state.recorder.is_over:
                yield from self.unseen_opening(base, state)


def reconcile(journal: MatchJournal, board: FibsBoard) -> tuple[list[Action], str]:
    """The actions that agree with ``board``, and a word on what changed.

    Ambiguity counts as failure: if two different candidates fit, the game in
    progress is left out rather than guessed.
    """
    actions = journal.actions
    if board.turn == 0:
        if journal.game_in_progress:
            return actions + [["leave_out", "the game ended while the bot was away"]], "left_out"
        return actions, "in_step"
    inference = _Inference(journal, board)
    fitting = []
    for candidate in inference.candidates():
        if inference.fits(candidate) and candidate not in fitting:
            fitting.append(candidate)
    distinct = {_signature(candidate) for candidate in fitting}
    if len(distinct) == 1:
        chosen = fitting[0]
        note = "in_step" if chosen == actions else "inferred"
        return _with_pending_roll(chosen, board, inference), note
    reason = "no journal state fits the server's board" if not fitting else "more than one history fits"
    if journal.game_in_progress:
        return actions + [["leave_out", reason]], "left_out"
    return actions, "unseen_game"


def _signature(actions: list[Action]) -> tuple:
    """Candidates that differ only in how a move is spelled are the same history."""
    return tuple((a[0], *a[1:4]) if a[0] == "move" else tuple(map(str, a)) for a in actions)


def _with_pending_roll(actions: list[Action], board: FibsBoard, inference: _Inference) -> list[Action]:
    """Keep the dice the board shows for the side that must move (their roll line may be lost)."""
    state = inference.replay(actions)
    awaited = _awaited(board)
    dice = board.our_dice if awaited == 0 else board.their_dice
    if state is None or dice is None or awaited is None or state.dice.get(awaited) == dice:
        return actions
    if state.awaited != awaited:
        return actions
    return actions + [["roll", awaited, *dice]]
