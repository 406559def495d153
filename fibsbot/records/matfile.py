"""Match files in the ``.mat`` format that FIBS, JellyFish and GNU Backgammon exchange.

A ``MatchRecorder`` is fed the match as it happens (``start_game``,
``roll_and_move``, ``double``, ``take``, ``drop``, ``resign``, ``win``) and rewrites
its file atomically after every finished game, so that a crash never loses a
finished game (the daemon's records go further: ``fibsbot.records.journal``
rewrites the file after every action).  Player 0 is the left column, player 1 the right one.

The layout copies gnubg's own ``export match mat`` (gnubg 1.07 ``export.c``),
because gnubg's reader (``import.c``) finds the right column by the second
``NN:`` roll on a line or, failing that, by the first double space after column
15.  Therefore:

* move lines are ``%3d) `` + the left entry padded to 27 characters + a space +
  the right entry; an entry of the right player that starts a game leaves the
  left one empty (still padded);
* cube entries carry gnubg's leading space (`` Doubles => 2``, `` Takes``,
  `` Drops``), and a left entry is always followed by at least two spaces so that
  the double-space search can find the right column;
* the ``Wins N points`` line stands in the winner's column: six spaces for the
  left player, column 34 for the right one (on the same line when that line has
  only a left entry so far).  gnubg reads a ``Wins`` in a game that is not over
  as the other player's resignation, so resignations need nothing else;
* moves are written one die per step, points in the mover's own numbering,
  25 = bar and 0 = off, with ``*`` on hits (the recorder follows the checkers to
  know them); a dance is the roll alone (``43:``).

Which game is the Crawford game, and what the header says of it: ``records.crawford``.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from fibsbot.records.atomic import write_atomically
from fibsbot.records.crawford import RULE_BREACH_HEADER, CrawfordReckoning
from fibsbot.records.space import DISK, no_space

LEFT_WIDTH = 27  # gnubg's "%3d) %-27s "
RIGHT_COLUMN = 33  # where right entries start ("  1) " + 27 + " ")
BAR, OFF = 25, 0
NUM_CHECKERS = 15

Step = tuple[int, int]

_NAME_UNSAFE = re.compile(r"[\s:]")


class MatRecordError(ValueError):
    """A call that does not fit the match recorded so far."""


def _opening_row() -> np.ndarray:
    row = np.zeros(25, dtype=np.int8)  # column i = point i + 1, column 24 = bar
    row[5], row[7], row[12], row[23] = 5, 3, 5, 2
    return row


def points_text(points: int) -> str:
    return f"{points} point" + ("" if points == 1 else "s")


@dataclass
class _Game:
    number: int
    score: tuple[int, int]
    crawford: bool
    slots: list[str] = field(default_factory=list)  # even index: left player, odd: right
    board: np.ndarray = field(default_factory=lambda: np.stack([_opening_row(), _opening_row()]))
    cube: int = 1
    cube_owner: int | None = None
    offered: int | None = None  # the player whose double awaits an answer
    winner: int | None = None
    points: int = 0
    match_won: bool = False

    @property
    def end_score(self) -> tuple[int, int] | None:
        """The score after this game (None while it goes on)."""
        if self.winner is None:
            return None
        score = list(self.score)
        score[self.winner] += self.points
        return score[0], score[1]


class MatchRecorder(CrawfordReckoning):
    """Incremental ``.mat`` writer for one match (``match_length`` 0: unlimited session)."""

    def __init__(
        self,
        path: Path | str,
        players: tuple[str, str],
        match_length: int,
        *,
        site: str | None = None,
        event: str | None = None,
        started: dt.datetime | None = None,
        crawford: bool = True,
        autosave: bool = True,
    ) -> None:
        if match_length < 0:
            raise MatRecordError(f"match length {match_length} must be 0 (unlimited) or more")
        if len(players) != 2:
            raise MatRecordError("a match has two players")
        self.path = Path(path)
        self.players = tuple(_NAME_UNSAFE.sub("_", name) or f"player{i}" for i, name in enumerate(players))
        self.match_length = match_length
        self.site = site
        self.event = event
        self.started = started or dt.datetime.now()
        self.crawford_rule = crawford and match_length > 0
        self.autosave = autosave  # write the file at the end of each game (off: the caller writes)
        self.games: list[_Game] = []
        self.notes: list[str] = []  # header comments: what the file leaves out or could not see
        self._score = (0, 0)
        self._crawford_at: dict[tuple[int, int], bool] = {}  # every game begun (unseen too), by its score
        self._last_start: tuple[int, int] | None = None

    # ------------------------------------------------------------------ feeding

    @property
    def score(self) -> tuple[int, int]:
        """The score after the games recorded so far."""
        return self._score

    @property
    def game_in_progress(self) -> bool:
        return bool(self.games) and self.games[-1].winner is None

    @property
    def current_game(self) -> _Game | None:
        return self.games[-1] if self.game_in_progress else None

    @property
    def last_move_number(self) -> int | None:
        """The numbered line of the last entry in the current game (a move's or a cube action's)."""
        game = self.current_game
        return (len(game.slots) + 1) // 2 if game is not None and game.slots else None

    def leave_out_game(self, reason: str | None = None) -> None:
        """Forget the game in progress: it cannot be recorded faithfully (the file omits it, and says so)."""
        if not self.game_in_progress:
            raise MatRecordError("no game in progress to leave out")
        game = self.games.pop()
        self.note(f"A game at {game.score[0]}-{game.score[1]} is left out" + (f": {reason}" if reason else ""))

    def skip_unseen_game(self, score: tuple[int, int], reason: str) -> None:
        """A game at ``score`` was played that the file cannot hold: a comment says so."""
        if self.game_in_progress:
            raise MatRecordError("a game in progress cannot be unseen")
        self._crawford_verdict((int(score[0]), int(score[1])), server_says=None)
        self.note(f"A game at {score[0]}-{score[1]} is left out: {reason}")

    def end_match(self, score: tuple[int, int]) -> None:
        """The server's final score: it stands even where the games recorded add up to less."""
        if self.game_in_progress:
            raise MatRecordError(f"game {self.games[-1].number} has not ended")
        final = (int(score[0]), int(score[1]))
        if final != self._score:
            self.note(
                f"The match ended {final[0]}-{final[1]} (the server's score); "
                f"the games recorded here end at {self._score[0]}-{self._score[1]}"
            )
        self._score = final

    def note(self, text: str) -> None:
        """A comment for the file's header (gnubg shows it as the match's comment)."""
        self.notes.append(" ".join(text.split()))

    def start_game(self, score: tuple[int, int] | None = None, crawford: bool | None = None) -> None:
        """Begin the next game; ``score`` (the server's) overrides the running score and
        ``crawford`` (the server's) the recorder's own reckoning of the Crawford game."""
        if self.game_in_progress:
            raise MatRecordError(f"game {self.games[-1].number} has not ended")
        if self.is_over:
            raise MatRecordError("the match is over")
        if score is not None:
            if len(score) != 2 or min(score) < 0:
                raise MatRecordError(f"score {score!r} must be two non-negative numbers")
            self._score = (int(score[0]), int(score[1]))
        crawford = self._crawford_verdict(self._score, server_says=crawford)
        # gnubg reads a match only when its games are numbered 1, 2, ... in order, so a
        # game left out gives its number to the next one (its queue rows lose their place)
        self.games.append(_Game(number=len(self.games) + 1, score=self._score, crawford=crawford))

    def roll_and_move(self, player: int, dice: tuple[int, int], steps: tuple[Step, ...] | list[Step]) -> None:
        """A roll and its move (``()`` when it could not move), steps in the mover's numbering."""
        game = self._playing(player)
        if game.offered is not None:
            raise MatRecordError("a double awaits an answer")
        d1, d2 = (int(d) for d in dice)
        if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
            raise MatRecordError(f"dice {dice!r} must be two numbers 1..6")
        if len(steps) > 4:
            raise MatRecordError(f"a move has at most 4 steps, got {len(steps)}")
        words = [self._apply_step(game, player, step) for step in steps]
        self._place(game, player, f"{d1}{d2}: " + " ".join(words) if words else f"{d1}{d2}:")

    def double(self, player: int, cube: int | None = None) -> None:
        """``player`` offers the cube; ``cube`` is the value offered (default twice the cube)."""
        game = self._playing(player)
        if game.offered is not None:
            raise MatRecordError("a double already awaits an answer")
        if game.cube_owner not in (None, player):
            raise MatRecordError(f"player {player} doubled a cube owned by the opponent")
        offered = 2 * game.cube if cube is None else int(cube)
        if offered != 2 * game.cube:
            raise MatRecordError(f"a double from cube {game.cube} offers {2 * game.cube}, not {offered}")
        if game.crawford:  # the server let it through: kept, and said in the file
            self.note(
                f'[{RULE_BREACH_HEADER} "Game {game.number}: {self.players[player]} doubled to '
                f'{offered} in the Crawford game, which the server allowed"]'
            )
        game.offered = player
        self._place(game, player, f" Doubles => {offered}")

    def take(self, player: int) -> None:
        game = self._answering(player)
        game.cube *= 2
        game.cube_owner = player
        game.offered = None
        self._place(game, player, " Takes")

    def drop(self, player: int) -> None:
        """``player`` refuses the double: the doubler wins the cube's value before the double."""
        game = self._answering(player)
        self._place(game, player, " Drops")
        game.offered = None
        self._finish(game, 1 - player, game.cube)

    def resign(self, player: int, points: int) -> None:
        """``player`` resigned and the opponent accepted, winning ``points``."""
        self._check_player(player)
        self.win(1 - player, points)

    def win(self, player: int, points: int) -> None:
        """``player`` won the game and ``points``: by bearing off, or by an accepted resignation.

        Repeating the result of a game that has already ended (a drop followed
        by the server's announcement, say) changes nothing.
        """
        self._check_player(player)
        if not self.games:
            raise MatRecordError("no game has started")
        game = self.games[-1]
        if game.winner is not None:
            if (game.winner, game.points) == (player, points):
                return
            raise MatRecordError(f"game {game.number} already ended: player {game.winner} won {game.points}")
        if points < 1:
            raise MatRecordError(f"a game is won by at least one point, got {points}")
        game.offered = None
        self._finish(game, player, points)

    def flush(self) -> None:
        """Write the file now, the game in progress included."""
        write_atomically(self.path, self.text())

    @property
    def is_over(self) -> bool:
        return bool(self.match_length) and max(self._score) >= self.match_length

    # ------------------------------------------------------------------ checks

    def _check_player(self, player: int) -> None:
        if player not in (0, 1):
            raise MatRecordError(f"player {player!r} must be 0 (left) or 1 (right)")

    def _playing(self, player: int) -> _Game:
        self._check_player(player)
        if not self.game_in_progress:
            raise MatRecordError("no game in progress: call start_game first")
        return self.games[-1]

    def _answering(self, player: int) -> _Game:
        game = self._playing(player)
        if game.offered != 1 - player:
            raise MatRecordError(f"player {player} answers a double that the opponent did not offer")
        return game

    def _apply_step(self, game: _Game, player: int, step: Step) -> str:
        """Move one checker on the recorder's board; the step as text, ``*`` on a hit."""
        try:
            start, end = (int(x) for x in step)
        except (TypeError, ValueError):
            raise MatRecordError(f"step {step!r} must be a pair (from, to)") from None
        if not (1 <= start <= BAR and OFF <= end <= 24 and end < start):
            raise MatRecordError(f"step {start}/{end}: from 1..25 (25 = bar) to 0..24 (0 = off), downwards")
        mine, theirs = game.board[player], game.board[1 - player]
        if mine[start - 1] == 0:
            where = "the bar" if start == BAR else f"point {start}"
            raise MatRecordError(f"step {start}/{end}: player {player} has no checker on {where}")
        mine[start - 1] -= 1
        hit = ""
        if end != OFF:
            opposite = 24 - end  # our point p is the opponent's point 25 - p
            if theirs[opposite] >= 2:
                raise MatRecordError(f"step {start}/{end}: point {end} is held by the opponent")
            if theirs[opposite] == 1:
                theirs[opposite] = 0
                theirs[BAR - 1] += 1
                hit = "*"
            mine[end - 1] += 1
        return f"{start}/{end}{hit}"

    # ------------------------------------------------------------------ layout

    def _place(self, game: _Game, player: int, text: str) -> None:
        if len(game.slots) % 2 != player:
            game.slots.append("")  # the other column has nothing here (e.g. the right player opens)
        game.slots.append(text)

    def _finish(self, game: _Game, winner: int, points: int) -> None:
        game.winner, game.points = winner, points
        score = list(self._score)
        score[winner] += points
        self._score = (score[0], score[1])
        game.match_won = self.is_over
        if self.autosave:
            self._autosave()

    def _autosave(self) -> None:
        """The finished game on disk; on a full disk the file stays as it was and is written,
        as it then stands, once there is room (``records.space``): the game is not lost."""
        try:
            self.flush()
        except Exception as exc:
            if not no_space(exc):
                raise
            DISK.failed(f"the match file {self.path.name}", exc, retry=self.flush)
            return
        DISK.wrote(f"the match file {self.path.name}")

    def text(self) -> str:
        """The whole file as it stands."""
        lines = []
        if self.site:
            lines.append(f'; [Site "{self.site}"]')
        if self.event:
            lines.append(f'; [Event "{self.event}"]')
        lines.append(f'; [Player 1 "{self.players[0]}"]')
        lines.append(f'; [Player 2 "{self.players[1]}"]')
        lines.append(f'; [EventDate "{self.started:%Y.%m.%d}"]')
        lines.append(f'; [EventTime "{self.started:%H.%M}"]')
        lines += self._crawford_header()
        lines += [f"; {note}" for note in self.notes]  # gnubg reads comments only before the match line
        lines += ["", f" {self.match_length} point match", ""]
        for game in self.games:
            lines += self._game_lines(game)
        return "\n".join(lines) + "\n"

    def _game_lines(self, game: _Game) -> list[str]:
        left_score = f"{self.players[0]} : {game.score[0]}"
        lines = [f" Game {game.number}", f" {left_score:<31}{self.players[1]} : {game.score[1]}"]
        slots = game.slots
        for index in range(0, len(slots), 2):
            left = slots[index]
            line = f"{index // 2 + 1:3d}) {left:<{LEFT_WIDTH}} "
            if len(left) >= LEFT_WIDTH:
                line += " "  # gnubg finds a right-hand "Doubles"/"Wins" by a double space
            if index + 1 < len(slots):
                line += slots[index + 1]
            lines.append(line.rstrip() if index + 1 < len(slots) else line)
        if game.winner is not None:
            result = f"Wins {points_text(game.points)}" + (" and the match" if game.match_won else "")
            if game.winner == 0:
                lines.append(" " * 6 + result)
            elif len(slots) % 2:  # the last line holds only a left entry: the right column is free
                lines[-1] += " " + result
            else:
                lines.append(" " * (RIGHT_COLUMN + 1) + result)
        lines.append("")
        return lines
