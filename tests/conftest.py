"""The suite's start: numba's shared kernels compiled once, before the workers start."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PRECOMPILE_TIMEOUT_S = 1200


def pytest_configure(config: pytest.Config) -> None:
    """On a distributed run's controller (``-n``), compile the two families of
    ``tests.precompile`` side by side, then let the workers start.  A cache already
    warm makes this a few seconds; a family that fails only costs its tests the compile."""
    if hasattr(config, "workerinput") or config.getoption("dist", "no") == "no":
        return
    started = time.monotonic()
    families = [
        subprocess.Popen([sys.executable, "-m", "tests.precompile", family], cwd=ROOT, stdout=subprocess.DEVNULL)
        for family in ("search", "games")
    ]
    for family, proc in zip(("search", "games"), families):
        try:
            code = proc.wait(timeout=max(1.0, PRECOMPILE_TIMEOUT_S - (time.monotonic() - started)))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            code = "timed out"
        outcome = "done" if code == 0 else f"failed ({code}): its tests compile what they need"
        print(f"tests.precompile {family}: {outcome}, {time.monotonic() - started:.0f} s", file=sys.stderr)
