"""Rolls the bot never saw, where the position shows all that matters.

A kill loses lines; when the lost ones are a dance (the position is the same whatever
the roll) or a move that two rolls explain equally (the board after it is known), the
histories that fit differ only in dice.  They tell the same course of play, so the game
is kept: one roll that fits is recorded, and a ``roll_guessed`` action after the move
names every roll that fits (the ``.mat`` says so in its header, the log in a line).
Only histories whose positions differ leave a game out.
"""

from __future__ import annotations

import numpy as np

from engine.rules.moves import MoveBuffers, generate_moves
from fibsbot.records.inference import ROLLS, copied_state
from fibsbot.records.journal import Action, MatchJournal, Replayed, apply_action, replay

PLAYER_ACTIONS = ("opening", "roll", "move", "double", "take", "drop", "win", "resign", "roll_guessed")


def divergence(journal: MatchJournal, actions: list[Action]) -> tuple[int, Replayed]:
    """Where ``actions`` leave the journal's, and the state there (a copy of the journal's own
    when they extend it: the common case costs no replay)."""
    start = next(
        (i for i, (a, b) in enumerate(zip(journal.actions, actions)) if a != b), min(len(journal.actions), len(actions))
    )
    if start == len(journal.actions):
        return start, copied_state(journal.state)
    return start, replay(journal.header, journal.mat_path, actions[:start])


def course(journal: MatchJournal, actions: list[Action]) -> tuple:
    """What a history shows from where it leaves the journal: each action's kind and player, and the
    position, cube and score after it.  Histories that differ only in how a move is spelled, or in
    the dice of a roll nobody saw that gives the same position, show the same course."""
    start, state = divergence(journal, actions)
    shown: list = [start]
    for action in actions[start:]:
        apply_action(state, action)
        rec = state.recorder
        last = rec.games[-1] if rec.games else None
        after = None if last is None else (last.board.tobytes(), last.cube, last.offered, last.winner, last.points)
        player = action[1] if action[0] in PLAYER_ACTIONS else None
        shown.append((action[0], player, after, rec.score, rec.game_in_progress))
    return tuple(shown)


def with_guessed_rolls(journal: MatchJournal, actions: list[Action]) -> list[Action]:
    """``actions`` with a ``roll_guessed`` action after each move beyond the journal whose roll was
    never seen (neither journaled nor shown) and that more than one roll explains."""
    start, state = divergence(journal, actions)
    seen = set(state.dice)  # the players whose roll is journaled
    out = list(actions[:start])
    buffers = MoveBuffers()
    for index in range(start, len(actions)):
        action = actions[index]
        kind = action[0]
        fitting: list[list[int]] = []
        if kind == "move" and action[1] not in seen:
            fitting = rolls_explaining(state, action, buffers)
        apply_action(state, action)
        out.append(action)
        if kind in ("move", "game"):
            seen.clear()
        elif kind == "roll":
            seen.add(action[1])
        elif kind == "opening":
            following = actions[index + 1] if index + 1 < len(actions) else None
            # an opening followed by its move was inferred from the move; else the board showed its dice
            if not (following and following[0] == "move" and following[1] == action[1]):
                seen.add(action[1])
        if len(fitting) > 1:
            guess = ["roll_guessed", action[1], action[2], action[3], fitting]
            apply_action(state, guess)
            out.append(guess)
    return out


def rolls_explaining(state: Replayed, move: Action, buffers: MoveBuffers) -> list[list[int]]:
    """Every roll with which the mover of ``move`` reaches the same position from ``state``
    (for a dance: every roll that cannot be played); an opening move's roll is never a double."""
    _, player, d1, d2, steps = move
    game = state.recorder.current_game
    if game is None:
        return []
    rows = np.ascontiguousarray(np.stack([game.board[player], game.board[1 - player]]), dtype=np.int8)
    after = copied_state(state)
    try:
        apply_action(after, move)
    except Exception:  # noqa: BLE001 - a move that does not fit explains nothing
        return []
    board = after.recorder.games[-1].board
    target = np.stack([board[player], board[1 - player]])
    opening = not game.slots
    found = []
    for dice in ROLLS:
        if opening and dice[0] == dice[1]:
            continue
        count = generate_moves(rows, *dice, *buffers.args())
        results, first_steps = buffers.boards[:count], buffers.steps[:count, 0, 0]
        if not steps:
            fits = bool(first_steps[0] < 0)  # no legal move: a dance
        else:
            fits = bool(((results == target).all(axis=(1, 2)) & (first_steps >= 0)).any())
        if fits:
            found.append(list(dice))
    if [min(d1, d2), max(d1, d2)] not in found:
        return []  # the recorded roll itself does not fit: nothing to say about others
    return found
