"""First-start benchmark: seconds from a fresh process to the bot's first move in
the README's main command (``fibsbot arena --matches 1``) on the local server.

The process gets an empty numba cache (``NUMBA_CACHE_DIR`` set to a new folder), so
every kernel the first move needs is compiled inside the figure, as right after an
install.  The bearoff database is built once per machine (its cache file); with
``cold_bearoff`` the process gets an empty cache folder for it too.  The clock runs
from just before the process starts until the bot's ``Agent.choose_move`` returns
for the first time, when the process stops.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fibsbot.bench.speed import register_benchmark

_CHILD = """
import os, sys, time
import engine.agent as agent_module
plain = agent_module.Agent.choose_move
def first(self, *args, **kwargs):
    choice = plain(self, *args, **kwargs)
    print("FIRST_MOVE", flush=True)
    os._exit(0)
agent_module.Agent.choose_move = first
from fibsbot.cli import main
sys.exit(main(["arena", "--matches", "1", "--data-dir", sys.argv[1]]))
"""


def first_move_seconds(cold_bearoff: bool = False, timeout: float = 600) -> dict:
    """Seconds to the first move of a fresh ``fibsbot arena --matches 1``, and the
    peak resident memory of that process (MB)."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "NUMBA_CACHE_DIR": str(Path(tmp) / "numba")}
        if cold_bearoff:
            env["FIBSBOT_CACHE_DIR"] = str(Path(tmp) / "cache")
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", _CHILD, str(Path(tmp) / "data")], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        seconds = None
        for line in proc.stdout:
            if line.startswith("FIRST_MOVE"):
                seconds = time.perf_counter() - start
                break
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        usage = _children_usage()
    return {"seconds": seconds, **usage, "cold_bearoff": cold_bearoff,
            "note": "fresh process, empty numba cache, to the bot's first move of fibsbot arena --matches 1"}


def _children_usage() -> dict:
    """CPU seconds and peak resident memory (MB) of the finished child: on a shared
    machine its CPU seconds say what a quiet core would take."""
    try:
        import resource
    except ImportError:
        return {}
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"cpu_s": usage.ru_utime + usage.ru_stime, "peak_rss_mb": usage.ru_maxrss / 1024.0}


def bench_first_move() -> dict:
    warm = first_move_seconds()
    return {"first_move_s": warm["seconds"], "first_move": warm}


register_benchmark("first_move", bench_first_move)
