"""GNU Backgammon 1.07's answers at the score: its top move and its cube action, at 2-ply.

gnubg (``/usr/games/gnubg``) is asked ``hint`` on each position set by its XGID (the
score, cube, Crawford and Jacoby flags travel in it), evaluating as its world-class
level plays: cubeful, pruning nets, noiseless, the "normal" move filter.  Cube
decisions go through ``scripts.cube_check.gnubg_hint``; checker decisions are
answered here, in one gnubg run for many positions, a marker command between them.
The top move of the listing is parsed and played on our board, so that a move
spelled differently still names the same result.
"""

from __future__ import annotations

import os
import re

import numpy as np

from engine.cube.decision import DOUBLE_DROP, DOUBLE_TAKE
from engine.rules.moves import apply_steps
from engine.rules.notation import parse_gnubg
from scripts.cube_check.gnubg_hint import GNUBG, GnubgCube, gnubg_hints, run_blocks
from scripts.referee.decisions import Decision

PLY = 2
_TOP_MOVE = re.compile(r"^\s*1\.\s+Cube(?:ful|less)\s+\d+-ply\s+(.+?)\s+Eq\.:", re.MULTILINE)
SECONDS_PER_HINT = 60  # a generous bound on one 2-ply hint on a loaded machine, for the run's timeout


def gnubg_available() -> bool:
    return GNUBG.is_file() and os.access(GNUBG, os.X_OK)


def evaluation_commands(ply: int = PLY) -> list[str]:
    """The settings of ``hint`` for chequer play and the cube, as gnubg's world class plays."""
    commands = []
    for part in ("chequerplay", "cubedecision"):
        head = f"set evaluation {part} evaluation"
        commands += [f"{head} plies {ply}", f"{head} cubeful on", f"{head} prune on", f"{head} noise 0"]
    # the "normal" filter of gnubg's world-class level (its defaults, set so they hold)
    return commands + [
        "set evaluation movefilter 1 0 0 8 0.16",
        "set evaluation movefilter 2 0 0 8 0.16",
        "set evaluation movefilter 2 1 -1 0 0",
    ]


def _run(blocks: list[list[str]], prologue: list[str]) -> list[str]:
    """Each block's output from one gnubg run."""
    return run_blocks(prologue, blocks, timeout=60 + SECONDS_PER_HINT * len(blocks))


def top_move_text(output: str) -> str | None:
    found = _TOP_MOVE.search(output)
    return found.group(1) if found else None


def gnubg_moves(decisions: list[Decision], ply: int = PLY) -> list[tuple[str, np.ndarray] | None]:
    """(move text, board after it) of gnubg's top move for each checker decision;
    None where its answer could not be read."""
    outputs = _run([[f"set xgid {d.xgid}", "hint"] for d in decisions], evaluation_commands(ply))
    answers: list[tuple[str, np.ndarray] | None] = []
    for decision, output in zip(decisions, outputs):
        text = top_move_text(output)
        if text is None:
            answers.append(None)
            continue
        steps = parse_gnubg(text, decision.board, decision.dice)
        answers.append((text, apply_steps(decision.board, steps)))
    return answers


def gnubg_cubes(decisions: list[Decision], ply: int = PLY) -> list[GnubgCube]:
    """gnubg's cube answer for each cube decision (``GnubgCube``: its proper action,
    the take, the three cubeful equities)."""
    return gnubg_hints(decisions, ply)


def cube_answer(cube: GnubgCube) -> tuple[bool, bool] | None:
    """(double, take) of gnubg's proper cube action; None where gnubg gave none.  An
    answer that names no take ("No double" alone) takes by its own equities."""
    if cube.action == "unavailable":
        return None
    double = cube.action in (DOUBLE_TAKE, DOUBLE_DROP)
    take = cube.take
    if take is None:
        take = cube.equities.get("double_take", 0.0) <= cube.equities.get("double_drop", 1.0)
    return double, bool(take)
