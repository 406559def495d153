"""A quick first start: the search is compiled in a child process while the bot plays.

numba compiles the whole n-ply search (``engine.search.nply.rank_candidates`` and all it
calls) the first time a searching agent decides anything: half a minute of CPU and
a few hundred MB on a fresh install, before the first move.  So at start, when the
search has not yet been compiled for this code, the daemon and the arena start
``python -m fibsbot.warmup`` (nice'd), which compiles it into numba's on-disk cache
and writes a marker; meanwhile the agent plays at 0-ply on ``engine.eval.static`` (a few
seconds to compile).  Once the child has finished, the agent's next decision loads
the search from the cache and plays at its configured depth.

The marker (``search-ready-DIGEST16.json``) lies beside the compiled code's folders,
in ``engine.jit_cache.cache_base()``, and is keyed by the same digest of the code as
those folders, so changed code (an upgrade) warms up again, once, in the background.
A start that finds it goes straight to the full search; once the search is ready by
a marker, the folders and markers of older code are removed (``jit_cache.prune``).
A warm-up that fails or takes too long is logged, and the bot compiles the search
itself, as it did before: never stuck.
A start while an earlier start's child still compiles (the daemon was killed and
restarted) starts no second child: it waits for that one's marker.  Without this a
daemon restarted every few seconds left hundreds of waiting children behind.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import resource
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import structlog

from engine import jit_cache

WARMUP_TIMEOUT_S = 600.0
NICE = 10


def marker_dir() -> Path:
    return jit_cache.cache_base()


def marker_path() -> Path:
    return marker_dir() / f"{jit_cache.MARKER_PREFIX}{jit_cache.digest()[:16]}.json"


def search_compiled() -> bool:
    """Whether a warm-up has compiled the search of this code into numba's cache."""
    return marker_path().is_file()


def _usage() -> dict:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {"cpu_s": round(usage.ru_utime + usage.ru_stime, 2), "peak_rss_mb": round(usage.ru_maxrss / 1024, 1)}


class SearchWarmup:
    """Whether an agent may use its search kernels yet (``Agent.search_ready``).

    ``start()`` looks for the marker and, without it, starts the child; calling the
    object answers whether the search is ready: the marker was there, or the child
    has finished (then ``search_ready`` is logged with the child's figures), failed
    or overran ``timeout_s`` (``search_warmup_failed``: the agent then compiles the
    search in-process)."""

    def __init__(
        self, agent_spec: str, timeout_s: float = WARMUP_TIMEOUT_S, command: list[str] | None = None, logger=None
    ) -> None:
        self.agent_spec = agent_spec
        self.timeout_s = timeout_s
        self.command = command
        self.log = logger or structlog.get_logger("fibsbot.warmup")
        self.marker = marker_path()
        self.proc: subprocess.Popen | None = None
        self.started = 0.0
        self.ready = False
        self.outcome = ""  # "cached", "warmed", "failed" once ready
        self.watching = False  # another process's warm-up compiles: only its marker is awaited
        # told (outcome, seconds) when a warm-up that kept the agent at 0-ply ends: the console's line
        self.on_ready: Callable[[str, float], None] | None = None
        self.pruning: threading.Thread | None = None  # removes older code's compiled folders, once ready
        self._lock = threading.Lock()

    def start(self) -> SearchWarmup:
        if self.marker.is_file():
            self._finish("cached")
            return self
        self.marker.parent.mkdir(parents=True, exist_ok=True)
        self.started = time.monotonic()
        if _compiling_elsewhere(self.marker):
            # a warm-up of an earlier start (killed, restarted) still compiles: wait for its
            # marker instead of starting another child; under a kill loop they would pile up
            self.watching = True
            self.log.info(
                "search_warming",
                pid=None,
                agent=self.agent_spec,
                marker=str(self.marker),
                waits_for="the warm-up already running",
            )
            return self
        command = self.command or [
            sys.executable,
            "-m",
            "fibsbot.warmup",
            "--agent",
            self.agent_spec,
            "--marker",
            str(self.marker),
        ]
        try:
            with open(self.log_path, "wb") as err:
                self.proc = subprocess.Popen(
                    command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, close_fds=True
                )
        except OSError as exc:
            self.log.warning("search_warmup_failed", reason=f"could not start: {exc}", fallback="compile in-process")
            self._finish("failed")
            return self
        self.log.info(
            "search_warming",
            pid=self.proc.pid,
            agent=self.agent_spec,
            marker=str(self.marker),
            until="the warm-up has compiled the search, moves are chosen at 0-ply",
        )
        return self

    @property
    def log_path(self) -> Path:
        return self.marker.with_suffix(".log")

    def __call__(self) -> bool:
        with self._lock:
            if self.watching and not self.ready:
                return self._watch()
            if self.ready or self.proc is None:
                return self.ready
            code = self.proc.poll()
            if code is None:
                if time.monotonic() - self.started <= self.timeout_s:
                    return False
                self.proc.kill()  # our own child, by its handle
                self.proc.wait()
                self._failed(f"no result after {self.timeout_s:.0f} s")
            elif code == 0 and self.marker.is_file():
                figures = _read(self.marker)
                self.log.info(
                    "search_ready",
                    pid=self.proc.pid,
                    seconds=round(time.monotonic() - self.started, 1),
                    child=figures,
                    next="the search is loaded from numba's cache",
                )
                self._finish("warmed")
            else:
                self._failed(f"exit code {code}")
            return self.ready

    def _watch(self) -> bool:
        if self.marker.is_file():
            seconds = round(time.monotonic() - self.started, 1)
            self.log.info("search_ready", pid=None, seconds=seconds, child=_read(self.marker), next="cache")
            self._finish("warmed")
        elif time.monotonic() - self.started > self.timeout_s:
            self._failed(f"the warm-up already running gave no result in {self.timeout_s:.0f} s")
        elif not _compiling_elsewhere(self.marker) and not self.marker.is_file():  # it stopped, no marker
            self._failed("the warm-up already running stopped without a result")
        return self.ready

    def _prune(self) -> None:
        try:
            removed = jit_cache.prune(self.marker.parent)
        except OSError as exc:
            self.log.warning("compiled_code_not_pruned", folder=str(self.marker.parent), reason=str(exc))
            return
        if removed:
            self.log.info(
                "compiled_code_pruned", folder=str(self.marker.parent), removed=[path.name for path in removed]
            )

    def _failed(self, reason: str) -> None:
        tail = ""
        try:
            tail = self.log_path.read_text(errors="replace")[-800:]
        except OSError:
            pass
        self.log.warning("search_warmup_failed", reason=reason, stderr_tail=tail, fallback="compile in-process")
        self._finish("failed")

    def _finish(self, outcome: str) -> None:
        self.ready = True
        self.outcome = outcome
        if outcome != "failed":  # the search of this code is compiled: older code's may go
            self.pruning = threading.Thread(target=self._prune, name="compiled-code-pruning", daemon=True)
            self.pruning.start()
        if self.on_ready is not None and outcome != "cached":
            try:
                self.on_ready(outcome, round(time.monotonic() - self.started, 1))
            except Exception:  # noqa: BLE001 - a line that cannot be shown must not stop the bot
                self.log.warning("search_ready_not_told", exc_info=True)


def _read(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def _compiling_elsewhere(marker: Path) -> bool:
    """Whether a warm-up child holds the lock of ``marker`` (it is compiling now)."""
    try:
        with open(marker.with_suffix(".lock"), "a") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(lock, fcntl.LOCK_UN)
            return False
    except OSError:
        return False


def start_warmup(agent, logger=None, enabled: bool = True) -> SearchWarmup | None:
    """Hand a searching ``agent`` a warm-up to wait for (nothing for a 0-ply agent,
    or when ``enabled`` is false)."""
    if not enabled or agent.ply == 0:
        return None
    spec = agent.name if agent.name.startswith("net:") else f"net:default@{agent.ply}"
    warmup = SearchWarmup(spec, logger=logger).start()
    agent.search_ready = warmup
    return warmup


# --- the child ---------------------------------------------------------------------


def warm(agent_spec: str) -> None:
    """Compile every kernel a playing bot calls once its search is ready: the move
    choice (the lookahead, the 0-ply choice beside it and the cubeful look at the
    score), the cubeful cube decisions behind cube and resignation answers, and the
    0-ply paths of a 0-ply agent (the arena's sparring bot decides its cube with one)."""
    import numpy as np

    from engine.rules.ids import MatchState
    from engine.rules.position import Position
    from nets.player import load_agent

    board = np.ascontiguousarray(Position.initial().board)
    # the cubeful lookahead compiles apart for money and for a match (gammon values)
    states = (None, MatchState(jacoby=False), MatchState(match_length=7, score=(2, 3)))
    for ply in (2, 0):
        agent = load_agent(agent_spec, ply=ply)
        agent.search_ready = True
        for state in states:
            agent.choose_move(board, 4, 2, state)
            agent.double_decision(board, state or MatchState())
        agent.probabilities(board)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fibsbot.warmup", description=__doc__.splitlines()[0])
    parser.add_argument("--agent", default="net:default@2", help="the player spec whose search to compile")
    parser.add_argument("--marker", type=Path, default=None, help="the marker to write when done")
    args = parser.parse_args(argv)
    try:
        os.nice(NICE)
    except OSError:
        pass
    marker = args.marker or marker_path()
    marker.parent.mkdir(parents=True, exist_ok=True)
    # one warm-up at a time: a daemon restarted while its warm-up still runs (a crash, a
    # kill) starts another child, which waits here instead of compiling the same kernels
    with open(marker.with_suffix(".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if marker.is_file():
            return 0
        return _warm_and_mark(args.agent, marker)


def _warm_and_mark(agent_spec: str, marker: Path) -> int:
    start = time.perf_counter()
    warm(agent_spec)
    figures = {
        "digest": jit_cache.digest(),
        "agent": agent_spec,
        "pid": os.getpid(),
        "seconds": round(time.perf_counter() - start, 2),
        **_usage(),
        "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    tmp = marker.with_name(f"{marker.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(figures))
    tmp.replace(marker)
    return 0


if __name__ == "__main__":
    sys.exit(main())
