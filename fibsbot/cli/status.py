"""`fibsbot status`: is the bot playing, how is it doing, what is it learning from."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from fibsbot.cli.registry import UserError, command


def _setup(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data-dir", help="the bot's data directory (default: the user's data directory)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def existing_data_dir(option: str | None) -> Path:
    """The data directory named (or the default one), if the bot has written anything there."""
    from fibsbot.config import default_data_dir
    from fibsbot.owner.status import is_empty

    data_dir = Path(option) if option else default_data_dir()
    if data_dir.exists() and not data_dir.is_dir():
        raise UserError(
            f"{data_dir}: a file, not a data directory (the folder that holds the bot's matches/, log/ "
            "and queue.sqlite)"
        )
    if not data_dir.is_dir() or is_empty(data_dir):
        raise UserError(
            f"{data_dir}: no records yet: start the daemon (fibsbot run) or play some matches "
            f"(fibsbot arena --data-dir {data_dir})"
        )
    return data_dir


@command("status", "the bot at a glance: daemon, current match, results, rating, net, queue, last retrain")(_setup)
def _status(args: argparse.Namespace) -> int:
    from fibsbot.owner.readers import DataDirError
    from fibsbot.owner.status import collect_status, format_status

    data_dir = existing_data_dir(args.data_dir)
    try:
        status = collect_status(data_dir)
    except DataDirError as exc:
        raise UserError(str(exc)) from exc
    print(json.dumps(status) if args.json else format_status(status))
    return 0
