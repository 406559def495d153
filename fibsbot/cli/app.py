"""The `fibsbot` command line: thin wrappers over library functions, one module per command.

The commands that need nothing but the engine register on import; the others are
imported when the parser is built (``build_parser``).
"""

from __future__ import annotations

import argparse
import sys

import structlog

import fibsbot.cli.bench  # noqa: F401  registers `bench`
import fibsbot.cli.duel  # noqa: F401  registers `duel`
import fibsbot.cli.moves  # noqa: F401  registers `moves`
from fibsbot.cli.registry import COMMANDS, UserError, describe_os_error


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with ``only`` (a command's name), only that command's options are
    set up: some setups load numba, which would cost every other command most of a second."""
    import fibsbot.cli.analyse  # noqa: F401  registers `analyse`
    import fibsbot.cli.arena  # noqa: F401  registers `arena`
    import fibsbot.cli.benchmark  # noqa: F401  registers `benchmark`, `benchmark-build`
    import fibsbot.cli.external  # noqa: F401  registers `external`
    import fibsbot.cli.hint  # noqa: F401  registers `hint`
    import fibsbot.cli.report  # noqa: F401  registers `report`
    import fibsbot.cli.retrain  # noqa: F401  registers `retrain`
    import fibsbot.cli.rollout  # noqa: F401  registers `rollout`
    import fibsbot.cli.run  # noqa: F401  registers `run`
    import fibsbot.cli.server  # noqa: F401  registers `server`
    import fibsbot.cli.status  # noqa: F401  registers `status`
    import fibsbot.cli.train  # noqa: F401  registers `train`

    parser = argparse.ArgumentParser(
        prog="fibsbot",
        description="A backgammon bot for FIBS-style servers, and the engine and training behind it.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (help_text, setup, _run) in COMMANDS.items():
        subparser = sub.add_parser(name, help=help_text, description=help_text)
        if only not in COMMANDS or name == only:
            setup(subparser)
    return parser


def _stderr_logger(*_args) -> structlog.PrintLogger:
    # sys.stderr looked up when a logger is made, not once: whoever calls main() in-process
    # (the tests) may swap it between calls
    return structlog.PrintLogger(sys.stderr)


def log_to_stderr() -> None:
    """Send the library's log lines to stderr, so that stdout carries a command's output
    alone (``--json``: one object a reader can parse).  The daemon and the server set
    their own log destination when they start."""
    structlog.configure(logger_factory=_stderr_logger)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    _help, _setup, run = COMMANDS[args.command]
    logging_before = structlog.get_config()
    log_to_stderr()
    try:
        return run(args)
    except UserError as exc:
        print(f"fibsbot {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except (OSError, UnicodeDecodeError) as exc:  # unreadable files or input that is not UTF-8
        print(f"fibsbot {args.command}: error: {describe_os_error(exc)}", file=sys.stderr)
        return 2
    finally:
        structlog.configure(**logging_before)  # a caller in the same process keeps its own
