"""`fibsbot report`: a static HTML page with pictures of how the bot is doing."""

from __future__ import annotations

import argparse
from pathlib import Path

from fibsbot.cli.registry import UserError, command, net_path


def _setup(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data-dir", help="the bot's data directory (default: the user's data directory)")
    p.add_argument("--out", required=True, help="folder for index.html and its pictures")
    p.add_argument(
        "--analyse",
        type=int,
        default=5,
        metavar="N",
        help="analyse up to N of the newest matches that have no analysis yet (default 5; 0: none)",
    )
    p.add_argument("--ply", type=int, default=2, choices=[0, 1, 2], help="depth of those analyses (default 2)")
    p.add_argument("--net", default="default", help="the net that judges them (default: the shipped one)")


@command("report", "write a static HTML report with plots: results, rating, errors, luck, queue, promotions")(_setup)
def _report(args: argparse.Namespace) -> int:
    from fibsbot.cli.status import existing_data_dir
    from fibsbot.owner.plots import MissingMatplotlib
    from fibsbot.owner.readers import DataDirError
    from fibsbot.owner.report import build_report, plural

    data_dir = existing_data_dir(args.data_dir)
    if args.analyse < 0:
        raise UserError("--analyse must be 0 or more")
    if args.analyse:
        net_path(args.net)  # checked even where no match waits for an analysis: a misspelt net is a mistake now
    try:
        result = build_report(data_dir, Path(args.out), analyse=args.analyse, ply=args.ply, net=args.net)
    except (MissingMatplotlib, DataDirError) as exc:
        raise UserError(str(exc)) from exc
    print(
        f"report: {result.page} ({plural(len(result.images), 'picture')}, "
        f"{plural(result.analysed, 'match', 'matches')} analysed now"
        + (f", {len(result.skipped)} unreadable: {result.skipped[0]}" if result.skipped else "")
        + ")"
    )
    return 0
