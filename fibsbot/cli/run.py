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
    p.add_argument(
        "--quiet",
        action="store_true",
        help="print only warnings and errors on the console (the JSON log keeps everything)",
    )


@command("run", "run the bot: log into the configured server and play (stop with SIGTERM or Ctrl-C)")(_setup)
def _run(args: argparse.Namespace) -> int:
    from fibsbot.cli.run_checks import check_player
    from fibsbot.client.connection import LoginConfigError, LoginGivenUp
    from fibsbot.config import ConfigError, load_settings
    from fibsbot.console import Console
    from fibsbot.daemon import check_data_dir, prepare_logging, run_daemon
    from fibsbot.owner.readers import check_formats

    try:
        settings = load_settings(args.config)
        user, _ = settings.fibs_login()
        check_player(settings)
        check_data_dir(settings)  # before the log: a data dir that takes no file cannot take the log either
        check_formats(settings.data_dir)  # records a newer release wrote: refused before any is written over
        log_path = prepare_logging(settings)
    except ConfigError as exc:
        raise UserError(str(exc)) from exc
    except UnicodeDecodeError as exc:  # the TOML reader names no file
        raise UserError(f"{args.config}: not a settings file (not UTF-8 text)") from exc
    console = Console(user, sys.stderr, quiet=args.quiet)
    console.say(f"logging to {log_path}")
    try:
        asyncio.run(run_daemon(settings, console=console))
    except LoginGivenUp as exc:
        raise UserError(
            f"{exc} (set [server] retry_refused_login = true to keep trying; FIBSBOT_SERVER__RETRY_REFUSED_LOGIN)"
        ) from exc
    except (LoginConfigError, ConfigError) as exc:
        raise UserError(str(exc)) from exc
    return 0
