"""One match of ``play_vs_gnubg.py``: gnubg against a fresh ``fibsbot external``, and its analysis.

gnubg runs a plan of commands (play the match, then analyse it) through its
embedded Python; our side is ``fibsbot external --once`` on a free local port,
whose log tells whether any of our answers was an error.
"""

from __future__ import annotations

import hashlib
import json
import os
import select
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from scripts.gnubg_match.gnubg_output import MARKER_COMMAND, MatchError

REPO = Path(__file__).resolve().parents[2]
GNUBG = Path("/usr/games/gnubg")
PLAN_VARIABLE = "PLAY_VS_GNUBG_PLAN"

# Run by gnubg's embedded Python (``gnubg -p``): under ``-c`` gnubg stops after the
# first move of an external player.
GNUBG_DRIVER = f"""
import gnubg, json, os, time
with open(os.environ["{PLAN_VARIABLE}"]) as source:
    plan = json.load(source)
start = time.perf_counter()
for command in plan["play"]:
    gnubg.command(command)
played = time.perf_counter()
with open(plan["record"], "w") as out:
    json.dump(gnubg.match(0, 0, 0, 0), out)
for command in plan["analyse"]:
    gnubg.command(command)
with open(plan["timing"], "w") as out:
    json.dump({{"play_s": played - start, "analysis_s": time.perf_counter() - played}}, out)
"""


@dataclass(frozen=True)
class Config:
    player: str
    length: int
    gnubg_plies: int
    analysis_plies: int
    seed: int


def dice_seed(seed: int, index: int) -> int:
    """gnubg's dice seed of match ``index``: runs with different ``--seed`` get unrelated dice."""
    digest = hashlib.sha256(f"play_vs_gnubg:{seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def evaluation_commands(prefix: str, plies: int) -> list[str]:
    """``prefix`` (``set player 0``, ``set analysis``) at ``plies``: cubeful, pruning nets, noiseless."""
    heads = [f"{prefix} {part} evaluation" for part in ("chequerplay", "cubedecision")]
    return [
        f"{head} {setting}"
        for head in heads
        for setting in (f"plies {plies}", "cubeful on", "prune on", "noise 0", "deterministic on")
    ]


def gnubg_plan(config: Config, index: int, port: int, workdir: Path) -> dict:
    play = [
        "set display off",
        "set confirm new off",
        "set threads 1",
        "set player 0 gnubg",
        *evaluation_commands("set player 0", config.gnubg_plies),
        # gnubg's "normal" move filter, the one of its world-class level
        "set player 0 movefilter 1 0 0 8 0.16",
        "set player 0 movefilter 2 0 0 8 0.16",
        "set player 0 movefilter 2 1 -1 0 0",
        f"set player 1 external 127.0.0.1:{port}",
        "set beavers 0",
        "set jacoby off",
        "set automatic game on",
        "set rng mersenne",
        f"set seed {dice_seed(config.seed, index)}",
        f"new match {config.length}",
        f"export match mat {workdir / 'match.mat'}",
    ]
    analyse = [
        *evaluation_commands("set analysis", config.analysis_plies),
        "set analysis moves on",
        "set analysis cube on",
        "analyse match",
        MARKER_COMMAND,
        "show statistics match",
        MARKER_COMMAND,
        f"save match {workdir / 'match.sgf'}",
    ]
    return {
        "play": play,
        "analyse": analyse,
        "record": str(workdir / "record.json"),
        "timing": str(workdir / "timing.json"),
    }


def start_external(player: str, log: Path, errors: Path, timeout: float = 120.0) -> tuple[subprocess.Popen, int]:
    """``fibsbot external --once`` on a free port: (process, port) once it listens."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    command = [
        sys.executable,
        "-m",
        "fibsbot.cli",
        "external",
        "--listen",
        "127.0.0.1:0",
        "--once",
        "--player",
        player,
        "--log",
        str(log),
    ]
    with errors.open("w") as stderr:
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=stderr, stdin=subprocess.DEVNULL, text=True, env=env
        )
    ready, _, _ = select.select([process.stdout], [], [], timeout)
    line = process.stdout.readline() if ready else ""
    if not line.startswith("listening on "):
        process.kill()
        process.wait()
        process.stdout.close()
        raise MatchError(f"fibsbot external did not listen: {line.strip()} {errors.read_text()[-2000:]}")
    return process, int(line.rsplit(":", 1)[1])


def external_answers(log: Path) -> list[tuple[str, str]]:
    """(request, answer) of every decision ``fibsbot external`` logged."""
    events = [json.loads(line) for line in (log.read_text().splitlines() if log.exists() else [])]
    return [(e.get("request", ""), str(e.get("answer", ""))) for e in events if e.get("event") == "external_answer"]


def run_gnubg(config: Config, index: int, workdir: Path, timeout: float) -> tuple[str, int]:
    """One match and its analysis against a fresh ``fibsbot external``: (gnubg's stdout, our decisions)."""
    log = workdir / "external.jsonl"
    external, port = start_external(config.player, log, workdir / "external.stderr")
    try:
        plan = workdir / "plan.json"
        plan.write_text(json.dumps(gnubg_plan(config, index, port, workdir)))
        (workdir / "driver.py").write_text(GNUBG_DRIVER)
        try:
            gnubg = subprocess.run(
                [str(GNUBG), "-t", "-q", "-r", "-p", str(workdir / "driver.py")],
                capture_output=True,
                text=True,
                stdin=subprocess.DEVNULL,
                timeout=timeout,
                env=dict(os.environ, **{PLAN_VARIABLE: str(plan)}),
            )
        except subprocess.TimeoutExpired:
            raise MatchError(f"gnubg ran past {timeout:.0f} s") from None
        try:
            external.wait(timeout=30)  # --once: gone with gnubg's connection
        except subprocess.TimeoutExpired:
            pass
    finally:
        if external.poll() is None:
            external.kill()
            external.wait()
        external.stdout.close()
    answers = external_answers(log)
    errors = [f"{request} -> {reply}" for request, reply in answers if reply.startswith("Error")]
    if errors:  # gnubg stops the match at such an answer
        raise MatchError(f"our side answered {len(errors)} request(s) with an error, the first: {errors[0]}")
    if not all((workdir / name).exists() for name in ("record.json", "match.sgf", "timing.json")):
        tail = (gnubg.stdout + gnubg.stderr)[-3000:]
        raise MatchError(f"gnubg left no match record (exit {gnubg.returncode}): {tail}")
    return gnubg.stdout, len(answers)
