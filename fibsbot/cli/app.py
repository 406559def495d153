"""The `fibsbot` command line: thin wrappers over library functions, one module per command.

The commands that need nothing but the engine register on import; the others are
imported when the parser is built (``build_parser``).
"""

from __future__ import annotations

import argparse
import os
import select
import signal
import sys
from typing import NoReturn

import structlog

import fibsbot.cli.bench  # noqa: F401  registers `bench`
import fibsbot.cli.duel  # noqa: F401  registers `duel`
import fibsbot.cli.moves  # noqa: F401  registers `moves`
from fibsbot.cli.registry import COMMANDS, UserError, describe_os_error
from fibsbot.version import version_text
from nets.formats import NewerFormatError


class OneLineErrorParser(argparse.ArgumentParser):
    """A mistake in the command line in one line, as every other mistake in the input is
    reported, instead of argparse's usage block above it; ``--help`` still shows the usage.
    Subcommands' parsers are made of the same class (argparse takes the parent's)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}; see {self.prog} --help\n")


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

    parser = OneLineErrorParser(
        prog="fibsbot",
        description="A backgammon bot for FIBS-style servers, and the engine and training behind it.",
    )
    parser.add_argument("--version", action="version", version=version_text())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (help_text, setup, _run) in COMMANDS.items():
        subparser = sub.add_parser(name, help=help_text, description=help_text)
        if (only not in COMMANDS and only != "--version") or name == only:
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


def _is_player_spec_error(exc: Exception) -> bool:
    """Whether ``exc`` is the engine's PlayerSpecError (a net or player that does not exist),
    without importing the engine, which loads numba: no spec was read if it is not loaded."""
    registry = sys.modules.get("engine.players.registry")
    return registry is not None and isinstance(exc, registry.PlayerSpecError)


def _reader_gone(stream) -> bool:
    """Whether ``stream`` is a pipe whose reading end was closed (``fibsbot status | head -3``):
    Linux reports POLLERR on such a pipe's writing end, and on nothing else that is still open."""
    try:
        poller = select.poll()
        poller.register(stream.fileno(), select.POLLOUT)
        return any(events & select.POLLERR for _fd, events in poller.poll(0))
    except (AttributeError, OSError, ValueError):  # no file behind it (a test's StringIO), or closed
        return False


def _quiet_after_broken_pipe() -> int:
    """End like a Unix tool whose reader left: no message, the status of a SIGPIPE death.
    stdout and stderr are pointed at /dev/null first, or Python's flush at exit would
    raise again and print "Exception ignored ... BrokenPipeError"."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.stdout, sys.stderr):
        try:
            os.dup2(devnull, stream.fileno())
        except (AttributeError, OSError, ValueError):
            pass
    return 128 + signal.SIGPIPE


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    _help, _setup, run = COMMANDS[args.command]
    logging_before = structlog.get_config()
    log_to_stderr()
    try:
        code = run(args)
        sys.stdout.flush()  # here, where a reader that has gone can still be told from an error
        return code
    except UserError as exc:
        return _report_error(args.command, str(exc), exc.exit_code)
    except NewerFormatError as exc:  # a data directory a newer release wrote (nets.formats)
        return _report_error(args.command, str(exc))
    except BrokenPipeError:
        if _reader_gone(sys.stdout) or _reader_gone(sys.stderr):
            return _quiet_after_broken_pipe()
        raise  # a socket's, not our output's: a failure to see
    except (OSError, UnicodeDecodeError) as exc:  # unreadable files or input that is not UTF-8
        return _report_error(args.command, describe_os_error(exc))
    except ValueError as exc:
        if _is_player_spec_error(exc):  # a spec read deep inside a command, after its own checks
            return _report_error(args.command, str(exc))
        raise
    finally:
        structlog.configure(**logging_before)  # a caller in the same process keeps its own


def _report_error(command_name: str, message: str, exit_code: int = 2) -> int:
    """The one line a mistake in the input gets, and its exit code."""
    print(f"fibsbot {command_name}: error: {message}", file=sys.stderr)
    return exit_code
