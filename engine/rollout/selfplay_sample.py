"""Positions met in self-play, for checking the rules engine against an oracle.

Random self-play reaches many hits, bar entries and blocked rolls; pubeval self-play
reaches realistic primes, races and bear-offs.  Everything is a pure function of a
seed (dice from ``engine.rules.dice``, the random player hashes its decision), so a
failing position can always be reproduced from ``(player, seed, game, turn)``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from engine.eval.pubeval import pubeval_choose, pubeval_weights
from engine.players.registry import random_choose
from engine.rollout.game import game_turns
from engine.rules.dice import game_seed
from engine.rules.moves import MoveBuffers
from engine.rules.position import BAR, has_contact

SELFPLAY_PLAYERS = ("random", "pubeval")

# Kinds of position a move-generation check should cover; one position can be of
# several kinds (a blocked bar entry is "bar entry", "no move" and "blocked entry").
CONTACT = "contact"
RACE = "race"
BAR_ENTRY = "bar entry"
BEAR_OFF = "bear-off"
NO_MOVE = "no move"
BLOCKED_ENTRY = "blocked entry"  # on the bar and no legal move
KINDS = (CONTACT, RACE, BAR_ENTRY, BEAR_OFF, NO_MOVE, BLOCKED_ENTRY)

Chooser = Callable[[np.ndarray, int, np.ndarray], int]


@dataclass(frozen=True)
class Sample:
    """A position with the mover in row 0, the roll to play, and where it came from."""

    board: np.ndarray
    dice: tuple[int, int]
    player: str
    game_seed: int
    turn: int

    def describe(self) -> str:
        from engine.rules.ids import position_id

        return (
            f"{position_id(self.board)} dice {self.dice[0]}{self.dice[1]} "
            f"({self.player} self-play, game seed {self.game_seed}, turn {self.turn})"
        )


def make_chooser(player: str, seed: int = 0) -> Chooser:
    """``choose(board, n, candidates) -> index`` for a self-play player kind."""
    if player == "random":
        params = np.array([seed], dtype=np.uint64)
        return lambda board, n, candidates: int(random_choose(params, board, n, candidates))
    if player == "pubeval":
        weights = pubeval_weights()
        return lambda board, n, candidates: int(pubeval_choose(weights, board, n, candidates))
    raise ValueError(f"unknown self-play player {player!r}; known: {', '.join(SELFPLAY_PLAYERS)}")


def game_positions(
    player: str, seed_value: int, buffers: MoveBuffers | None = None
) -> Iterator[tuple[np.ndarray, int, int, int]]:
    """Yield ``(board, d1, d2, turn)`` before every move of one self-play game.

    The board is the game's own copy, mover in row 0, never written again; both
    seats use the same player.
    """
    choose = make_chooser(player, seed_value)

    def choose_move(board, d1, d2, candidates):
        return choose(board, len(candidates), candidates)

    for turn in game_turns(choose_move, choose_move, seed_value, buffers):
        yield turn.board, turn.dice[0], turn.dice[1], turn.number


def sample_positions(count: int, seed: int, players: tuple[str, ...] = SELFPLAY_PLAYERS) -> Iterator[Sample]:
    """``count`` positions from whole games, alternating the players game by game."""
    buffers = MoveBuffers()
    produced = 0
    game = 0
    while produced < count:
        player = players[game % len(players)]
        seed_value = int(game_seed(seed, game))
        for board, d1, d2, turn in game_positions(player, seed_value, buffers):
            yield Sample(board, (d1, d2), player, seed_value, turn)
            produced += 1
            if produced == count:
                return
        game += 1


def position_after(player: str, seed_value: int, turns: int) -> np.ndarray:
    """The board on roll after ``turns`` turns of a self-play game (mover in row 0).

    A game that ends sooner gives its last position before the winning move.
    """
    board = None
    for board, _d1, _d2, turn in game_positions(player, seed_value):  # noqa: B007  (wanted after the loop)
        if turn == turns:
            break
    assert board is not None, "a self-play game has at least one position"
    return board


def position_kinds(board: np.ndarray, no_move: bool) -> tuple[str, ...]:
    """The kinds (of ``KINDS``) a position with the mover in row 0 belongs to."""
    kinds = [CONTACT if has_contact(board) else RACE]
    if board[0, BAR] > 0:
        kinds.append(BAR_ENTRY)
    if board[0, 6:].sum() == 0:
        kinds.append(BEAR_OFF)
    if no_move:
        kinds.append(NO_MOVE)
        if board[0, BAR] > 0:
            kinds.append(BLOCKED_ENTRY)
    return tuple(kinds)
