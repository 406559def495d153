"""After a fault run: do the bot's records hold exactly the moves the server saw played?

Each match the server ran (``ServerMatch.history``: every game's starting score and
every roll with its move) is set beside the bot's match file as GNU Backgammon
reads it (``import mat``).  Games are paired by their starting score (a score
never repeats within a match); a move counts as recorded when gnubg has the same
player, the same dice and a move reaching the same position (a roll the journal says
was never seen, where every roll that fits gives that position, may differ: it is
counted apart).  Also checked: every match file is read by ``fibsbot analyse``'s own
reader, the records' result of a finished match is the server's final score, every
queue row names a match file that exists and, where it names a game and line, a
decision of ours in that position there, and no observer failure was logged.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import tempfile
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine.rules.ids import position_id
from engine.rules.position import Position
from fibsbot.owner.index import summarise_actions
from fibsbot.owner.matread import read_mat
from fibsbot.owner.replay import replay_turns
from fibsbot.protocol.match.state import apply_steps
from fibsbot.records.resync import UNRECOVERABLE

GNUBG = Path("/usr/games/gnubg")

# one gnubg process reads every file: starting it costs a good part of a second
_READ_SCRIPT = """
import gnubg, json, os
out = {}
for path in json.loads(os.environ["FIBSBOT_MATS"]):
    gnubg.command("import mat " + path)
    out[path] = gnubg.match(0, 0, 0, 0)
with open(os.environ["FIBSBOT_JSON_OUT"], "w") as stream:
    json.dump(out, stream)
"""


@dataclass
class Audit:
    moves_played: int = 0
    moves_recorded: int = 0  # played and found in the match file
    moves_wrong: int = 0  # in a match file but not as played
    games_played: int = 0
    games_left_out: int = 0  # missing from the match file (each logged by the bot)
    moves_left_out: int = 0  # the moves of those games
    games_unrecoverable: int = 0  # of those, the games the bot could not reconstruct (journaled why)
    moves_unrecoverable: int = 0  # the moves of those games: missing, but not lost by the records
    rolls_guessed: int = 0  # recorded moves whose roll was never seen (the position is right, the dice may not be)
    left_out_reasons: dict[str, int] = field(default_factory=dict)  # why the journals left games out
    mats_unreadable: int = 0  # match files that ``fibsbot analyse``'s reader rejects
    results_checked: int = 0  # finished matches whose records' result was set beside the server's
    result_mismatches: int = 0
    results_unknown: int = 0  # matches whose end the bot never learnt, in a game it had left out: no result claimed
    queue_rows: int = 0
    queue_rows_dangling: int = 0  # naming no existing match file
    queue_rows_unplaced: int = 0  # without game and move number: decisions in games left out
    queue_rows_misplaced: int = 0  # naming a game and line that do not hold the row's position
    problems: list[str] = field(default_factory=list)

    @property
    def moves_lost(self) -> int:
        """Moves played and missing from the records, other than those of games that could not be rebuilt."""
        return self.moves_played - self.moves_recorded - self.moves_unrecoverable


def unrecoverable_games(actions: list) -> set[tuple[int, int]]:
    """Starting scores of the games a journal says it could not reconstruct (and why it could not)."""
    found, score = set(), None
    for action in actions:
        if action[0] == "game":
            score = (action[1], action[2])
        elif action[0] == "leave_out" and action[1] in UNRECOVERABLE and score is not None:
            found.add(score)
        elif action[0] == "unseen" and action[3] in UNRECOVERABLE:
            found.add((action[1], action[2]))
    return found


def guessed_moves(actions: list) -> set[tuple[tuple[int, int], int]]:
    """(starting score, index among the game's moves) of the moves whose roll a journal guessed."""
    found, score, moves = set(), None, 0
    for action in actions:
        if action[0] == "game":
            score, moves = (action[1], action[2]), 0
        elif action[0] == "move":
            moves += 1
        elif action[0] == "roll_guessed" and score is not None:
            found.add((score, moves - 1))
    return found


def left_out_reasons(actions: list, reasons: dict[str, int]) -> None:
    """Count why a journal left games out (``reasons``: reason -> games)."""
    for action in actions:
        reason = action[1] if action[0] == "leave_out" else action[3] if action[0] == "unseen" else None
        if reason is not None:
            reasons[reason] = reasons.get(reason, 0) + 1


def audit_result(server_match, our_seat: int, actions: list, audit: Audit, label: str, claimed: bool) -> None:
    """The records' result of a finished match against the server's final score; ``claimed``: the
    journal says the match is finished (else the bot never learnt its end and claims no result)."""
    if not server_match.is_over:
        return
    want = (server_match.scores[our_seat], server_match.scores[1 - our_seat])
    got, _ = summarise_actions(actions)
    audit.results_checked += 1
    if not claimed:
        audit.results_unknown += 1
        audit.problems.append(
            f"{label}: ended {want[0]}-{want[1]} on the server; the records, at {got[0]}-{got[1]} "
            f"in a game left out, claim no result"
        )
    elif got != want:
        audit.result_mismatches += 1
        audit.problems.append(
            f"{label}: the server's final score is {want[0]}-{want[1]}, the records say {got[0]}-{got[1]}"
        )


def read_as_analyse_does(path: Path, audit: Audit) -> dict[tuple[int, int], set[str]] | None:
    """Read a match file as ``fibsbot analyse`` does; the Position IDs of player 0's decisions by
    (game, line), or None (counted, with the reader's message) when it cannot be read."""
    try:
        places: dict[tuple[int, int], set[str]] = {}
        for turn in replay_turns(read_mat(path)):
            if turn.player == 0:
                ids = places.setdefault((turn.game, turn.number), set())
                ids.update({position_id(turn.board), position_id(np.ascontiguousarray(turn.board[::-1]))})
        return places
    except ValueError as exc:  # MatFileError: the file, line and what is wrong
        audit.mats_unreadable += 1
        audit.problems.append(f"fibsbot analyse cannot read {path.name}: {exc}")
        return None


GNUBG_BATCH = 200  # match files one gnubg process reads, so a soak's thousands stay within its time limit


def gnubg_matches(paths: list[Path]) -> dict[str, dict]:
    """gnubg's reading of each match file (``gnubg.match()`` after ``import mat``)."""
    read: dict[str, dict] = {}
    for start in range(0, len(paths), GNUBG_BATCH):
        read.update(_gnubg_batch(paths[start : start + GNUBG_BATCH]))
    return read


def _gnubg_batch(paths: list[Path]) -> dict[str, dict]:
    if not paths:
        return {}
    with tempfile.TemporaryDirectory() as work:
        script, out = Path(work) / "read.py", Path(work) / "matches.json"
        script.write_text(_READ_SCRIPT)
        env = dict(os.environ, FIBSBOT_MATS=json.dumps([str(p) for p in paths]), FIBSBOT_JSON_OUT=str(out))
        result = subprocess.run(
            [str(GNUBG), "-t", "-q", "-r", "-p", str(script)],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=600,
            env=env,
        )
        if not out.exists():
            raise RuntimeError(f"gnubg read nothing: {result.stderr[-2000:]}")
        return json.loads(out.read_text())


def _positions(moves: list[tuple[int, tuple[int, int], tuple]]) -> list[tuple[int, tuple[int, ...], bytes]]:
    """(player, sorted dice, position after) for each move, players' rows in their own numbering."""
    rows = [Position.initial().board[0].copy(), Position.initial().board[0].copy()]
    out = []
    for player, dice, steps in moves:
        after = apply_steps(np.stack([rows[player], rows[1 - player]]), tuple(tuple(s) for s in steps))
        if after is None:
            out.append((player, tuple(sorted(dice)), b"impossible"))
            continue
        rows[player], rows[1 - player] = after[0], after[1]
        out.append((player, tuple(sorted(dice)), np.stack(rows).tobytes()))
    return out


def _gnubg_games(match: dict) -> dict[tuple[int, int], list]:
    """Moves by starting score; gnubg's X is the file's left player (us, player 0)."""
    seat = {"X": 0, "O": 1}
    games = {}
    for game in match.get("games", []):
        info = game["info"]
        score = (info.get("score-X", 0), info.get("score-O", 0))
        games[score] = [
            (seat[r["player"]], tuple(r["dice"]), tuple(tuple(s) for s in r.get("move") or ()))
            for r in game["game"]
            if r["action"] == "move"
        ]
    return games


def audit_match(
    server_match,
    our_seat: int,
    gnubg_match: dict | None,
    audit: Audit,
    label: str,
    unrecoverable: AbstractSet[tuple[int, int]] = frozenset(),
    guessed: AbstractSet[tuple[tuple[int, int], int]] = frozenset(),
) -> None:
    recorded = _gnubg_games(gnubg_match) if gnubg_match is not None else {}
    for game in server_match.history:
        played = [
            (0 if action[1] == our_seat else 1, tuple(action[2]), action[3])
            for action in game["actions"]
            if action[0] == "move"
        ]
        score = game["score"][our_seat], game["score"][1 - our_seat]
        audit.games_played += 1
        audit.moves_played += len(played)
        ours = recorded.get(score)
        if ours is None:
            audit.games_left_out += 1
            audit.moves_left_out += len(played)
            if score in unrecoverable:
                audit.games_unrecoverable += 1
                audit.moves_unrecoverable += len(played)
            continue
        want, got = _positions(played), _positions(ours)
        # a guessed roll stands for the one played when it gives the same position
        agrees = [
            a == b or ((score, i) in guessed and (a[0], a[2]) == (b[0], b[2]))
            for i, (a, b) in enumerate(zip(want, got))
        ]
        audit.rolls_guessed += sum(1 for i in range(len(agrees)) if (score, i) in guessed and agrees[i])
        same = sum(agrees)
        if same == len(got) == len(want):
            audit.moves_recorded += same
            continue
        # a prefix that agrees is recorded; anything else in the file is wrong
        prefix = next((i for i, ok in enumerate(agrees) if not ok), min(len(want), len(got)))
        audit.moves_recorded += prefix
        audit.moves_wrong += len(got) - prefix
        audit.problems.append(
            f"{label} game at {score}: {len(want)} moves played, {len(got)} in the file, "
            f"first difference at move {prefix + 1}"
        )


def audit_queue(queue_path: Path, matches_dir: Path, audit: Audit, read: dict[str, dict | None] | None = None) -> None:
    """Queue rows against the match files; ``read``: files already read (``read_as_analyse_does``) by name."""
    if not queue_path.exists():
        return
    with sqlite3.connect(queue_path) as db:
        rows = db.execute("SELECT match_ref, game_number, move_number, position_id FROM disagreements").fetchall()
    read = {} if read is None else read
    audit.queue_rows = len(rows)
    for ref, game, move, pid in rows:
        if not ref or not (matches_dir / ref).exists():
            audit.queue_rows_dangling += 1
        elif game is None or move is None:
            audit.queue_rows_unplaced += 1
        else:
            if ref not in read:
                read[ref] = read_as_analyse_does(matches_dir / ref, audit)
            places = read[ref]
            if places is not None and pid not in places.get((game, move), ()):
                audit.queue_rows_misplaced += 1
                audit.problems.append(f"queue row at {ref} game {game} move {move}: position {pid} is not there")
