"""``fibsbot arena --soak FILE``: a long fault run that watches the daemon's resources.

The soak is the chaos run (``fibsbot.arena.chaos``) made long: the daemon plays match
after match on the local server while its connection is dropped, its opponent logs out
as it wins and players glue tells to its lines.  It is never killed: a restart would
hand it fresh memory and descriptors and hide the leak the soak is there to find.
After every match one sample goes to FILE (JSON lines): the daemon's resident memory
and open descriptors (``/proc``), the decisions it logged since the last sample and the
slowest and median of their times, and the bytes under the data directory and its log
folder.  ``summarise`` reads the samples back and says whether memory and descriptors
stayed flat (the last sample within ``MEMORY_SHARE`` of the one at ``BASELINE_MATCH``,
descriptors within ``FDS_SHARE``), whether a match took as long at the end as at the start
(the median of the last ``TIME_WINDOW`` matches within ``TIME_SHARE`` of the first's) and the
disk within the log's cap.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from fibsbot.owner.disk import tree_bytes

BASELINE_MATCH = 500  # memory and descriptors are compared with this match's sample, once the caches are warm
MEMORY_SHARE = 0.01  # the last sample's resident memory may differ from the baseline's by this share
FDS_SHARE = 0.05  # and its open descriptors by this one (a dozen: one more is a leak)
WINDOW = 50  # samples whose medians are compared as well
TIME_WINDOW = 500  # the first and last matches whose median times are compared
TIME_SHARE = 0.10  # the last matches' median time may differ from the first's by this share
DAEMON_LOG = "fibsbot.jsonl"


def _status_kib(pid: int, field_name: str) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field_name + ":"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def _cpu_seconds(pid: int) -> float | None:
    """The process's user and system CPU time (``/proc/PID/stat``): the work a match costs,
    which other work on the machine does not stretch as it stretches the wall clock."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _open_fds(pid: int) -> int | None:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None


@dataclass
class _LogTail:
    """Reads the decisions the daemon logged since the last call, from its current log
    file; a file shorter than what was read has been rotated and is read from the start."""

    path: Path
    offset: int = 0
    partial: bytes = b""

    def decision_seconds(self) -> list[float]:
        try:
            size = self.path.stat().st_size
        except OSError:
            return []
        if size < self.offset:
            self.offset, self.partial = 0, b""
        with open(self.path, "rb") as handle:
            handle.seek(self.offset)
            chunk = handle.read()
        self.offset += len(chunk)
        lines = (self.partial + chunk).split(b"\n")
        self.partial = lines.pop()
        seconds = []
        for line in lines:
            if b'"event": "decision"' not in line:
                continue
            try:
                seconds.append(float(json.loads(line)["seconds"]))
            except (ValueError, KeyError, TypeError):
                continue
        return seconds


@dataclass
class Sampler:
    """Appends one sample a match to ``out``; ``log_cap_mb``: the log folder's cap, for the record."""

    out: Path
    data_dir: Path
    log_cap_mb: float | None = None
    started: float = field(default_factory=time.monotonic)
    tail: _LogTail | None = None

    def __call__(self, match: int, pid: int | None) -> dict:
        if self.tail is None:
            self.tail = _LogTail(self.data_dir / "log" / DAEMON_LOG)
        seconds = self.tail.decision_seconds()
        sample = {
            "match": match,
            "elapsed_s": round(time.monotonic() - self.started, 1),
            "pid": pid,
            "rss_kib": _status_kib(pid, "VmRSS") if pid else None,
            "cpu_s": _cpu_seconds(pid) if pid else None,
            "fds": _open_fds(pid) if pid else None,
            "decisions": len(seconds),
            "decision_median_s": round(statistics.median(seconds), 4) if seconds else None,
            "decision_max_s": round(max(seconds), 4) if seconds else None,
            "data_bytes": tree_bytes(self.data_dir),
            "log_bytes": tree_bytes(self.data_dir / "log"),
            "log_cap_mb": self.log_cap_mb,
        }
        with open(self.out, "a") as handle:
            handle.write(json.dumps(sample) + "\n")
        return sample


def _match_times(samples: list[dict], within: Callable[[float, float, float], bool]) -> dict:
    """The median time of the first and the last ``TIME_WINDOW`` matches (one sample's elapsed
    time less the one before), and whether they agree within ``TIME_SHARE``; the same of the
    daemon's CPU time, which a busy machine does not stretch."""
    figures: dict = {}
    for key, name in (("elapsed_s", "match_s"), ("cpu_s", "match_cpu_s")):
        pairs = [(a, b) for a, b in zip(samples, samples[1:]) if a.get(key) is not None and b.get(key) is not None]
        times = [b[key] - a[key] for a, b in pairs if a["pid"] == b["pid"]]
        if len(times) < 2:
            figures.update({f"{name}_medians": None, f"{name}_flat": None})
            continue
        window = min(TIME_WINDOW, len(times) // 2)
        first, last = statistics.median(times[:window]), statistics.median(times[-window:])
        figures[f"{name}_medians"] = {"first": round(first, 3), "last": round(last, 3), "window": window}
        figures[f"{name}_flat"] = within(last, first, TIME_SHARE)
    # the wall clock's figure under its older name, as earlier summaries have it
    figures["match_s_medians"] = figures.pop("match_s_medians")
    figures["match_time_flat"] = figures.pop("match_s_flat")
    return figures


def summarise(samples_path: Path) -> dict:
    """The soak's figures from its samples: memory and descriptors at the baseline match
    and at the end, whether they stayed flat, the largest log folder against its cap.

    Flat: the last sample within ``MEMORY_SHARE`` (``FDS_SHARE``) of the one at ``BASELINE_MATCH``, and so the
    median of the last ``WINDOW`` samples against the median of the ``WINDOW`` from the
    baseline on (a dozen descriptors move by one while a connection is being replaced or a
    log segment written, which a single sample may catch)."""
    samples = [json.loads(line) for line in Path(samples_path).read_text().splitlines() if line.strip()]
    if not samples:
        raise ValueError(f"{samples_path}: no samples")
    measured = [s for s in samples if s["rss_kib"] is not None and s["fds"] is not None]
    start = next((i for i, s in enumerate(measured) if s["match"] >= BASELINE_MATCH), 0)
    base, last = measured[start], measured[-1]
    early, late = measured[start : start + WINDOW], measured[-WINDOW:]
    pids = {s["pid"] for s in measured}
    decision_medians = [s["decision_median_s"] for s in samples if s["decision_median_s"] is not None]
    cap = samples[-1]["log_cap_mb"]
    largest_log = max(s["log_bytes"] for s in samples)

    def within(now: float, then: float, share: float) -> bool:
        return abs(now - then) <= share * then

    def median(rows: list[dict], key: str) -> float:
        return float(statistics.median(row[key] for row in rows))

    return {
        "matches": samples[-1]["match"],
        "hours": round(samples[-1]["elapsed_s"] / 3600, 2),
        "daemon_processes": len(pids),
        "baseline_match": base["match"],
        "rss_mib": {"baseline": round(base["rss_kib"] / 1024, 1), "last": round(last["rss_kib"] / 1024, 1)},
        "rss_peak_mib": round(max(s["rss_kib"] for s in measured) / 1024, 1),
        "fds": {"baseline": base["fds"], "last": last["fds"], "max": max(s["fds"] for s in measured)},
        "memory_flat": within(last["rss_kib"], base["rss_kib"], MEMORY_SHARE),
        "fds_flat": within(last["fds"], base["fds"], FDS_SHARE),
        "window": WINDOW,
        "rss_mib_medians": {
            "early": round(median(early, "rss_kib") / 1024, 1),
            "late": round(median(late, "rss_kib") / 1024, 1),
        },
        "fds_medians": {"early": median(early, "fds"), "late": median(late, "fds")},
        "memory_flat_medians": within(median(late, "rss_kib"), median(early, "rss_kib"), MEMORY_SHARE),
        "fds_flat_medians": within(median(late, "fds"), median(early, "fds"), FDS_SHARE),
        **_match_times(samples, within),
        "decisions": sum(s["decisions"] for s in samples),
        "decision_median_s": round(statistics.median(decision_medians), 4) if decision_medians else None,
        "decision_max_s": max((s["decision_max_s"] or 0.0) for s in samples),
        "log_mib_max": round(largest_log / 2**20, 2),
        "log_cap_mb": cap,
        "log_within_cap": cap is None or largest_log <= cap * 2**20,
        "data_mib_last": round(samples[-1]["data_bytes"] / 2**20, 2),
    }
