"""`fibsbot analyse`: gnubg-style analysis of recorded matches by our engine."""

from __future__ import annotations

import argparse
import json
import sqlite3
from pathlib import Path

from fibsbot.cli.registry import UserError, command


def _setup(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE.mat", help="match files (.mat: ours, gnubg's, FIBS's)")
    p.add_argument("--ply", type=int, default=2, choices=[0, 1, 2], help="search depth (default 2)")
    p.add_argument("--net", default="default", help="the net that judges (default: the shipped one)")
    p.add_argument("--all", action="store_true", help="list every decision, not only the marked ones")
    p.add_argument(
        "--queue",
        nargs="?",
        const="",
        metavar="QUEUE",
        help="add the marked decisions to the training queue (default: the data dir's queue.sqlite "
        "when the file lies in DIR/matches, else the user's data dir)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object per match")


def _queue_path(option: str, mat: Path) -> Path:
    from fibsbot.config import default_data_dir
    from fibsbot.owner.analysis_io import data_dir_of

    if option:
        return Path(option)
    return (data_dir_of(mat) or default_data_dir()) / "queue.sqlite"


@command("analyse", "analyse recorded matches like gnubg: errors, marks, error rates and luck per player")(_setup)
def _analyse(args: argparse.Namespace) -> int:
    from fibsbot.owner.analysis import Analyser
    from fibsbot.owner.analysis_io import data_dir_of, format_analysis, queue_errors, save_analysis
    from fibsbot.owner.matread import MatFileError, read_mat
    from fibsbot.owner.readers import DataDirError
    from fibsbot.records.queue import QueueError
    from nets.player import load_agent

    matches = []
    for name in args.files:
        path = Path(name)
        if path.is_dir():
            raise UserError(f"{path}: a folder, not a match file: name the files (e.g. {path / '*.mat'})")
        if not path.is_file():
            raise UserError(f"{path}: no such file")
        try:
            matches.append(read_mat(path))
        except MatFileError as exc:
            raise UserError(str(exc)) from exc
    try:
        analyser = Analyser(load_agent(f"net:{args.net}", ply=args.ply), args.ply)
    except (ValueError, OSError) as exc:
        raise UserError(f"--net {args.net}: {exc}") from exc
    for match in matches:
        try:
            analysis = analyser.analyse(match)
        except ValueError as exc:  # an illegal move or impossible cube action, named by its line
            raise UserError(str(exc)) from exc
        assert match.path is not None  # read_mat keeps the file's path
        data_dir = data_dir_of(match.path)
        if data_dir is not None:
            save_analysis(data_dir, analysis)
        out = analysis.as_dict()
        if args.queue is not None:
            queue = _queue_path(args.queue, match.path)
            try:
                out["queued"] = queue_errors(queue, analysis)
            except (DataDirError, QueueError, sqlite3.Error) as exc:
                raise UserError(f"{queue}: {exc}") from exc
        if args.json:
            print(json.dumps(out))
        else:
            print(format_analysis(analysis, args.all))
            if "queued" in out:
                print(f"{out['queued']} marked decisions added to {_queue_path(args.queue, match.path)}")
            print()
    return 0
