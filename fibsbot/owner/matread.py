"""Reading ``.mat`` match files back: ours (``records.matfile``), gnubg's exports, FIBS's and JellyFish's.

A move line holds up to two entries, the left player's (player 0) and the right
player's (player 1).  Like gnubg's reader, an entry is found by what starts it (a
roll ``NN:`` or a cube word) rather than by its column, except that a line whose
left entry is blank (the right player opens a game) is recognised by its indent.
Moves are kept as written; ``fibsbot.owner.replay`` turns them into positions.

The Crawford game is the file's first game at ``length - 1`` unless its header
names another (``; [CrawfordGame "N"]`` or ``"none"``: the file does not hold it);
a ``; [Server rule breach "Game N: ..."]`` comment marks a game in which the
server accepted a double that the Crawford rule forbids (``records.crawford``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from fibsbot.records.crawford import CRAWFORD_GAME_HEADER, RULE_BREACH_HEADER, crawford_by_scores
from fibsbot.records.matfile import RIGHT_COLUMN

_LENGTH = re.compile(r"^\s*(\d+)\s+point\s+match\s*$", re.IGNORECASE)
_GAME = re.compile(r"^\s*Game\s+(\d+)\s*$", re.IGNORECASE)
_SCORES = re.compile(r"^\s*(\S+)\s*:\s*(\d+)\s+(\S+)\s*:\s*(\d+)\s*$")
_NUMBERED = re.compile(r"^\s*(\d+)\)(.*)$")
_ROLL = re.compile(r"^([1-6])([1-6]):$")
_WINS = re.compile(r"^Wins\s+(\d+)\s+points?(?:\s+and\s+the\s+match)?$", re.IGNORECASE)
_DOUBLES = re.compile(r"^Doubles\s*=>\s*(\d+)$", re.IGNORECASE)
_CUBE_WORDS = {"doubles", "takes", "drops", "wins", "accepts", "rejects", "passes"}
_TAKE_WORDS = {"takes", "accepts"}
_DROP_WORDS = {"drops", "rejects", "passes"}
# a blank left entry is padded to the right column; a left entry starts right after "NN) "
_RIGHT_ONLY_INDENT = 12
_HEADER = re.compile(r'^;\s*\[(\w[\w ]*?)\s+"(.*)"\]\s*$')
_BREACH_GAME = re.compile(r"^Game\s+(\d+)\b", re.IGNORECASE)


class MatFileError(ValueError):
    """A file that is not a readable match record; the message names the line."""


@dataclass(frozen=True)
class MatAction:
    """One entry: ``kind`` is move, double, take, drop or win; ``text`` the move as written."""

    kind: str
    player: int
    dice: tuple[int, int] | None = None
    text: str = ""
    value: int = 0  # the cube offered (double) or the points won (win)
    line: int = 0
    number: int = 0  # the numbered line, as gnubg shows it


@dataclass
class MatGame:
    number: int
    score: tuple[int, int]
    actions: list[MatAction] = field(default_factory=list)
    crawford: bool = False
    server_allowed_doubles: bool = False  # the Crawford game, in which the server took doubles all the same

    @property
    def winner(self) -> int | None:
        wins = [a for a in self.actions if a.kind == "win"]
        return wins[-1].player if wins else None

    @property
    def points(self) -> int:
        wins = [a for a in self.actions if a.kind == "win"]
        return wins[-1].value if wins else 0


@dataclass
class MatMatch:
    length: int  # 0: money session
    players: tuple[str, str]
    games: list[MatGame]
    headers: dict[str, str] = field(default_factory=dict)
    path: Path | None = None

    @property
    def final_score(self) -> tuple[int, int]:
        score = [0, 0]
        if self.games:
            score = list(self.games[-1].score)
            if self.games[-1].winner is not None:
                score[self.games[-1].winner] += self.games[-1].points
        return score[0], score[1]


def read_mat(path: Path | str) -> MatMatch:
    """Parse a match file; MatFileError with the line number if it cannot be read."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise MatFileError(f"{path}: {exc.strerror or exc}") from exc
    match = parse_mat(text, source=str(path))
    match.path = path
    return match


def parse_mat(text: str, source: str = "match") -> MatMatch:
    length: int | None = None
    headers: dict[str, str] = {}
    breaches: list[str] = []
    games: list[MatGame] = []
    players: tuple[str, str] | None = None
    expect_scores = False
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        where = f"{source}:{lineno}"
        if not line.strip():
            continue
        if line.lstrip().startswith(";"):
            header = _HEADER.match(line.strip())
            if header:
                headers[header.group(1)] = header.group(2)
                if header.group(1) == RULE_BREACH_HEADER:
                    breaches.append(header.group(2))
            continue
        if length is None and (found := _LENGTH.match(line)):
            length = int(found.group(1))
            continue
        if found := _GAME.match(line):
            if length is None:
                raise MatFileError(f"{where}: a game before the ' N point match' line")
            games.append(MatGame(int(found.group(1)), (0, 0)))
            expect_scores = True
            continue
        if expect_scores:
            scores = _SCORES.match(line)
            if not scores:
                raise MatFileError(f"{where}: expected 'NAME : SCORE   NAME : SCORE', got {line.strip()!r}")
            players = players or (scores.group(1), scores.group(3))
            games[-1].score = (int(scores.group(2)), int(scores.group(4)))
            expect_scores = False
            continue
        if length is None:
            raise MatFileError(f"{where}: not a .mat file: no ' N point match' line before {line.strip()[:40]!r}")
        if not games:
            raise MatFileError(f"{where}: unexpected text before the first game: {line.strip()!r}")
        games[-1].actions.extend(_line_actions(line, lineno, where))
    if length is None:
        raise MatFileError(f"{source}: no ' N point match' line: not a .mat file")
    if players is None and {"Player 1", "Player 2"} <= headers.keys():
        players = (headers["Player 1"], headers["Player 2"])  # a record whose every game was left out
    if players is None:
        raise MatFileError(f"{source}: no games")
    _mark_crawford(length, games, headers.get(CRAWFORD_GAME_HEADER), breaches, source)
    return MatMatch(length, players, games, headers)


def _mark_crawford(length: int, games: list[MatGame], named: str | None, breaches: list[str], source: str) -> None:
    if named is None:
        first = crawford_by_scores(length, [game.score for game in games])
        crawford = games[first] if first is not None else None
    elif named.strip().lower() == "none":
        crawford = None
    else:
        crawford = next((game for game in games if named.strip().isdigit() and game.number == int(named)), None)
        if crawford is None or length - 1 not in crawford.score or max(crawford.score) >= length:
            raise MatFileError(
                f'{source}: header {CRAWFORD_GAME_HEADER} "{named}" names no game of this file '
                f"that begins with a player at {length - 1}"
            )
    if crawford is None:
        return
    crawford.crawford = True
    crawford.server_allowed_doubles = any(
        (found := _BREACH_GAME.match(text)) is not None and int(found.group(1)) == crawford.number for text in breaches
    )


def _line_actions(line: str, lineno: int, where: str) -> list[MatAction]:
    numbered = _NUMBERED.match(line)
    if numbered:
        number, body = int(numbered.group(1)), numbered.group(2)
        indent = len(body) - len(body.lstrip())
        entries = _split_entries(body.split())
        first_player = 1 if indent >= _RIGHT_ONLY_INDENT else 0
    else:  # a line of its own: "Wins" in the winner's column
        number, body = 0, line
        entries = _split_entries(line.split())
        first_player = 1 if len(line) - len(line.lstrip()) >= RIGHT_COLUMN - _RIGHT_ONLY_INDENT else 0
    if len(entries) + first_player > 2:
        raise MatFileError(f"{where}: more than two entries on one line: {line.strip()!r}")
    return [_entry(words, first_player + k, lineno, number, where) for k, words in enumerate(entries)]


def _starts_entry(word: str) -> bool:
    return bool(_ROLL.match(word)) or word.lower() in _CUBE_WORDS


def _split_entries(words: list[str]) -> list[list[str]]:
    entries: list[list[str]] = []
    for word in words:
        if _starts_entry(word) or not entries:
            entries.append([word])
        else:
            entries[-1].append(word)
    return entries


def _entry(words: list[str], player: int, lineno: int, number: int, where: str) -> MatAction:
    head, text = words[0], " ".join(words)
    roll = _ROLL.match(head)
    if roll:
        return MatAction(
            "move", player, (int(roll.group(1)), int(roll.group(2))), " ".join(words[1:]), line=lineno, number=number
        )
    lowered = head.lower()
    if lowered == "doubles":
        double = _DOUBLES.match(text)
        if not double:
            raise MatFileError(f"{where}: expected 'Doubles => N', got {text!r}")
        return MatAction("double", player, value=int(double.group(1)), line=lineno, number=number)
    if lowered in _TAKE_WORDS or lowered in _DROP_WORDS:
        if len(words) != 1:
            raise MatFileError(f"{where}: unexpected text after {head!r}: {text!r}")
        return MatAction("take" if lowered in _TAKE_WORDS else "drop", player, line=lineno, number=number)
    wins = _WINS.match(text)
    if wins:
        return MatAction("win", player, value=int(wins.group(1)), line=lineno, number=number)
    raise MatFileError(f"{where}: cannot read {text!r}")
