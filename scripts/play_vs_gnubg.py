"""Matches against GNU Backgammon 1.07: gnubg at N-ply against ``fibsbot external --player SPEC``.

gnubg is player 0 at its world-class settings (cubeful, pruning nets, no noise, the
normal move filter, one thread) with ``--gnubg-plies`` for chequer play and cube;
our engine is player 1 through gnubg's external-player interface.  Match i of
``--seed S`` is played on Mersenne Twister dice seeded with ``dice_seed(S, i)``.
After each match gnubg analyses it at ``--analysis-plies``; ``show statistics
match`` gives each side's chequer and cube error rates.

Each match leaves under ``--out`` ``STEM.json`` (result and parsed analysis),
``STEM.mat`` and ``STEM.sgf.gz`` (the match with gnubg's analysis).  A match whose
JSON is there is not played again, so a stopped run resumes; a failed one is
retried by the next run.  The summary covers the matches of this seed and count:

    python scripts/play_vs_gnubg.py --player net:default@2 --matches 40 --length 7 --seed 1 --workers 2 [--json]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import math
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
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

# ``show matchlength`` prints this line and changes nothing: it fences the statistics
MARKER_COMMAND = "show matchlength"
MARKER = re.compile(r"New matches default to \d+ points?\.")
NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")
VALUE = r"[-+]?\d+(?:\.\d+)?%?(?:\s*\((?:[^()]|\([^()]*\))*\))?"  # -0.198 ( -4.959%), 2 (-0.049 ( -0.490%))
CUBE_ERROR_LINES = (
    "Missed doubles below CP",
    "Missed doubles above CP",
    "Wrong doubles below DP",
    "Wrong doubles above TG",
    "Wrong takes",
    "Wrong passes",
)
SIDES = ("gnubg", "ours")  # gnubg's player 0 and player 1: its columns, in that order


class MatchError(RuntimeError):
    """A match that could not be played or read to its end."""


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


def match_stem(config: Config, index: int) -> str:
    player = re.sub(r"[^A-Za-z0-9]+", "-", config.player).strip("-")
    return f"{player}-{config.length}pt-g{config.gnubg_plies}-seed{config.seed}-{index:03d}"


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


# ---------------------------------------------------------------------- reading gnubg


def statistics_block(stdout: str) -> str:
    """The output of ``show statistics match``: between the last two markers."""
    chunks = MARKER.split(stdout)
    if len(chunks) < 3:
        raise MatchError("gnubg printed no match statistics")
    return chunks[-2]


def _cells(rest: str) -> list:
    """The two columns of a statistics line: lists of numbers, or texts (the ratings)."""
    numeric = re.fullmatch(rf"\s*({VALUE})\s+({VALUE})\s*", rest)
    if numeric:
        return [[float(n) for n in NUMBER.findall(cell)] for cell in numeric.groups()]
    return re.split(r"\s{2,}", rest.strip())


def parse_statistics_table(text: str) -> dict[str, dict[str, list]]:
    """``show statistics match`` to {section: {label: [player 0's cell, player 1's cell]}}."""
    table: dict[str, dict[str, list]] = {}
    section = None
    for line in text.splitlines():
        heading = re.fullmatch(r"\s*(\w+) statistics\s*", line)
        if heading:
            section = table.setdefault(heading.group(1).lower(), {})
            continue
        labelled = re.match(r"(\S.*?)\s{2,}(\S.*)$", line.rstrip())
        if section is not None and labelled and len(cells := _cells(labelled.group(2))) == 2:
            section[labelled.group(1)] = cells  # a line with one value (luck rating diff.) is left out
    return table


def _row(section: dict[str, list], prefix: str) -> list:
    cells = next((cells for label, cells in section.items() if label.startswith(prefix)), None)
    if cells is None:
        raise MatchError(f"no line {prefix!r} in gnubg's statistics")
    return cells


def _count(section: dict[str, list], prefix: str, column: int) -> int:
    return int(_row(section, prefix)[column][0])


def _cost(section: dict[str, list], prefix: str, column: int) -> float:
    return -_row(section, prefix)[column][0]  # gnubg prints errors as negative equity


def side_figures(text: str) -> dict[str, dict]:
    """Each side's figures from ``show statistics match``; errors as positive costs."""
    table = parse_statistics_table(text)
    try:
        chequer, cube, overall = table["chequerplay"], table["cube"], table["overall"]
    except KeyError as missing:
        raise MatchError(f"no {missing} section in gnubg's statistics") from None
    marks = ("doubtful", "bad", "very bad")
    return {
        side: {
            "total_moves": _count(chequer, "Total moves", i),
            "unforced_moves": _count(chequer, "Unforced moves", i),
            "chequer_errors": sum(_count(chequer, f"Moves marked {mark}", i) for mark in marks),
            "chequer_error_total_emg": _cost(chequer, "Error total", i),
            "chequer_error_rate_memg": _cost(chequer, "Error rate", i),
            "chequer_rating": _row(chequer, "Chequerplay rating")[i],
            "cube_total_decisions": _count(cube, "Total cube decisions", i),
            "cube_decisions": _count(cube, "Close or actual cube decisions", i),
            "doubles": _count(cube, "Doubles", i),
            "takes": _count(cube, "Takes", i),
            "passes": _count(cube, "Passes", i),
            "cube_errors": sum(_count(cube, label, i) for label in CUBE_ERROR_LINES),
            "cube_error_total_emg": _cost(cube, "Error total", i),
            "cube_error_rate_memg": _cost(cube, "Error rate", i),
            "cube_rating": _row(cube, "Cube decision rating")[i],
            "overall_error_rate_memg": _cost(overall, "Error rate", i),
            "overall_rating": _row(overall, "Overall rating")[i],
            "fibs_rating": _row(overall, "Error based abs. FIBS rating")[i][0],
        }
        for i, side in enumerate(SIDES)
    }


def match_result(record: dict, length: int) -> dict:
    """Winner, final score and games from gnubg's match record (X: gnubg, O: ours)."""
    side = {"X": "gnubg", "O": "ours"}
    score = {"gnubg": 0, "ours": 0}
    games = []
    for game in record.get("games", []):
        info = game["info"]
        winner = side.get(info.get("winner"))
        if winner is None:
            raise MatchError(f"game {len(games) + 1} has no winner: the match stopped")
        games.append({"winner": winner, "points": info["points-won"], "resigned": bool(info.get("resigned"))})
        score[winner] += info["points-won"]
    if max(score.values()) < length:
        raise MatchError(f"the match stopped at gnubg {score['gnubg']}, ours {score['ours']} of {length}")
    return {"winner": max(score, key=score.get), "score": score, "games": games}


# ---------------------------------------------------------------------- playing


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


def write_json(path: Path, data: dict) -> None:
    """Written whole or not at all: a resumed run trusts every JSON it finds."""
    partial = path.with_suffix(".json.partial")
    partial.write_text(json.dumps(data, indent=1) + "\n")
    partial.replace(path)


def play_match(config: Config, index: int, out: Path, timeout: float) -> dict:
    """Play, analyse and save match ``index``; its JSON is written last."""
    stem = match_stem(config, index)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="play-vs-gnubg-") as scratch:
        workdir = Path(scratch)
        try:
            stdout, decisions = run_gnubg(config, index, workdir, timeout)
        except MatchError:
            if (workdir / "external.jsonl").exists():  # kept to see what went wrong
                shutil.copy(workdir / "external.jsonl", out / f"{stem}.failed.external.jsonl")
            raise
        result = match_result(json.loads((workdir / "record.json").read_text()), config.length)
        statistics = statistics_block(stdout)
        analysis = side_figures(statistics)
        timing = {key: round(value, 2) for key, value in json.loads((workdir / "timing.json").read_text()).items()}
        shutil.copy(workdir / "match.mat", out / f"{stem}.mat")
        with (workdir / "match.sgf").open("rb") as sgf, gzip.open(out / f"{stem}.sgf.gz", "wb") as packed:
            shutil.copyfileobj(sgf, packed)
    data = {
        "config": asdict(config),
        "index": index,
        "dice_seed": dice_seed(config.seed, index),
        **result,
        "analysis": analysis,
        "statistics": statistics.strip("\n"),
        "our_decisions": decisions,
        "wall_s": round(time.perf_counter() - start, 2),
        **timing,
    }
    write_json(out / f"{stem}.json", data)
    (out / f"{stem}.failed.external.jsonl").unlink(missing_ok=True)  # from an earlier try
    return data


def load_done(config: Config, index: int, out: Path) -> dict | None:
    path = out / f"{match_stem(config, index)}.json"
    if not path.exists():
        return None
    data = json.loads(path.read_text())
    if data.get("config") != asdict(config) or data.get("index") != index:
        raise SystemExit(f"{path} was played with {data.get('config')}, not {asdict(config)}: use another --out")
    return data


def run_matches(
    config: Config, count: int, out: Path, workers: int = 1, timeout: float = 3600.0, play=play_match
) -> tuple[list[dict], int]:
    """Matches 0..count-1, played where ``out`` has no JSON yet: (all the matches done, failures)."""
    out.mkdir(parents=True, exist_ok=True)
    done = {i: data for i in range(count) if (data := load_done(config, i, out)) is not None}
    failed = 0
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = {pool.submit(play, config, i, out, timeout): i for i in range(count) if i not in done}
        for future in as_completed(futures):
            index = futures[future]
            try:
                data = future.result()
            except Exception as exc:  # one broken match must not end a long run: reported, retried next run
                failed += 1
                print(
                    f"match {index} (dice seed {dice_seed(config.seed, index)}) failed: {type(exc).__name__}: {exc}",
                    file=sys.stderr,
                )
                continue
            done[index] = data
            print(
                f"match {index}: {data['winner']} won, ours {data['score']['ours']} gnubg {data['score']['gnubg']}, "
                f"{data['wall_s']:.0f} s (play {data['play_s']:.0f} s)",
                file=sys.stderr,
                flush=True,
            )
    return [done[i] for i in sorted(done)], failed


# ---------------------------------------------------------------------- the summary


def binomial(successes: int, n: int) -> tuple[float | None, float | None]:
    if n == 0:
        return None, None
    rate = successes / n
    return rate, math.sqrt(rate * (1 - rate) / n)


def pooled_rate(errors: list[float], decisions: list[int]) -> tuple[float | None, float | None]:
    """All errors over all decisions (x1000), as gnubg would rate the matches as one, and the
    standard error of that ratio with the match as the unit of sampling."""
    total, n = sum(decisions), len(errors)
    if total == 0:
        return None, None
    ratio = sum(errors) / total
    if n < 2:
        return 1000 * ratio, None
    spread = sum((e - ratio * d) ** 2 for e, d in zip(errors, decisions)) * n / (n - 1)
    return 1000 * ratio, 1000 * math.sqrt(spread) / total


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def summarise(config: Config, matches: list[dict]) -> dict:
    wins = sum(m["winner"] == "ours" for m in matches)
    rate, rate_se = binomial(wins, len(matches))
    sides = {}
    for side in SIDES:
        figures = [m["analysis"][side] for m in matches]
        chequer = pooled_rate([f["chequer_error_total_emg"] for f in figures], [f["unforced_moves"] for f in figures])
        cube = pooled_rate([f["cube_error_total_emg"] for f in figures], [f["cube_decisions"] for f in figures])
        counts = ("unforced_moves", "chequer_errors", "cube_decisions", "cube_errors")
        sides[side] = {
            "chequer_error_memg": chequer[0],
            "chequer_error_se": chequer[1],
            "cube_error_memg": cube[0],
            "cube_error_se": cube[1],
            **{key: sum(f[key] for f in figures) for key in counts},
        }
    return {
        "config": asdict(config),
        "matches": len(matches),
        "wins": wins,
        "win_rate": rate,
        "win_rate_se": rate_se,
        "points_for": sum(m["score"]["ours"] for m in matches),
        "points_against": sum(m["score"]["gnubg"] for m in matches),
        "sides": sides,
        **{f"{key}_per_match": _mean([m[key] for m in matches]) for key in ("wall_s", "play_s", "analysis_s")},
    }


def _pm(value: float | None, se: float | None, digits: int = 2) -> str:
    text = "-" if value is None else f"{value:.{digits}f}"
    return text + (f" ± {se:.{digits}f}" if se is not None else "")


def report(summary: dict) -> str:
    c, n = summary["config"], summary["matches"]
    lines = [
        f"gnubg 1.07 {c['gnubg_plies']}-ply vs {c['player']}: {n} {c['length']}-point matches "
        f"(seed {c['seed']}), analysed by gnubg at {c['analysis_plies']}-ply"
    ]
    if n:
        rate = 100 * summary["win_rate"], 100 * summary["win_rate_se"]
        lines += [
            f"  our wins: {summary['wins']}/{n} = {_pm(*rate, digits=1)}%",
            f"  points: ours {summary['points_for']}, gnubg {summary['points_against']}",
            f"  wall time per match: {summary['wall_s_per_match']:.1f} s "
            f"(play {summary['play_s_per_match']:.1f} s, analysis {summary['analysis_s_per_match']:.1f} s)",
            "  error rate, mEMG a decision (± standard error over matches):",
            f"    {'':6} {'chequer':>14} {'cube':>14}   unforced moves (errors), cube decisions (errors)",
        ]
        for side, s in summary["sides"].items():
            lines.append(
                f"    {side:6} {_pm(s['chequer_error_memg'], s['chequer_error_se']):>14} "
                f"{_pm(s['cube_error_memg'], s['cube_error_se']):>14}   {s['unforced_moves']} "
                f"({s['chequer_errors']}), {s['cube_decisions']} ({s['cube_errors']})"
            )
    if summary.get("failed"):
        lines.append(f"  {summary['failed']} match(es) failed (see above); a rerun retries them")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--player", default="net:default@2", help="passed verbatim to fibsbot external --player")
    parser.add_argument("--matches", type=int, default=40)
    parser.add_argument("--length", type=int, default=7, help="match length in points")
    parser.add_argument("--seed", type=int, default=1, help="the run's seed; each match's dice seed derives from it")
    parser.add_argument("--gnubg-plies", type=int, default=2, help="gnubg's chequer and cube plies")
    parser.add_argument("--analysis-plies", type=int, default=2, help="plies of gnubg's analysis of each match")
    parser.add_argument("--workers", type=int, default=1, help="matches played at once")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "matches")
    parser.add_argument("--match-timeout", type=float, default=3600.0, help="seconds for a match and its analysis")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = parser.parse_args(argv)
    if not (GNUBG.is_file() and os.access(GNUBG, os.X_OK)):
        raise SystemExit("GNU Backgammon is not installed (apt-get install gnubg)")
    config = Config(args.player, args.length, args.gnubg_plies, args.analysis_plies, args.seed)
    matches, failed = run_matches(config, args.matches, args.out, args.workers, args.match_timeout)
    summary = {**summarise(config, matches), "failed": failed}
    print(json.dumps(summary, indent=1) if args.json else report(summary))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
