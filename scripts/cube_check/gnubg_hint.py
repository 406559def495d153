"""GNU Backgammon's cube hints for ``check_cube_vs_gnubg.py``: one gnubg session, its output parsed.

gnubg (``/usr/games/gnubg``) answers ``hint`` for every case at the chosen ply in
one run of a command script; a marker command between the positions splits its
output, and each answer becomes a ``GnubgCube`` in the terms of
``engine.cube.decision``.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.cube.decision import DOUBLE_DROP, DOUBLE_TAKE, NO_DOUBLE, TOO_GOOD
from engine.rules.ids import xgid
from scripts.cube_check.cases import Case

GNUBG = Path("/usr/games/gnubg")

_MARKER_COMMAND = "show matchlength"
_MARKER = re.compile(r"New matches default to \d+ points?\.")
_PROBS = re.compile(r"^\s*(\d\.\d+) (\d\.\d+) (\d\.\d+) - (\d\.\d+) (\d\.\d+) (\d\.\d+)\s*$", re.MULTILINE)
_EQUITY = re.compile(
    r"^\s*\d\.\s+(No (?:re)?double|(?:Re)?[Dd]ouble, (?:take|pass|beaver))\s+([+-]\d+\.\d+)", re.MULTILINE
)
_PROPER = re.compile(r"Proper cube action:\s*([^(\n]+?)\s*(?:\(|$)", re.MULTILINE)


@dataclass
class GnubgCube:
    action: str  # one of engine.cube.decision.ACTIONS, or "unavailable"
    take: bool | None
    optional: bool
    text: str
    probs: np.ndarray | None
    equities: dict[str, float]


def gnubg_action(text: str) -> tuple[str, bool | None, bool]:
    """(action, take, optional) of gnubg's "Proper cube action" text."""
    lower = text.lower().strip()
    take = True if lower.endswith(("take", "beaver")) else False if lower.endswith("pass") else None
    optional = lower.startswith("optional")
    if lower.startswith("too good"):
        return TOO_GOOD, take, optional
    if lower.startswith(("no double", "no redouble", "never")):
        return NO_DOUBLE, take, optional
    if "double" in lower:
        return (DOUBLE_TAKE if take else DOUBLE_DROP), take, optional
    raise ValueError(f"unknown gnubg cube action {text!r}")


def parse_hint(text: str) -> GnubgCube:
    """gnubg's answer to ``hint`` before a roll (EMG output, 6 digits)."""
    if "You cannot double" in text or "Proper cube action" not in text:
        return GnubgCube("unavailable", None, False, "", None, {})
    proper = _PROPER.search(text).group(1)
    action, take, optional = gnubg_action(proper)
    probs = None
    if found := _PROBS.search(text):
        values = [float(v) for v in found.groups()]
        probs = np.array([values[0], values[1], values[2], values[4], values[5]])
    equities = {}
    for name, value in _EQUITY.findall(text):
        key = (
            "no_double"
            if name.lower().startswith("no")
            else ("double_drop" if name.endswith("pass") else "double_take")
        )
        equities[key] = float(value)
    return GnubgCube(action, take, optional, proper, probs, equities)


def run_blocks(prologue: list[str], blocks: list[list[str]], timeout: float) -> list[str]:
    """One gnubg run of ``prologue`` and then each block of commands: each block's output,
    cut at the marker printed after it."""
    commands = ["set player 0 human", "set player 1 human", "set threads 1", *prologue, _MARKER_COMMAND]
    for block in blocks:
        commands += [*block, _MARKER_COMMAND]
    with tempfile.NamedTemporaryFile("w", suffix=".gnubg", delete=False) as script:
        script.write("\n".join(commands) + "\n")
    try:
        result = subprocess.run(
            [str(GNUBG), "-t", "-q", "-r", "-c", script.name],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    finally:
        os.unlink(script.name)
    chunks = _MARKER.split(result.stdout)
    if len(chunks) != len(blocks) + 2:
        raise RuntimeError(
            f"gnubg answered {len(chunks) - 2} of {len(blocks)} positions; stderr: {result.stderr[-2000:]}"
        )
    return chunks[1:-1]


def gnubg_hints(cases: list[Case], ply: int) -> list[GnubgCube]:
    prologue = ["set output digits 6", "set output mwc off", f"set evaluation cubedecision evaluation plies {ply}"]
    blocks = [[f"set xgid {xgid(case.board, case.state)}", "hint"] for case in cases]
    chunks = run_blocks(prologue, blocks, timeout=60 + len(cases) * (1 if ply < 2 else 10))
    return [parse_hint(chunk) for chunk in chunks]
