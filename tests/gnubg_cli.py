"""Drive the real GNU Backgammon binary as a test referee.

Each gnubg start costs a noticeable fraction of a second, so callers hand over many
*blocks* of commands at once; every block ends with ``show board`` and a marker
command, and the output is cut at the markers.  Within one block only the last
``Position ID`` / ``Match ID`` printed counts, because commands such as ``set xgid``
or ``new game`` print boards of their own on the way.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

GNUBG = Path("/usr/games/gnubg")
SKIP_REASON = "GNU Backgammon (/usr/games/gnubg) not installed: apt-get install gnubg"

# Prints "New matches default to N points." on stdout and changes nothing; stdout
# keeps its order, while error messages go to stderr and are read separately.
_MARKER_COMMAND = "show matchlength"
_MARKER = re.compile(r"New matches default to \d+ points?\.")
# gnubg sometimes prints a message without a line end, glued to the board header
_POSITION_ID = re.compile(r"Position ID:\s*([A-Za-z0-9+/]{14})")
_MATCH_ID = re.compile(r"Match ID\s*:\s*([A-Za-z0-9+/]{12})")
_HINT_LINE = re.compile(r"^\s*\d+\.\s+Cube(?:ful|less)\s+\d+-ply\s+(.+?)\s+Eq\.:", re.MULTILINE)

PROLOGUE = (
    "set player 0 human",
    "set player 1 human",
    "set confirm new off",
    "set evaluation chequerplay evaluation plies 0",
)


def gnubg_available() -> bool:
    return GNUBG.is_file() and os.access(GNUBG, os.X_OK)


def require_gnubg() -> None:
    if not gnubg_available():
        pytest.skip(SKIP_REASON)


def run_commands(commands: list[str], timeout: float = 60.0) -> tuple[str, str]:
    """Run gnubg in text mode on a command file; returns (stdout, stderr)."""
    require_gnubg()
    with tempfile.NamedTemporaryFile("w", suffix=".gnubg", delete=False) as script:
        script.write("\n".join(commands) + "\n")
        path = script.name
    try:
        result = subprocess.run(
            [str(GNUBG), "-t", "-q", "-r", "-c", path],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    finally:
        os.unlink(path)
    return result.stdout, result.stderr


def run_blocks(blocks: list[list[str]], prologue: tuple[str, ...] = PROLOGUE) -> list[str]:
    """Run all blocks in one gnubg process; returns each block's stdout."""
    commands = list(prologue) + [_MARKER_COMMAND]
    for block in blocks:
        commands.extend(block)
        commands.append(_MARKER_COMMAND)
    stdout, stderr = run_commands(commands)
    chunks = _MARKER.split(stdout)
    # chunk 0 is the banner and prologue; one chunk per block follows, then the tail
    if len(chunks) != len(blocks) + 2:
        raise RuntimeError(
            f"gnubg printed {len(chunks) - 1} markers for {len(blocks) + 1} expected; stderr: {stderr[-2000:]}"
        )
    return chunks[1:-1]


def last_ids(text: str) -> tuple[str | None, str | None]:
    """The last Position ID and Match ID shown in some gnubg output."""
    positions = _POSITION_ID.findall(text)
    matches = _MATCH_ID.findall(text)
    return (positions[-1] if positions else None, matches[-1] if matches else None)


def ids_after(blocks: list[list[str]], prologue: tuple[str, ...] = PROLOGUE) -> list[tuple[str | None, str | None]]:
    """(Position ID, Match ID) gnubg shows at the end of each block."""
    return [last_ids(chunk) for chunk in run_blocks([block + ["show board"] for block in blocks], prologue)]


def hint_moves(text: str) -> list[str]:
    """The moves of a ``hint`` listing, best first, as gnubg prints them."""
    return _HINT_LINE.findall(text)


def simple_board_command(board: np.ndarray) -> str:
    """``set board simple`` for a board in our layout (row 0 on roll).

    gnubg reads 26 numbers from the view of the player on roll: its bar, points 1..24
    (own checkers positive, the opponent's negative), then the opponent's bar.
    """
    values = [int(board[0, 24])]
    for point in range(1, 25):
        mine, theirs = int(board[0, point - 1]), int(board[1, 24 - point])
        values.append(mine if mine else -theirs)
    values.append(int(board[1, 24]))
    return "set board simple " + " ".join(map(str, values))
