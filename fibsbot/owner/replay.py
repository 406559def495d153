"""A read match played over the board: every turn with its position, match state and what was done.

Player 0 is the left column.  Each ``Turn`` carries the board from the acting
player's side (row 0: the player to act) and the ``MatchState`` before the action,
so an analysis can ask the engine about it directly.  A move that is not legal in
the position, a cube action that the rules forbid, or a game that goes on after its
end is a ``MatFileError`` naming the file's line.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

import numpy as np

from engine.cube.decision import may_double
from engine.rules.ids import CENTRED, MatchState
from engine.rules.moves import apply_steps, legal_moves
from engine.rules.notation import NotationError, parse_gnubg
from engine.rules.position import Position
from fibsbot.owner.matread import MatAction, MatFileError, MatMatch


@dataclass(frozen=True)
class Turn:
    """One action of a player.  ``kind``: move, double, take, drop.

    ``board``: the acting player's side in row 0 (for take and drop: the taker's);
    ``state``: the match before the action, ``on_roll`` being the roller or doubler;
    ``result``: for a move, the board after it (mover in row 0); ``legal``: how many
    distinct results the roll had; ``opening``: the game's first move (no cube yet).
    """

    game: int
    number: int
    kind: str
    player: int
    board: np.ndarray
    state: MatchState
    dice: tuple[int, int] | None = None
    steps: tuple[tuple[int, int], ...] = ()
    result: np.ndarray | None = None
    legal: int = 0
    opening: bool = False
    cube_available: bool = False  # the mover could have doubled before this roll


def _opening_board() -> np.ndarray:
    return Position.initial().board.copy()


def _view(board0: np.ndarray, player: int) -> np.ndarray:
    """The board with ``player`` in row 0, from one kept with player 0 in row 0."""
    return np.ascontiguousarray(board0 if player == 0 else board0[::-1])


def _played(view: np.ndarray, action: MatAction, where: str):
    """(steps, result board, number of legal results) of a move as written."""
    assert action.dice is not None  # matread reads every move with its roll
    d1, d2 = action.dice
    results = legal_moves(Position(view), d1, d2)
    if not action.text:
        if results[0][0]:
            raise MatFileError(f"{where}: no move written for {d1}{d2}, but the roll can be played")
        return (), view.copy(), len(results)
    try:
        steps = parse_gnubg(action.text, view, (d1, d2))
    except NotationError as exc:
        raise MatFileError(f"{where}: {exc}") from exc
    after = apply_steps(view, steps)
    for _move, position in results:
        if np.array_equal(position.board, after):
            return tuple(steps), position.board.copy(), len(results)
    raise MatFileError(f"{where}: {d1}{d2}: {action.text} is not a legal move here")


def replay_turns(match: MatMatch) -> Iterator[Turn]:
    """Every move and cube action of every game, in order."""
    source = str(match.path or "match")
    for game in match.games:
        board0 = _opening_board()
        score = game.score
        cube, owner, offered = 1, CENTRED, None
        first_move = True
        decided = False  # borne off or dropped: only the "Wins" line may follow
        for action in game.actions:
            where = f"{source}:{action.line}"
            if decided and action.kind != "win":
                raise MatFileError(f"{where}: an action after the end of game {game.number}")
            player = action.player
            doubler = offered if offered is not None else player
            # a cube the server let be turned in the Crawford game leaves a game the engine sees as after it
            state = MatchState(
                cube=cube,
                cube_owner=owner,
                on_roll=doubler,
                crawford=game.crawford and cube == 1,
                match_length=match.length,
                score=score,
            )
            if action.kind == "move":
                if offered is not None:
                    raise MatFileError(f"{where}: a move while a double awaits its answer")
                assert action.dice is not None  # matread reads every move with its roll
                view = _view(board0, player)
                steps, after, legal = _played(view, action, where)
                yield Turn(
                    game.number,
                    action.number,
                    "move",
                    player,
                    view,
                    replace(state, dice=action.dice),
                    action.dice,
                    steps,
                    after,
                    legal,
                    opening=first_move,
                    cube_available=not first_move and may_double(state),
                )
                board0 = _view(after, player)
                first_move = False
                decided = bool(after[0].sum() == 0)
            elif action.kind == "double":
                # the rules, not the engine's judgement: a pointless double (at double match point, by
                # the leader after the Crawford game) is legal, and a server may let one through in it
                legal = owner in (CENTRED, player) and (not game.crawford or game.server_allowed_doubles)
                if not legal or offered is not None:
                    raise MatFileError(f"{where}: player {player} may not double here")
                yield Turn(game.number, action.number, "double", player, _view(board0, player), state)
                offered = player
            elif action.kind in ("take", "drop"):
                if offered is None or offered == player:
                    raise MatFileError(f"{where}: a {action.kind} without a double to answer")
                yield Turn(
                    game.number,
                    action.number,
                    action.kind,
                    player,
                    _view(board0, player),
                    replace(state, to_decide=player, doubled=True),
                )
                if action.kind == "take":
                    cube, owner, offered = cube * 2, player, None
                else:
                    decided = True
            elif action.kind == "win":
                break
