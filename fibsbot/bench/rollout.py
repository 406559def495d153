"""Rollout benchmark: games per second of a 0-ply cubeless rollout, with GNU
Backgammon's own rollout on the same positions in the same run as the reference.

The reference runs gnubg in-process through its embedded Python (``gnubg -p``) with
one thread, no variance reduction, cubeless, 0-ply chequer play and truncation at
the one-sided bearoff database, as ours truncates; it is timed with CPU seconds of
the rollout command alone, so gnubg's start-up does not count against it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from fibsbot.bench.search import GNUBG, decision_positions
from fibsbot.bench.speed import register_benchmark

_GNUBG_SCRIPT = """
import json, time, gnubg
for c in ["set threads 1", "set rollout cubeful off", "set rollout varredn off",
          "set rollout chequerplay plies 0", "set rollout quasirandom on",
          "set rollout bearofftruncation onesided on", "set rollout truncation enable off",
          "set rollout trials %(games)d", "new game"]:
    gnubg.command(c)
spent = 0.0
for pid, mid in %(ids)s:
    gnubg.command("set matchid " + mid)
    gnubg.command("set board " + pid)
    start = time.process_time()
    gnubg.command("rollout")
    spent += time.process_time() - start
print("BENCH " + json.dumps({"cpu_s": spent}))
"""


def gnubg_rollout_rate(boards: np.ndarray, games: int, timeout: float = 1800) -> dict | None:
    """Games per CPU second of gnubg's own rollout of each board (side on roll in
    row 0, before its roll); None where gnubg is missing or does not answer."""
    from engine.rules.ids import MatchState, match_id, position_id

    if not (GNUBG.is_file() and os.access(GNUBG, os.X_OK)):
        return None
    ids = [(position_id(b), match_id(MatchState(dice=(0, 0)))) for b in boards]
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "rollout.py"
        script.write_text(_GNUBG_SCRIPT % {"games": games, "ids": repr(ids)})
        try:
            proc = subprocess.run(
                [str(GNUBG), "-t", "-q", "-p", str(script)],
                capture_output=True,
                text=True,
                timeout=timeout,
                env={**os.environ, "HOME": tmp},
                stdin=subprocess.DEVNULL,
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
    found = re.search(r"^BENCH (.*)$", proc.stdout, re.MULTILINE)
    if not found:
        return None
    cpu = json.loads(found.group(1))["cpu_s"]
    total = games * len(boards)
    return {
        "games_per_s": total / cpu,
        "games": total,
        "positions": len(boards),
        "cpu_s": cpu,
        "note": "gnubg rollout, 1 thread, cubeless, 0-ply with its pruning nets (its default), no variance "
        "reduction, quasi-random dice, truncated at the one-sided bearoff database; CPU seconds of "
        "the rollouts alone",
    }


def _games_per_cpu_s(boards, games: int, agent, prune: int) -> tuple[float, dict]:
    from engine.rollout.cubeless import rollout_position

    rollout_position(boards[0], 36, agent=agent, prune=prune)  # compile outside the timing
    start_cpu, start = time.process_time(), time.perf_counter()
    stderrs = [rollout_position(b, games, agent=agent, seed=3, prune=prune).equity_stderr for b in boards]
    cpu, wall = time.process_time() - start_cpu, time.perf_counter() - start
    total = games * len(boards)
    return total / cpu, {
        "games": total,
        "positions": len(boards),
        "cpu_s": cpu,
        "wall_s": wall,
        "mean_equity_stderr": float(np.mean(stderrs)),
    }


def bench_rollout(positions: int = 8, games: int = 144, reference_games: int = 144) -> dict:
    """Games per second of ``rollout_position`` at 0-ply on self-play positions: every
    move scored by the full net (``rollout_games_per_s``), and as gnubg's rollouts play
    by default, the pruning net choosing what the full net scores (``rollout_pruned_games_per_s``)."""
    from fibsbot.bench.speed import BENCH_NET
    from nets.player import load_agent

    boards, _ = decision_positions(positions, seed=31)
    agent = load_agent(f"net:{BENCH_NET}", ply=0)
    rate, detail = _games_per_cpu_s(boards, games, agent, prune=0)
    result: dict[str, Any]  # nested figures, filled in below
    result = {
        "rollout_games_per_s": rate,
        "rollout": {
            **detail,
            "settings": "0-ply, every legal move scored by the full net, cubeless, "
            "truncated at the one-sided bearoff database",
            "sample": "pubeval self-play turns with a choice, before the roll",
        },
    }
    if agent.evaluator.prune is not None:
        from engine.rollout.cubeless import ROLLOUT_PRUNE_KEEP

        pruned, detail = _games_per_cpu_s(boards, games, agent, prune=ROLLOUT_PRUNE_KEEP)
        result["rollout_pruned_games_per_s"] = pruned
        result["rollout"]["pruned"] = {
            **detail,
            "keep": ROLLOUT_PRUNE_KEEP,
            "settings": f"0-ply, the pruning net passing {ROLLOUT_PRUNE_KEEP} moves to the "
            "full net (fibsbot rollout --prune), as gnubg's rollout reference "
            "plays",
        }
    reference = gnubg_rollout_rate(boards, reference_games)
    if reference is None:
        result["rollout"]["reference_gnubg_rollout"] = "skipped: GNU Backgammon not installed or not answering"
    else:
        result["rollout"]["reference_gnubg_rollout"] = reference
        result["rollout"]["ratio_vs_gnubg_rollout"] = rate / reference["games_per_s"]
        if "pruned" in result["rollout"]:
            result["rollout"]["pruned"]["ratio_vs_gnubg_rollout"] = pruned / reference["games_per_s"]
    return result


register_benchmark("rollout", bench_rollout)
