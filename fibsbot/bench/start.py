"""First-start benchmark: seconds from a fresh process to the bot's first move in
the README's main command (``fibsbot arena --matches 1``) on the local server.

The process gets an empty numba cache (``NUMBA_CACHE_DIR`` set to a new folder), so
every kernel the first move needs is compiled inside the figure, as right after an
install, and no warm-up marker (``fibsbot.warmup``) exists: the arena starts its
warm-up child, which compiles the search beside it.  The bearoff database is built
once per machine (its cache file); with ``cold_bearoff`` the process gets an empty
cache folder for it too.  The clock runs from just before the process starts until
the bot's ``Agent.choose_move`` returns for the first time.

Reported separately, none of it hidden: the arena process (wall, CPU seconds and peak
resident memory at its first move, the depth that move was chosen at; then at its
first move at full depth, with numba's cache hits and misses of the search kernel:
a hit means it was loaded, not compiled; when the match ends before the warm-up, that
move is made after it, in the same process, once the warm-up is done), the warm-up child (its own CPU seconds and
peak memory, from its marker), and a second start with the marker present (the
"later start": full depth from the first move, the search loaded from the cache).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fibsbot.bench.speed import register_benchmark

_CHILD = """
import json, os, resource, sys, time
import engine.players.agent as agent_module
from engine.search.nply import rank_candidates
plain = agent_module.Agent.choose_move
mode, seen, ours = sys.argv[2], set(), []
def report(kind, **extra):
    u = resource.getrusage(resource.RUSAGE_SELF)
    stats = rank_candidates.stats
    print("BENCH " + json.dumps({"kind": kind, "cpu_s": round(u.ru_utime + u.ru_stime, 2),
          "peak_rss_mb": round(u.ru_maxrss / 1024, 1), "search_cache_hits": sum(stats.cache_hits.values()),
          "search_cache_misses": sum(stats.cache_misses.values()), **extra}), flush=True)
def watched(self, *args, **kwargs):
    ours.append(self)
    depth = self.depth
    start = time.perf_counter()
    choice = plain(self, *args, **kwargs)
    extra = dict(ply=choice.ply, depth=depth, move_s=round(time.perf_counter() - start, 3))
    if "first" not in seen:
        seen.add("first")
        report("first", **extra)
        if mode == "first":
            os._exit(0)
    if depth == self.ply and "full" not in seen:
        seen.add("full")
        report("full", **extra)
        os._exit(0)
    return choice
agent_module.Agent.choose_move = watched
from fibsbot.cli import main
code = main(["arena", "--matches", "1", "--data-dir", sys.argv[1], "--json"])
report("end")
if ours and "full" not in seen:  # the match ended first: the switch, in this process, once the child is done
    from engine.rules.position import Position
    deadline = time.monotonic() + 600
    while not ours[0].searching() and time.monotonic() < deadline:
        time.sleep(0.2)
    ours[0].choose_move(Position.initial().board, 4, 2)
sys.exit(code)
"""


def _run_arena(env: dict, data_dir: Path, mode: str, timeout: float) -> dict:
    """One fresh ``fibsbot arena --matches 1`` process: its BENCH lines by kind, each
    with the seconds since the process was started."""
    out: dict = {}
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(data_dir), mode],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None  # stdout=PIPE
    for line in proc.stdout:
        if line.startswith("BENCH "):
            figures = json.loads(line[6:])
            kind = figures.pop("kind")
            out[kind] = {"seconds": round(time.perf_counter() - start, 2), **figures}
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    out["exit_code"] = proc.returncode
    return out


def _wait_for_marker(folder: Path, timeout: float) -> dict:
    """The warm-up child's own figures, from the marker it writes when done."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        markers = list(folder.glob("search-ready-*.json"))
        if markers:
            return {"ok": True, **json.loads(markers[0].read_text())}
        time.sleep(0.2)
    logs = list(folder.glob("search-ready-*.log"))
    return {"ok": False, "stderr_tail": logs[0].read_text(errors="replace")[-500:] if logs else ""}


def first_move_seconds(cold_bearoff: bool = False, timeout: float = 600) -> dict:
    """A cold start of ``fibsbot arena --matches 1`` to its first move (and on to its
    first move at full depth), the warm-up child beside it, then a later start."""
    with tempfile.TemporaryDirectory() as tmp:
        numba_dir = Path(tmp) / "numba"
        env = {**os.environ, "NUMBA_CACHE_DIR": str(numba_dir)}
        if cold_bearoff:
            env["FIBSBOT_CACHE_DIR"] = str(Path(tmp) / "cache")
        cold = _run_arena(env, Path(tmp) / "data", "full", timeout)
        child = _wait_for_marker(numba_dir, timeout)
        later = _run_arena(env, Path(tmp) / "data2", "first", timeout) if child["ok"] else {}
    first = cold.get("first", {})
    return {
        "seconds": first.get("seconds"),
        "cpu_s": first.get("cpu_s"),
        "peak_rss_mb": first.get("peak_rss_mb"),
        "ply": first.get("ply"),
        "depth": first.get("depth"),
        "cold_bearoff": cold_bearoff,
        "arena_full_depth": cold.get("full"),
        "arena_end": cold.get("end"),
        "arena_peak_rss_mb": max((cold.get(k, {}).get("peak_rss_mb") or 0) for k in ("first", "full", "end")),
        "warmup_child": {
            k: child.get(k) for k in ("ok", "seconds", "cpu_s", "peak_rss_mb", "stderr_tail") if k in child
        },
        "later_start": later.get("first"),
        "note": "fresh process, empty numba cache, to the bot's first move of fibsbot arena --matches 1; "
        "the warm-up child compiles the search beside it; later_start: a second start with its marker",
    }


def bench_first_move() -> dict:
    cold = first_move_seconds()
    return {"first_move_s": cold["seconds"], "first_move": cold}


register_benchmark("first_move", bench_first_move)
