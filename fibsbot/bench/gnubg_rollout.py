"""GNU Backgammon's own cubeful rollouts of positions, for checks and benchmarks.

gnubg runs in-process through its embedded Python (``gnubg -p``) with one thread and
rolls out each position as its ``rollout`` command does (rollout.c's
``GeneralEvaluationR``): the side on roll does not double before its first roll, and
from then on both sides take their cube decisions and play at the plies asked for.
It prints a rollout's figures only to a terminal, so it runs on a pseudo-terminal
here and its last "CL ... CF ..." line and the standard errors below it are read.
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from fibsbot.bench.search import GNUBG

# each item (Position ID, Match ID, seed): a seed of None keeps the one the setup set
_SCRIPT = """
import gnubg, sys, time
for c in %(setup)r:
    gnubg.command(c)
for i, (pid, mid, seed) in enumerate(%(items)r):
    if seed is not None:
        gnubg.command("set rollout seed %%d" %% seed)
    gnubg.command("set matchid " + mid)
    gnubg.command("set board " + pid)
    sys.stdout.write("\\nROLLOUT-START %%d\\n" %% i)
    sys.stdout.flush()
    start = time.process_time()
    gnubg.command("rollout")
    sys.stdout.write("\\nROLLOUT-END %%d %%r\\n" %% (i, time.process_time() - start))
    sys.stdout.flush()
"""

_FIGURES = re.compile(r"CL\s+([-+]?\d+\.\d+)\s+CF\s+([-+]?\d+\.\d+)")
_END = re.compile(r"ROLLOUT-END (\d+) ([\d.eE+-]+)")
# a cubeless rollout's means line ends in "CL e", its standard errors' line "[... CL s]"
_CUBELESS = re.compile(r"CL\s+([-+]?\d+\.\d+)\s+\[[^\]]*?CL\s+([-+]?\d+\.\d+)\]")


@dataclass(frozen=True)
class GnubgRollout:
    """One position's cubeful rollout by gnubg: the cubeful equity of the side on roll
    (money: per cube; a match: EMG), its standard error, the cubeless equity."""

    equity: float
    equity_stderr: float
    cubeless: float
    cubeless_stderr: float
    cpu_s: float


def gnubg_available() -> bool:
    return GNUBG.is_file() and os.access(GNUBG, os.X_OK)


def _setup(games: int, seed: int, varredn: bool, jacoby: bool, plies: int) -> list[str]:
    return [
        "set threads 1",
        "set rollout cubeful on",
        f"set rollout varredn {'on' if varredn else 'off'}",
        f"set rollout chequerplay plies {plies}",
        f"set rollout cubedecision plies {plies}",
        "set rollout quasirandom on",
        "set rollout truncation enable off",
        f"set rollout trials {games}",
        f"set rollout seed {seed}",
        f"set jacoby {'on' if jacoby else 'off'}",
        "set beavers 0",
        "set output mwc off",
        "set output digits 4",
        "new match 7",
    ]


def _run_on_terminal(argv: list[str], env: dict, timeout: float) -> str:
    """Everything ``argv`` writes to a pseudo-terminal, until it exits."""
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, env=env)
    finally:
        os.close(slave)
    chunks = []
    deadline = time.monotonic() + timeout
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                proc.kill()
                raise subprocess.TimeoutExpired(argv, timeout)
            ready, _, _ = select.select([master], [], [], min(left, 1.0))
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # the terminal closed: the process is gone
                    break
                if not data:
                    break
                chunks.append(data)
            elif proc.poll() is not None:
                break
    finally:
        os.close(master)
        proc.wait()
    return b"".join(chunks).decode("utf-8", "replace").replace("\r", "\n")


def gnubg_cubeful_rollouts(
    positions: list[tuple[str, str]],
    games: int,
    *,
    seed: int = 1,
    varredn: bool = False,
    jacoby: bool = False,
    plies: int = 0,
    timeout: float = 3600,
) -> list[GnubgRollout] | None:
    """gnubg's cubeful rollout of each ``(Position ID, Match ID)``; None where gnubg is
    missing, does not answer in ``timeout`` seconds, or prints something unexpected."""
    if not gnubg_available():
        return None
    items = [(pid, mid, None) for pid, mid in positions]
    text = _printout(_setup(games, seed, varredn, jacoby, plies), items, timeout)
    return None if text is None else _parse(text, len(items))


def _printout(setup: list[str], items: Sequence[tuple[str, str, int | None]], timeout: float) -> str | None:
    """What one gnubg process prints rolling out ``items`` after ``setup`` (``_SCRIPT``),
    in a scratch home of its own; None where it cannot run or does not end in time."""
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "rollout.py"
        script.write_text(_SCRIPT % {"setup": setup, "items": items})
        try:
            return _run_on_terminal([str(GNUBG), "-t", "-q", "-p", str(script)], {**os.environ, "HOME": tmp}, timeout)
        except (OSError, subprocess.TimeoutExpired):
            return None


def _blocks(text: str, count: int) -> list[tuple[str, float]] | None:
    """The printout of each of ``count`` rollouts between its START and END marks, with
    its CPU seconds; None where one is missing or out of order."""
    blocks = []
    for i in range(count):
        start = text.find(f"ROLLOUT-START {i}\n")
        end_match = _END.search(text, start if start >= 0 else 0)
        if start < 0 or end_match is None or int(end_match.group(1)) != i:
            return None
        blocks.append((text[start : end_match.start()], float(end_match.group(2))))
    return blocks


def _parse(text: str, count: int) -> list[GnubgRollout] | None:
    blocks = _blocks(text, count)
    if blocks is None:
        return None
    results: list[GnubgRollout] = []
    for block, cpu_s in blocks:
        figures = _FIGURES.findall(block)
        if len(figures) < 2:
            return None
        # the last pair: the means, then [the standard errors] (gnubg prints them in that order)
        (cubeless, equity), (cubeless_se, equity_se) = figures[-2], figures[-1]
        results.append(GnubgRollout(float(equity), float(equity_se), float(cubeless), float(cubeless_se), cpu_s))
    return results


def as_json(results: list[GnubgRollout]) -> str:
    return json.dumps([r.__dict__ for r in results])


@dataclass(frozen=True)
class GnubgCubelessRollout:
    """One position's cubeless rollout by gnubg: the side on roll's equity, its
    standard error, and the CPU seconds of the rollout command."""

    equity: float
    stderr: float
    cpu_s: float


def _cubeless_setup(games: int, varredn: bool, plies: int) -> list[str]:
    return [
        "set threads 1",
        "set rollout cubeful off",
        f"set rollout varredn {'on' if varredn else 'off'}",
        f"set rollout chequerplay plies {plies}",
        "set rollout quasirandom on",
        "set rollout truncation enable off",
        "set rollout bearofftruncation onesided on",
        f"set rollout trials {games}",
        "set output digits 4",
        "new game",
    ]


def gnubg_cubeless_rollouts(
    items: list[tuple[str, str, int]],
    games: int,
    *,
    varredn: bool = True,
    plies: int = 0,
    timeout: float = 3600,
) -> list[GnubgCubelessRollout] | None:
    """gnubg's cubeless rollout of each ``(Position ID, Match ID, seed)``; None where
    gnubg is missing, does not answer in ``timeout`` seconds, or prints something
    unexpected.  gnubg repeats a rollout from its seed only when it is the first of
    its process (a second one from the same seed meets other dice), so each runs in a
    process of its own: two positions given one seed meet the same dice."""
    if not gnubg_available():
        return None
    results: list[GnubgCubelessRollout] = []
    setup = _cubeless_setup(games, varredn, plies)
    for pid, mid, seed in items:
        text = _printout(setup, [(pid, mid, int(seed))], timeout)
        parsed = None if text is None else parse_cubeless(text, 1)
        if parsed is None:
            return None
        results += parsed
    return results


def parse_cubeless(text: str, count: int) -> list[GnubgCubelessRollout] | None:
    """The final figures of each of ``count`` rollouts between their START and END
    marks (gnubg prints the running figures as it goes; the last pair is the result)."""
    blocks = _blocks(text, count)
    if blocks is None:
        return None
    results: list[GnubgCubelessRollout] = []
    for block, cpu_s in blocks:
        figures = _CUBELESS.findall(block)
        if not figures:
            return None
        equity, stderr = figures[-1]
        results.append(GnubgCubelessRollout(float(equity), float(stderr), cpu_s))
    return results
