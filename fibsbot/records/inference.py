"""The actions a journal missed while the bot was away, found between two known positions.

A kill or a dropped connection loses what the server sent and the bot had not
handled yet.  The server goes on by itself only as far as nobody must decide (a
roll for a player who may not double, a dance passed on to the other side), and the
opponent's next command can follow before the server notices we are gone.  So the
missing actions are: dances of either side (ours only after a roll of ours the
journal knows of, or while the server rolls for us), a take or drop of our double,
the opponent's double, one move that changes the position (the opponent's: ours are
journaled before they are sent) or, while the server rolls for us, two with a dance
of ours between, the end of the game when the server's board shows it ended or shows
the next game, and that next game's opening.

Each chain is replayed on the journal and kept when it gives the server's position,
cube, score, pending double and the player awaited (``fits``), or, for a game that
ended, the final position and the new score (``fits_ended``).  A move with known dice
(the roll was journaled or the board shows it) between two known positions is found
by searching the legal moves, as gnubg's import would; a roll the bot never saw is
tried with all 21 rolls.  A dance whose roll was never seen is tried with one roll that
dances (the position is the same whatever the roll: ``records.resync`` names them all).
The work is bounded: dances and
results are read from the move generator's arrays, and a position from which one
more move of the opponent cannot give the server's is not searched further.

``match_endings`` answers the other question, for a match the server no longer
lists: which histories end it from the journal on.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterator

import numpy as np

from engine.rules.moves import MoveBuffers, generate_moves, steps_to_move
from engine.rules.position import game_result
from fibsbot.protocol.board import FibsBoard
from fibsbot.records.journal import Action, MatchJournal, Replayed, apply_action, replay

ROLLS = [(d1, d2) for d1 in range(1, 7) for d2 in range(d1, 7)]
MAX_STEPS = 4  # a chain longer than this cannot come from one server action and one opponent command


def awaited(board: FibsBoard) -> int | None:
    """0 when the server waits for us (to roll, move or answer a double), 1 for them."""
    if board.turn == 0:
        return None
    return 0 if board.turn == board.colour else 1


def fits(state: Replayed, board: FibsBoard, server_rows: np.ndarray) -> bool:
    game = state.recorder.current_game
    if game is None or state.awaited != awaited(board):
        return False
    our_double_pending = board.double_pending and not board.opponent_doubled
    return (
        np.array_equal(game.board, server_rows)
        and game.cube == board.cube
        and game.score == (board.player_score, board.opponent_score)
        and (game.offered == 1) == board.opponent_doubled
        and (game.offered == 0) == our_double_pending
    )


def fits_ended(state: Replayed, board: FibsBoard, server_rows: np.ndarray) -> bool:
    """The last game ended on the server's final position at the server's new score."""
    rec = state.recorder
    if rec.game_in_progress or not rec.games:
        return False
    return np.array_equal(rec.games[-1].board, server_rows) and rec.score == (board.player_score, board.opponent_score)


class Inference:
    def __init__(self, journal: MatchJournal, board: FibsBoard) -> None:
        self.journal = journal
        self.board = board
        self.server_rows = np.array(board.position_from_our_view().board, dtype=np.int8)
        self.buffers = MoveBuffers()
        self.moves = 1

    def replay(self, actions: list[Action]) -> Replayed | None:
        try:
            return replay(self.journal.header, self.journal.mat_path, actions)
        except Exception:  # a candidate that does not even replay is no candidate
            return None

    def fits(self, actions: list[Action]) -> bool:
        state = self.replay(actions)
        if state is None:
            return False
        if self.board.turn == 0:
            return fits_ended(state, self.board, self.server_rows)
        return fits(state, self.board, self.server_rows)

    # --- one missing action ---------------------------------------------------------------

    def _rows(self, state: Replayed, player: int) -> np.ndarray:
        game = state.recorder.current_game
        assert game is not None
        return np.stack([game.board[player], game.board[1 - player]])

    def _moves(self, state: Replayed, player: int, keep) -> Iterator[Action]:
        """The moves of ``player`` (its journaled roll, or every roll) whose result ``keep`` accepts
        (``keep(boards)``: a boolean per result, mover in row 0), one spelling per result."""
        known = state.dice.get(player)
        rows = self._rows(state, player)
        for dice in [known] if known else ROLLS:
            boards, steps = _results(self.buffers, rows, dice)
            chosen = np.flatnonzero(keep(boards) & (steps[:, 0, 0] >= 0))
            found = [["move", player, *dice, [list(step) for step in steps_to_move(steps[k])]] for k in chosen]
            yield from found  # materialized first: the search below reuses the scratch arrays

    def _dances(self, state: Replayed, player: int) -> Iterator[Action]:
        """A roll of ``player`` that could not be played (the server passes the turn on by itself)."""
        known = state.dice.get(player)
        rows = self._rows(state, player)
        dancing = [
            dice for dice in ([known] if known else ROLLS) if _results(self.buffers, rows, dice)[1][0, 0, 0] < 0
        ]  # no step: no move
        # a roll never seen: every dancing roll leaves the same position, so one stands for all
        for dice in dancing[:1]:
            yield ["move", player, *dice, []]

    def _moves_reaching(self, state: Replayed, player: int) -> Iterator[Action]:
        """The moves of ``player`` that lead to the server's position, one spelling per roll."""
        if state.dice.get(player) is None and awaited(self.board) == player:
            return  # the server waits for this player again: the roll shown is a later one
        if player == 1 and not self._may_reach(self._rows(state, 1)):
            return  # no roll of theirs gives the server's position from here: no need to try them
        target = np.stack([self.server_rows[player], self.server_rows[1 - player]])
        yield from self._moves(state, player, lambda boards: (boards == target).all(axis=(1, 2)))

    def _moves_bearing_off(self, state: Replayed, player: int) -> Iterator[Action]:
        """The moves of ``player`` that bear off the last checkers (the board shows the next game)."""
        yield from self._moves(state, player, lambda boards: ~boards[:, 0].any(axis=1))

    def _any_moves(self, state: Replayed, player: int) -> Iterator[Action]:
        """Every distinct result of every roll of the opponent (a move whose board line was lost too)
        from which one more move of theirs may still reach the server's position."""
        yield from self._moves(state, player, lambda boards: np.array([self._may_reach(b) for b in boards], bool))

    def _may_reach(self, rows: np.ndarray) -> bool:
        """Whether one move of the opponent (``rows[0]``, in their numbering) can still give the
        server's position: it can only hit our blots and must bring its checkers 1 to 24 pips on."""
        theirs, ours = rows[0].astype(int), rows[1].astype(int)
        target_ours, target_theirs = self.server_rows[0].astype(int), self.server_rows[1].astype(int)
        lower = target_ours[:24] < ours[:24]
        if (target_ours[:24] > ours[:24]).any() or (ours[:24][lower] != 1).any() or target_ours[:24][lower].any():
            return False
        if target_ours[24] - ours[24] != int(lower.sum()):
            return False
        pips = np.arange(1, 26)
        gone = int(theirs @ pips) - int(target_theirs @ pips)
        return 0 < gone <= 24

    def _next(self, state: Replayed, moved: int) -> Iterator[tuple[Action, bool]]:
        """(action, whether it changes the position) that may follow ``state``."""
        game = state.recorder.current_game
        if game is None:
            return
        if game.offered == 0:
            yield ["take", 1], False
            yield ["drop", 1], False  # the game ends: only a board between games can fit
            return
        if game.offered is not None:
            return  # our answer is journaled before it is sent
        if state.awaited == 1 and self.board.opponent_doubled:
            yield ["double", 1], False
        dancer = state.awaited if state.awaited is not None else 1
        if dancer == 1 or 0 in state.dice or state.rolling or server_rolls_for_us(state):
            # a roll of ours needs our command (journaled, or its dice would be) unless the server rolls for us
            for dance in self._dances(state, dancer):
                yield dance, False
        if state.awaited == 1 and moved < self.moves:
            if moved + 1 < self.moves:
                for move in self._any_moves(state, 1):
                    yield move, True
            for move in self._moves_reaching(state, 1):
                yield move, True
            if self._new_game_shown(state):
                for move in self._moves_bearing_off(state, 1):
                    yield move, True

    def _ending(self, state: Replayed) -> Iterator[Action]:
        """The win that gives the server's new score (a bear-off, the position being final)."""
        rec = state.recorder
        game = rec.current_game
        if game is None:
            return
        gained = (self.board.player_score - rec.score[0], self.board.opponent_score - rec.score[1])
        for player in (0, 1):
            if gained[player] > 0 and gained[1 - player] == 0 and int(game.board[player].sum()) == 0:
                yield ["win", player, gained[player]]

    def chains(self, moves: int = 1) -> Iterator[list[Action]]:
        """Fitting histories: the journal (maybe less our last unsent action) and what may follow it,
        with at most ``moves`` moves of the opponent; past the first, a move's result is unknown and
        every result of every roll is tried (costly: seconds, so the records use one)."""
        self.moves = moves
        actions = self.journal.actions
        bases = [actions]
        if actions and actions[-1][0] in ("move", "double", "take", "drop") and actions[-1][1] == 0:
            bases.append(actions[:-1])  # journaled before sending: maybe never sent
        for base in bases:
            state = self.replay(base)
            if state is None:
                continue
            game = state.recorder.current_game
            if game is not None and state.awaited is None and not game.slots and self.board.turn != 0:
                yield from self._unseen_opening(base)  # the game's first board was handled, its opening lost
            elif game is not None:
                yield from self._extend(base, state, moved=0, depth=0)
            elif not state.recorder.is_over and self.board.turn != 0:
                b = self.board
                yield from self._unseen_opening(base + [["game", b.player_score, b.opponent_score, b.is_crawford_game]])

    def _unseen_opening(self, start: list[Action]) -> Iterator[list[Action]]:
        """A game begun (``start``) while we were away: its opening roll (and the opponent's first move)."""
        b = self.board
        if awaited(b) == 0 and b.our_dice is not None and b.our_dice[0] != b.our_dice[1]:
            yield start + [["opening", 0, *sorted(b.our_dice, reverse=True)]]
        if awaited(b) == 1 and b.their_dice is not None and b.their_dice[0] != b.their_dice[1]:
            yield start + [["opening", 1, *sorted(b.their_dice, reverse=True)]]
        opened = self.replay(start)
        if opened is None or awaited(b) != 0:
            return
        for high, low in ((d2, d1) for d1, d2 in ROLLS if d1 != d2):
            opened.dice, opened.awaited = {1: (high, low)}, 1
            for move in self._moves_reaching(opened, 1):
                yield start + [["opening", 1, high, low], move]

    def _extend(self, actions: list[Action], state: Replayed, moved: int, depth: int) -> Iterator[list[Action]]:
        """The fitting histories from ``state`` on (checked on the state: replaying each would cost more)."""
        if not state.recorder.game_in_progress:
            yield from self._after_end(actions, state)  # the opponent dropped our double
            return
        if self.board.turn == 0 or self._new_game_shown(state):
            for win in self._ending(state):
                ended = _applied(state, win)
                if ended is not None:
                    yield from self._after_end(actions + [win], ended)
        elif fits(state, self.board, self.server_rows):
            yield actions
        if depth >= MAX_STEPS:
            return
        for action, changes in self._next(state, moved):
            after = _applied(state, action)
            if after is not None:
                yield from self._extend(actions + [action], after, moved + changes, depth + 1)

    def _new_game_shown(self, state: Replayed) -> bool:
        """The board is of a later game: the one in progress ended while we were away."""
        game = state.recorder.current_game
        return (
            game is not None
            and self.board.turn != 0
            and game.score != (self.board.player_score, self.board.opponent_score)
        )

    def _after_end(self, actions: list[Action], state: Replayed) -> Iterator[list[Action]]:
        """A game ended: the board shows its end, or the next game begun unseen at the new score."""
        b = self.board
        if b.turn == 0:
            if fits_ended(state, b, self.server_rows):
                yield actions
        elif not state.recorder.is_over and state.recorder.score == (b.player_score, b.opponent_score):
            yield from self._unseen_opening(actions + [["game", b.player_score, b.opponent_score, b.is_crawford_game]])


def server_rolls_for_us(state: Replayed) -> bool:
    """Whether the server rolls for us (we may not double: the opponent owns the cube, or the Crawford
    game), so that while we are away a dance of ours passes the turn back to the opponent."""
    game = state.recorder.current_game
    return game is not None and (game.crawford or game.cube_owner == 1)


def _results(buffers: MoveBuffers, rows: np.ndarray, dice: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Every distinct legal result of ``dice`` for the mover (``rows[0]``) and its steps (views of
    ``buffers``, which the next call overwrites; a first step row of -1: no move, a dance)."""
    count = generate_moves(np.ascontiguousarray(rows, dtype=np.int8), *dice, *buffers.args())
    return buffers.boards[:count], buffers.steps[:count]


def match_endings(journal: MatchJournal) -> list[list[Action]]:
    """The histories that end the match from the journal on, when the server no longer has it.

    The server waits for us at every decision of ours, so what ended the match while we
    were away can only be: the opponent's drop of our double, the win of our last move
    (journaled before it was sent), or the opponent's move bearing off its last checkers
    (its roll journaled, or any roll when it was never seen), then the win; the points
    follow from the cube and the final position, and the score must reach the length.
    """
    state = journal.state
    game = state.recorder.current_game
    if game is None:
        return []
    found: list[list[Action]] = []
    if game.offered == 0:
        found.append([["drop", 1]])
    elif game.offered is None:
        for player in (0, 1):
            if int(game.board[player].sum()) == 0:
                found.append([["win", player, game_result(game.board, player) * game.cube]])
        if state.awaited == 1:
            rows = np.stack([game.board[1], game.board[0]])
            known = state.dice.get(1)
            buffers = MoveBuffers()
            for dice in [known] if known else ROLLS:
                boards, steps = _results(buffers, rows, dice)
                for final, step in zip(boards, steps):
                    if step[0, 0] >= 0 and not final[0].any():
                        points = game_result(final, 0) * game.cube
                        move = [list(s) for s in steps_to_move(step)]
                        found.append([["move", 1, *dice, move], ["win", 1, points]])
    ended = []
    for tail in found:
        after = copied_state(state)
        try:
            for action in tail:
                apply_action(after, action)
        except Exception:  # noqa: BLE001 - a candidate that does not fit is no candidate
            continue
        if after.recorder.is_over:
            ended.append(journal.actions + tail)
    return ended


def copied_state(state: Replayed) -> Replayed:
    """A copy that ``apply_action`` may change: the recorder's earlier games are shared, not copied."""
    recorder = copy.copy(state.recorder)
    recorder.games = list(recorder.games)
    recorder.notes = list(recorder.notes)
    if recorder.games:
        last = recorder.games[-1]
        recorder.games[-1] = dataclasses.replace(last, slots=list(last.slots), board=last.board.copy())
    return Replayed(recorder, dict(state.dice), state.awaited, state.rolling)


def _applied(state: Replayed, action: Action) -> Replayed | None:
    """A copy of ``state`` with ``action`` played (None if it does not fit)."""
    fresh = copied_state(state)
    try:
        apply_action(fresh, action)
    except Exception:  # an action that does not fit is no candidate
        return None
    return fresh
