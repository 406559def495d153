"""The fault test's result (``fibsbot.arena.chaos``): what it counts, the audit of the
records it left, and the lines that print it.

The audit (``fibsbot.arena.audit``) compares the daemon's match files, as GNU Backgammon
reads them, with the server's own record of every move, reads each with ``fibsbot
analyse``'s reader, sets each finished match's result in the records beside the server's
final score, and checks that every queue row stands where it says; the daemon's wire log
tells how many echoes of its tells came with the next line glued on.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

from fibsbot.arena.audit import (
    GNUBG,
    Audit,
    audit_match,
    audit_queue,
    audit_result,
    gnubg_matches,
    guessed_moves,
    left_out_reasons,
    read_as_analyse_does,
    unrecoverable_games,
)
from fibsbot.arena.play import BOT
from fibsbot.protocol.glue import glued_after_echo
from fibsbot.records.journal import FINISHED, SUFFIX, MatchJournal
from nets import logfiles


@dataclass
class ChaosResult:
    """What a fault run did and what the audit of its records found."""

    matches: int
    length: int
    seconds: float = 0.0
    finished: int = 0
    resumable: int = 0
    stuck: int = 0
    drops: int = 0
    kills: int = 0
    restarts: int = 0
    logouts_at_win: int = 0
    daemon_exits: int = 0  # the daemon ended by itself and was started again (as systemd would)
    chats: int = 0  # hellos and invitations the daemon answers with a tell
    echoes_glued: int = 0  # echoes of the daemon's tells it received with the next line glued on
    observer_failures: int = 0
    records: int = 0
    audit: Audit = field(default_factory=Audit)

    def as_dict(self) -> dict:
        data = asdict(self)
        data["audit"]["moves_lost"] = self.audit.moves_lost
        return data


def audit_chaos(result: ChaosResult, played: list, data_dir: Path) -> None:
    """Every match played against its record, the queue against the match files, the log's counts."""
    matches_dir = data_dir / "matches"
    journals = sorted(matches_dir.glob(f"*{SUFFIX}"))
    result.records = len(journals)
    loaded = [MatchJournal.load(path) for path in journals]
    mats = [journal.mat_path for journal in loaded]
    audit = result.audit
    if len(mats) != len(played):
        audit.problems.append(f"{len(played)} matches played, {len(mats)} match records")
    read = gnubg_matches(mats) if GNUBG.exists() else {}
    if not GNUBG.exists():
        audit.problems.append(f"{GNUBG} not installed: the match files were not checked")
    by_analyse = {mat.name: read_as_analyse_does(mat, audit) for mat in mats}
    for index, match in enumerate(played):
        mat = mats[index] if index < len(mats) else None
        gnubg_match = read.get(str(mat)) if mat is not None else None
        journal = loaded[index] if index < len(loaded) else None
        actions = journal.actions if journal is not None else []
        label = mat.name if mat else f"match {index + 1}"
        audit_match(
            match, match.seat_of(BOT), gnubg_match, audit, label, unrecoverable_games(actions), guessed_moves(actions)
        )
        claimed = journal is not None and journal.status == FINISHED
        audit_result(match, match.seat_of(BOT), actions, audit, label, claimed)
        left_out_reasons(actions, audit.left_out_reasons)
    audit_queue(data_dir / "queue.sqlite", matches_dir, audit, by_analyse)
    text = log_text(data_dir)
    result.observer_failures = text.count("observer failed")
    result.echoes_glued = _echoes_glued(text)


def log_text(data_dir: Path) -> str:
    """The daemon's whole log, its rotated segments first (``nets.logfiles``)."""
    return "".join(line + "\n" for line in logfiles.lines(logfiles.log_files(data_dir / "log", "fibsbot")))


def _echoes_glued(log_text: str) -> int:
    """The echoes of the daemon's tells it received with a server line glued on, by its wire log."""
    count = 0
    for line in log_text.splitlines():
        if '"event": "recv"' not in line or '"line": "16 ' not in line:
            continue
        try:
            received = json.loads(line)["line"]
        except (ValueError, KeyError):
            continue
        count += glued_after_echo(received) is not None
    return count


def print_chaos(result: ChaosResult, out=sys.stdout) -> None:
    a = result.audit
    print(
        f"{result.matches} x {result.length}-point matches under faults in {result.seconds} s: "
        f"{result.finished} finished, {result.resumable} resumable, {result.stuck} stuck",
        file=out,
    )
    print(
        f"faults: {result.drops} dropped connections, {result.kills} SIGKILLs ({result.restarts} daemon "
        f"restarts, {result.daemon_exits} after the daemon ended by itself), {result.logouts_at_win} opponent "
        f"logouts at the moment of winning; {result.chats} chats, {result.echoes_glued} echoes of the daemon's "
        f"tells with the next line glued on",
        file=out,
    )
    print(
        f"moves: {a.moves_played} played, {a.moves_recorded} recorded, {a.moves_wrong} wrong, {a.moves_lost} lost; "
        f"{a.games_left_out} of {a.games_played} games left out with a log line ({a.moves_left_out} moves), "
        f"of which {a.games_unrecoverable} could not be reconstructed ({a.moves_unrecoverable} moves); "
        f"{a.rolls_guessed} rolls never seen recorded as one that fits",
        file=out,
    )
    for reason, games in sorted(a.left_out_reasons.items(), key=lambda item: -item[1]):
        print(f"  left out: {games} x {reason}", file=out)
    print(
        f"match files: {result.records}, {a.mats_unreadable} that fibsbot analyse cannot read; results: "
        f"{a.results_checked} finished matches checked, {a.result_mismatches} unlike the server's score, "
        f"{a.results_unknown} whose end the bot never learnt (no result claimed)",
        file=out,
    )
    print(
        f"queue: {a.queue_rows} rows, {a.queue_rows_dangling} without a record, {a.queue_rows_unplaced} "
        f"in games left out, {a.queue_rows_misplaced} misplaced; "
        f"observer failures: {result.observer_failures}",
        file=out,
    )
    for problem in a.problems[:20]:
        print(f"  {problem}", file=out)
