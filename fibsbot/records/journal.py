"""The match journal: every action of a match, synced to disk as it happens.

One journal per match (``matches/NAME.journal.json``) holds the match's header and
its actions in order; the ``.mat`` file beside it (``matches/NAME.mat``) is
rendered from them.  Both are rewritten atomically (``records.atomic``) after every
action, the journal first, so a kill at any moment leaves a journal with every
action recorded so far and at worst a ``.mat`` one action behind, which the next
load renders again.  A resumed match loads its journal and goes on writing the
same ``.mat``, earlier games included.

Actions are JSON lists, player 0 being us (the left column of the ``.mat``):

* ``["game", score0, score1, crawford]``: a game begins at the server's score;
* ``["opening", player, high, low]``: the opening roll, won by ``player``;
* ``["roll", player, d1, d2]``: a roll whose move has not come yet;
* ``["rolling", 0]``: we asked the server to roll (journaled before the command: while
  it is the last action, a roll of ours the bot never saw may have been made);
* ``["move", player, d1, d2, [[from, to], ...]]``: a roll and its move (``[]``: a dance);
* ``["roll_guessed", player, d1, d2, [[d1, d2], ...]]``: the roll of the move before was never
  seen, and every roll listed gives the same position (a dance, or one board two rolls reach):
  the move holds the first that fits, ``d1 d2``, and the ``.mat`` says so in a comment;
* ``["double", player]``, ``["take", player]``, ``["drop", player]``;
* ``["win", player, points]``, ``["resign", player, points]`` (``player`` resigned);
* ``["leave_out", reason]``: the game in progress cannot be followed and is left
  out of the ``.mat`` (the reason is logged, kept here and named in the file's header);
* ``["unseen", score0, score1, reason]``: a game at that score was played that the
  ``.mat`` cannot hold (its beginning was never seen); kept so that an audit can
  tell a game the bot knew it missed from one it lost;
* ``["end", score0, score1]``: the match is over at the server's final score, which
  stands even where games left out keep the recorded ones from adding up to it.

The ``.mat`` numbers its games 1, 2, ... in order (gnubg reads nothing else), so a
game left out gives its number to the next one; the queue rows of a game left out
lose their place first (``TrainingQueue.unplace``), so that a row naming a game and
line never comes to name another game.

``replay`` rebuilds the recorder and the pending rolls from any list of actions,
which is how a resumed match is checked against the server (``records.resync``).
"""

from __future__ import annotations

import datetime as dt
import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import structlog

from fibsbot.records.atomic import write_atomically
from fibsbot.records.matfile import MatchRecorder, MatRecordError
from fibsbot.records.space import DISK, no_space
from nets.formats import check_format

log = structlog.get_logger("fibsbot.records")

SUFFIX = ".journal.json"
VERSION = 1  # the header's "version": a newer one is refused (nets.formats); every journal so far says 1
PLAYING, FINISHED, REPLACED = "playing", "finished", "replaced"
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")

Action = list[Any]


@dataclass
class Replayed:
    """A journal's actions played onto a recorder that writes nothing by itself."""

    recorder: MatchRecorder
    dice: dict[int, tuple[int, int]] = field(default_factory=dict)  # rolls waiting for their move
    awaited: int | None = None  # the player the server waits for in the game in progress
    rolling: bool = False  # the last action is our request to roll: its dice are not known yet


def _new_recorder(header: dict, mat_path: Path) -> MatchRecorder:
    return MatchRecorder(
        mat_path,
        (header["user"], header["opponent"]),
        header.get("length") or 0,
        site=header.get("site"),
        event=header.get("event"),
        started=dt.datetime.fromisoformat(header["started"]),
        autosave=False,
    )


def apply_action(state: Replayed, action: Action) -> None:
    """Play one action onto ``state``; MatRecordError if it does not fit (``state`` is then unusable)."""
    kind, *args = action
    rec = state.recorder
    state.rolling = kind == "rolling"
    if kind == "rolling":
        if not rec.game_in_progress:
            raise MatRecordError("no game in progress to roll in")
        state.awaited = 0
    elif kind == "game":
        score0, score1, crawford = args
        rec.start_game((score0, score1), crawford)
        state.dice.clear()
        state.awaited = None
    elif kind == "opening":
        player, high, low = args
        state.dice = {player: (high, low)}
        state.awaited = player
    elif kind == "roll":
        player, d1, d2 = args
        state.dice[player] = (d1, d2)
        state.awaited = player
    elif kind == "move":
        player, d1, d2, steps = args
        rec.roll_and_move(player, (d1, d2), [tuple(step) for step in steps])
        state.dice.clear()  # after a move no earlier roll can still be waiting
        state.awaited = 1 - player
    elif kind in ("double", "take", "drop"):
        (player,) = args
        getattr(rec, kind)(player)
        state.awaited = 1 - player
    elif kind in ("win", "resign"):
        player, points = args
        getattr(rec, kind)(player, points)
        state.awaited = None
    elif kind == "roll_guessed":
        player, d1, d2, fitting = args
        _note_guessed_roll(rec, player, (d1, d2), fitting)
    elif kind == "leave_out":
        rec.leave_out_game(*args)
        state.dice.clear()
        state.awaited = None
    elif kind == "unseen":
        score0, score1, reason = args
        rec.skip_unseen_game((score0, score1), reason)
    elif kind == "end":
        score0, score1 = args
        rec.end_match((score0, score1))
        state.awaited = None
    else:
        raise MatRecordError(f"unknown journal action {kind!r}")


def _note_guessed_roll(rec: MatchRecorder, player: int, dice: tuple[int, int], fitting: list) -> None:
    game = rec.current_game
    if game is None or not game.slots:
        raise MatRecordError("a guessed roll follows its move")
    last = game.slots[-1]
    if not last.startswith(f"{dice[0]}{dice[1]}:") or (len(game.slots) - 1) % 2 != player:
        raise MatRecordError(f"the last entry {last!r} is not player {player}'s move with {dice[0]}{dice[1]}")
    what = "a dance" if last.endswith(":") else "the same board"
    rolls = " ".join(f"{max(roll)}{min(roll)}" for roll in fitting)
    rec.note(
        f"Game {game.number} move {rec.last_move_number}: {rec.players[player]}'s roll was never seen; "
        f"every roll of {rolls} gives {what}, and {dice[0]}{dice[1]} is recorded"
    )


def check_journal_format(header: Any, path: Path) -> None:
    """A journal's header is in a format this code reads; NewerFormatError where a newer release wrote it."""
    if isinstance(header, dict):
        check_format(header.get("version"), VERSION, f"{path} (a match journal)")


def replay(header: dict, mat_path: Path, actions: list[Action]) -> Replayed:
    state = Replayed(_new_recorder(header, mat_path))
    for action in actions:
        apply_action(state, action)
    return state


class MatchJournal:
    """One match's journal and ``.mat``; ``record`` adds an action and syncs both."""

    def __init__(self, path: Path, header: dict, actions: list[Action], status: str = PLAYING) -> None:
        self.path = Path(path)
        self.header = header
        self.actions = [list(action) for action in actions]
        self.status = status
        self.state = replay(header, self.mat_path, self.actions)

    # --- finding and making journals ---------------------------------------------------------

    @classmethod
    def create(
        cls,
        matches_dir: Path,
        user: str,
        opponent: str,
        length: int | None,
        *,
        site: str | None = None,
        event: str | None = None,
    ) -> MatchJournal:
        now = dt.datetime.now()
        # microseconds keep two matches started in the same second apart
        stem = f"{now:%Y%m%d-%H%M%S-%f}-{_UNSAFE.sub('_', user)}-vs-{_UNSAFE.sub('_', opponent)}"
        header = {
            "version": VERSION,
            "user": user,
            "opponent": opponent,
            "length": length,
            "started": now.isoformat(timespec="seconds"),
            "site": site,
            "event": event,
            "mat": f"{stem}.mat",
        }
        journal = cls(Path(matches_dir) / f"{stem}{SUFFIX}", header, [])
        journal.save()
        return journal

    @classmethod
    def load(cls, path: Path) -> MatchJournal:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        check_journal_format(data["header"], Path(path))
        journal = cls(path, data["header"], data["actions"], data["status"])
        journal.save()  # a kill between the two writes may have left the .mat one action behind
        return journal

    @staticmethod
    def unfinished(matches_dir: Path, user: str, opponent: str | None = None) -> list[Path]:
        """Journals of matches with ``opponent`` (None: anyone) that neither ended nor were replaced, oldest first.

        Asked at every match start, over a folder that holds every match ever played: a
        year of finished matches costs a listing and a ``stat`` each, not a parse, and no
        memory per match (``_FolderScan``)."""
        found = []
        for path, (_status, owner, their) in _journals_in_play(Path(matches_dir)):
            if owner == user and opponent in (None, their):
                found.append(path)
        return found

    # --- the record ------------------------------------------------------------------------

    @property
    def mat_path(self) -> Path:
        return self.path.with_name(self.header["mat"])

    @property
    def recorder(self) -> MatchRecorder:
        return self.state.recorder

    @property
    def game_in_progress(self) -> bool:
        return self.recorder.game_in_progress

    def record(self, *action: Any) -> None:
        """Add one action and sync; an action that does not fit raises and changes nothing."""
        try:
            apply_action(self.state, list(action))
        except Exception:
            self.state = replay(self.header, self.mat_path, self.actions)
            raise
        self.actions.append(list(action))
        self.save()

    def rewrite(self, actions: list[Action]) -> None:
        """Replace the actions (after checking them against the server) and sync."""
        state = replay(self.header, self.mat_path, actions)
        self.actions, self.state = [list(action) for action in actions], state
        self.save()

    def set_length(self, length: int) -> None:
        """The match length, once the server has told it (before any game is recorded)."""
        if self.header.get("length") == length or self.recorder.games:
            return
        self.header["length"] = length
        self.rewrite(self.actions)

    def finish(self, status: str = FINISHED) -> None:
        self.status = status
        self.save()

    def save(self) -> None:
        """Sync the journal, then the ``.mat``.  On a full disk both stay as they were on disk
        (each write is atomic), the match goes on in memory, and ``records.space.DISK`` writes
        it whole, as it then stands, once there is room: no action is lost."""
        try:
            self._write()
        except Exception as exc:
            if not no_space(exc):
                raise
            DISK.failed(self._what, exc, retry=self._write)
            return
        DISK.wrote(self._what)

    @property
    def _what(self) -> str:
        return f"the match record {self.mat_path.name}"

    def _write(self) -> None:
        data = {"header": self.header, "status": self.status, "actions": self.actions}
        write_atomically(self.path, json.dumps(data, separators=(",", ":")) + "\n")
        write_atomically(self.mat_path, self.recorder.text())


def check_journals(matches_dir: Path) -> None:
    """Every journal in ``matches_dir`` is in a format this code reads (NewerFormatError); each
    is read once a process while it is unchanged, as ``MatchJournal.unfinished`` reads them."""
    _journals_in_play(Path(matches_dir))


Owner = tuple[str | None, str | None, str | None]  # a journal's status, user and opponent

# a file changed this long before a scan began was surely seen changed by it, whatever the
# file system's timestamp granularity
SETTLED_SLACK_NS = 2_000_000_000


@dataclass
class _FolderScan:
    """What the last listing of one matches folder found, in memory that does not grow with
    the folder: the journals still in play, by path, with the (size, mtime) they were read at.

    A finished or replaced journal never changes again.  One whose status change time
    (``st_ctime``, which no program can set back) is older than the start of the previous
    scan was read by that scan; if it is not among the journals in play then, it was over
    (or unreadable, or not a match journal) and is skipped unread.  Anything created,
    replaced or rewritten since is read again."""

    in_play: dict[str, tuple[tuple[int, int], Owner]] = field(default_factory=dict)
    previous_start_ns: int | None = None

    def playing(self, paths: list[Path]) -> list[tuple[Path, Owner]]:
        started_ns = time.time_ns()
        settled_before = None if self.previous_start_ns is None else self.previous_start_ns - SETTLED_SLACK_NS
        in_play: dict[str, tuple[tuple[int, int], Owner]] = {}
        found = []
        for path in paths:
            try:
                stat = path.stat()
            except OSError:
                continue  # removed while we listed
            key, stamp = str(path), (stat.st_size, stat.st_mtime_ns)
            held = self.in_play.get(key)
            if held is not None and held[0] == stamp:
                seen: Owner | None = held[1]
            elif held is None and settled_before is not None and stat.st_ctime_ns < settled_before:
                continue  # over at the previous scan, unchanged since
            else:
                seen = _read_owner(path)
            if seen is not None and seen[0] == PLAYING:
                in_play[key] = (stamp, seen)
                found.append((path, seen))
        self.in_play, self.previous_start_ns = in_play, started_ns
        return found


# one scan by matches folder: a daemon has one, a test a few
_SCANS: dict[str, _FolderScan] = {}


def _journals_in_play(folder: Path) -> list[tuple[Path, Owner]]:
    """The journals of ``folder`` in play, by its scan (every one read at a process's first)."""
    scan = _SCANS.setdefault(str(folder.resolve()), _FolderScan())
    return scan.playing(sorted(folder.glob(f"*{SUFFIX}")))


def _read_owner(path: Path) -> Owner | None:
    """A journal's status, user and opponent; None for one that cannot be read (logged)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        header = data["header"]
        check_journal_format(header, path)  # not skipped: a newer journal may be a match of ours in play
        seen = (data.get("status"), header.get("user"), header.get("opponent"))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        log.warning("journal_unreadable", journal=path.name)
        return None
    return seen
