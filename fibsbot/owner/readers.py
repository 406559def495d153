"""Read-only views of a data directory's parts: the daemon's state, ratings, queue, nets, retrains.

Files the daemon keeps for its owner live in ``DIR/owner/`` (``fibsbot.owner.live``
writes them): ``daemon.json`` (the running daemon) and ``ratings.jsonl`` (the
server's rating and experience lines for our user).  ``fibsbot retrain`` appends
its reports to ``DIR/training/retrains.jsonl`` beside ``last_report.json``.
Nothing here writes, and nothing waits long on a lock.

These files, and every line of the two logs, carry ``format`` (``OWNER_FORMAT``);
one without it is in the first format, a rating line of which may not name its account
(``fibsbot.owner.accounts``).  A newer format is refused (``nets.formats``), here as
wherever the data directory is read.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import sqlite3
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

import nets
from nets.formats import check_format
from nets.store import store_format

OWNER_DIR = "owner"
DAEMON_FILE = "daemon.json"
RATINGS_FILE = "ratings.jsonl"
RETRAINS_FILE = "retrains.jsonl"
OWNER_FORMAT = 1  # daemon.json, each line of ratings.jsonl and training/retrains.jsonl: "format"
# the layout of nets.store (STORE/current -> versions/STAMP, each with net.json), whose format
# nets.store.store_format checks
STORE_CARD = "net.json"


class DataDirError(RuntimeError):
    """A part of the data directory that cannot be read (the message is one line)."""


def owner_dir(data_dir: Path) -> Path:
    return Path(data_dir) / OWNER_DIR


def owner_format(row: dict, path: Path) -> dict:
    """``row`` (an owner file's object, or a line of one) without its ``format``, once that is one
    this code reads; NewerFormatError where a newer release wrote it."""
    check_format(row.get("format"), OWNER_FORMAT, str(path))
    return {key: value for key, value in row.items() if key != "format"}


def read_jsonl(path: Path) -> list[dict]:
    """The readable JSON objects of a file, one a line (a line cut short by a crash is skipped),
    each in a format this code reads (``owner_format``)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise DataDirError(f"{path}: {exc.strerror or exc}") from exc
    rows = []
    for line in text.splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict):
            rows.append(owner_format(row, path))
    return rows


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process, e.g. the service's own user
        return True
    except OSError:
        return False
    cmdline = Path(f"/proc/{pid}/cmdline")
    try:
        return b"fibsbot" in cmdline.read_bytes()
    except OSError:
        return True  # no /proc to tell a reused pid apart: trust the signal


def daemon_state(data_dir: Path) -> dict | None:
    """The daemon's last state with ``running`` (its process is alive) and ``uptime_s``; None if it never ran."""
    path = owner_dir(data_dir) / DAEMON_FILE
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise DataDirError(f"{path}: unreadable ({exc})") from exc
    if not isinstance(state, dict):
        raise DataDirError(f"{path}: unreadable (not a JSON object)")
    state = owner_format(state, path)
    running = state.get("stopped") is None and isinstance(state.get("pid"), int) and _process_alive(state["pid"])
    state["running"] = running
    if running and state.get("started"):
        started = dt.datetime.fromisoformat(state["started"])
        state["uptime_s"] = round((dt.datetime.now(dt.UTC) - started).total_seconds())
    return state


def ratings(data_dir: Path) -> list[dict]:
    """Rating lines in the order seen: ``time``, ``rating``, ``experience``."""
    return [r for r in read_jsonl(owner_dir(data_dir) / RATINGS_FILE) if "rating" in r and "time" in r]


@dataclass(frozen=True)
class QueueCounts:
    labelled: int
    waiting: int

    @property
    def total(self) -> int:
        return self.labelled + self.waiting


def query_queue(path: Path, sql: str, timeout: float = 0.5) -> list[tuple]:
    """Rows of a read-only query on the training queue; a lock held longer than ``timeout`` is an error."""
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=timeout)
        try:
            return db.execute(sql).fetchall()
        finally:
            db.close()
    except sqlite3.Error as exc:
        raise DataDirError(f"{path}: not a readable training queue ({exc})") from exc


def queue_format(path: Path) -> None:
    """The queue's schema is one this code reads; NewerFormatError where a newer release made it."""
    from fibsbot.records.queue import check_queue_format

    ((version,),) = query_queue(path, "PRAGMA user_version")
    check_queue_format(int(version), path)


def queue_counts(data_dir: Path) -> QueueCounts | None:
    """Rows of the training queue, opened read-only; None where there is no queue yet."""
    path = Path(data_dir) / "queue.sqlite"
    if not path.exists():
        return None
    queue_format(path)
    rows = dict(query_queue(path, "SELECT labelled, COUNT(*) FROM disagreements GROUP BY labelled"))
    return QueueCounts(labelled=int(rows.get(1, 0)), waiting=int(rows.get(0, 0)))


def queue_growth(data_dir: Path) -> list[tuple[str, int]]:
    """(day, rows added that day) from the queue's timestamps, oldest first."""
    path = Path(data_dir) / "queue.sqlite"
    if not path.exists():
        return []
    queue_format(path)
    rows = query_queue(
        path, "SELECT substr(created_at, 1, 10) AS day, COUNT(*) FROM disagreements GROUP BY day ORDER BY day"
    )
    return [(str(day), int(n)) for day, n in rows]


def _version_time(version: str) -> str | None:
    try:
        return dt.datetime.strptime(version[:15], "%Y%m%d-%H%M%S").isoformat()
    except ValueError:
        return None


def _card(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def strength_figures(card: dict) -> dict:
    """A card's measured strength in one shape: ``ppg`` (with ``stderr``) against pubeval, ``benchmark_error``,
    and for a net a retrain promoted its real-life benchmark error and head-to-head result."""
    strength = card.get("strength") or {}
    ppg = strength.get("ppg_vs_pubeval", strength.get("ppg"))
    # the gate's choices compared since they replaced the labelled benchmark, else that benchmark
    real_life = strength.get("real_life_choices") or strength.get("real_life_benchmark") or {}
    duel = strength.get("head_to_head_vs_incumbent") or {}
    return {
        k: v
        for k, v in (
            ("ppg", ppg),
            ("stderr", strength.get("stderr")),
            ("benchmark_error", strength.get("benchmark_error")),
            ("games", strength.get("games")),
            # a net promoted by a retrain: its error on the real-life benchmark of its day
            ("real_life_error", real_life.get("candidate_error")),
            ("real_life_gain", real_life.get("difference")),
            ("real_life_stderr", real_life.get("stderr")),
            ("real_life_version", real_life.get("version")),
            ("real_life_positions", real_life.get("positions")),
            ("real_life_differing", real_life.get("differing")),
            ("ppg_vs_incumbent", duel.get("ppg")),
            ("ppg_vs_incumbent_stderr", duel.get("stderr")),
        )
        if v is not None
    }


def _store_versions(store: Path) -> list[str]:
    folder = store / "versions"
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def promotions(data_dir: Path) -> list[dict]:
    """Every promoted version with its time and measured strength, oldest first."""
    store = Path(data_dir) / "nets"
    store_format(store)
    out = []
    for version in _store_versions(store):
        card = _card(store / "versions" / version / STORE_CARD)
        out.append({"version": version, "promoted": _version_time(version), **strength_figures(card)})
    return out


def net_in_use(data_dir: Path) -> dict:
    """The net the daemon plays with: the data dir's promoted one, else the shipped default."""
    store_format(Path(data_dir) / "nets")
    current = Path(data_dir) / "nets" / "current"
    try:
        version = os.readlink(current).rsplit("/", 1)[-1]
    except OSError:
        version = None
    if version is not None and (current / STORE_CARD).exists():
        return {
            "source": "promoted",
            "version": version,
            "promoted": _version_time(version),
            **strength_figures(_card(current / STORE_CARD)),
        }
    card = _card(Path(nets.__file__).resolve().parent / "default.json")
    return {"source": "shipped", "version": card.get("name", "default"), "promoted": None, **strength_figures(card)}


def retrains(data_dir: Path) -> list[dict]:
    """Retrain reports, oldest first: the history if kept, else the last report alone."""
    training = Path(data_dir) / "training"
    history = read_jsonl(training / RETRAINS_FILE)
    if history:
        return history
    last = training / "last_report.json"
    try:
        report = json.loads(last.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as exc:
        raise DataDirError(f"{last}: unreadable ({exc})") from exc
    report.setdefault("finished", dt.datetime.fromtimestamp(last.stat().st_mtime, dt.UTC).isoformat())
    return [report]


def check_formats(data_dir: Path) -> None:
    """Every part of ``data_dir`` is in a format this code reads: NewerFormatError (one line)
    for the first that a newer release wrote.  What starts writing into a data directory (the
    daemon, a retrain) asks first, so that nothing a newer release wrote is read as older or
    written over.  A part that cannot be read at all is told where it is read, as before."""
    from fibsbot.records.journal import check_journals

    data_dir = Path(data_dir)
    queue = data_dir / "queue.sqlite"
    with suppress(DataDirError):
        if queue.exists():
            queue_format(queue)
    with suppress(DataDirError):
        daemon_state(data_dir)
    with suppress(DataDirError):
        read_jsonl(owner_dir(data_dir) / RATINGS_FILE)
    with suppress(DataDirError):
        read_jsonl(data_dir / "training" / RETRAINS_FILE)
    with suppress(OSError):
        store_format(data_dir / "nets")
    check_journals(data_dir / "matches")
