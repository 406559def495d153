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
retried by the next run; a second run into the same ``--out`` while one plays is
refused, and ``--summary`` reads the folder without playing.  The summary covers the
matches of this seed and count:

    python scripts/gnubg_match/play_vs_gnubg.py --player net:default@2 --matches 40 --length 7 --seed 1 \\
        --workers 2 [--json]
"""

from __future__ import annotations

import argparse
import fcntl
import gzip
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path

# run from a checkout without installing: make the repository root importable
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

# gnubg_plan and pooled_rate: the tests read them through this script
from scripts.gnubg_match.gnubg_output import MatchError, match_result, side_figures, statistics_block  # noqa: E402
from scripts.gnubg_match.session import GNUBG, REPO, Config, dice_seed, gnubg_plan, run_gnubg  # noqa: E402, F401
from scripts.gnubg_match.summary import pooled_rate, report, summarise  # noqa: E402, F401


def match_stem(config: Config, index: int) -> str:
    player = re.sub(r"[^A-Za-z0-9]+", "-", config.player).strip("-")
    return f"{player}-{config.length}pt-g{config.gnubg_plies}-seed{config.seed}-{index:03d}"


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


def matches_done(config: Config, count: int, out: Path) -> list[dict]:
    """The matches among 0..count-1 that ``out`` holds, in order; nothing is played."""
    return [data for i in range(count) if (data := load_done(config, i, out)) is not None]


@contextmanager
def playing_into(out: Path) -> Iterator[None]:
    """Hold ``out`` for one run: a second run into the same folder would play the same
    matches again and overwrite their files, so it is refused."""
    out.mkdir(parents=True, exist_ok=True)
    with (out / ".playing").open("w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SystemExit(
                f"{out}: another run is playing into it (wait for it, use --summary to read it, or another --out)"
            ) from None
        yield


def run_matches(
    config: Config, count: int, out: Path, workers: int = 1, timeout: float = 3600.0, play=play_match
) -> tuple[list[dict], int]:
    """Matches 0..count-1, played where ``out`` has no JSON yet: (all the matches done, failures)."""
    with playing_into(out):
        return _play_missing(config, count, out, workers, timeout, play)


def _play_missing(config: Config, count: int, out: Path, workers: int, timeout: float, play) -> tuple[list[dict], int]:
    done = {data["index"]: data for data in matches_done(config, count, out)}
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
    parser.add_argument("--summary", action="store_true", help="summarise the matches --out holds; play nothing")
    args = parser.parse_args(argv)
    config = Config(args.player, args.length, args.gnubg_plies, args.analysis_plies, args.seed)
    if args.summary:
        matches, failed = matches_done(config, args.matches, args.out), 0
    else:
        if not (GNUBG.is_file() and os.access(GNUBG, os.X_OK)):
            raise SystemExit("GNU Backgammon is not installed (apt-get install gnubg)")
        matches, failed = run_matches(config, args.matches, args.out, args.workers, args.match_timeout)
    summary = {**summarise(config, matches), "failed": failed}
    print(json.dumps(summary, indent=1) if args.json else report(summary))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
