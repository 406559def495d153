"""`fibsbot run`: start the daemon from a settings file and the environment."""

from __future__ import annotations

import argparse
import asyncio
import sys

from fibsbot.cli.registry import UserError, command


def _setup(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--config",
        help="TOML settings file (see systemd/fibsbot.toml.example); FIBSBOT_* environment variables override it",
    )


@command("run", "run the bot: log into the configured server and play (stop with SIGTERM or Ctrl-C)")(_setup)
def _run(args: argparse.Namespace) -> int:
    from fibsbot.config import ConfigError, load_settings
    from fibsbot.daemon import prepare_logging, run_daemon

    try:
        settings = load_settings(args.config)
        settings.fibs_login()
        log_path = prepare_logging(settings)
    except ConfigError as exc:
        raise UserError(str(exc)) from exc
    print(f"fibsbot: logging to {log_path}", file=sys.stderr)
    asyncio.run(run_daemon(settings))
    return 0
