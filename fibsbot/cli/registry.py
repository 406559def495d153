"""The registry of `fibsbot` commands, apart from the parser that reads it.

Each command module registers itself here; ``fibsbot.cli.app`` imports the modules
and builds the parser, so no command module needs to import the parser back.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]] = {}


def command(name: str, help_text: str):
    """Register a subcommand: the decorated function adds its arguments and runs it."""

    def wrap(setup):
        def decorator(run):
            COMMANDS[name] = (help_text, setup, run)
            return run

        return decorator

    return wrap


class UserError(Exception):
    """A mistake in the command line or its input: reported in one line, no traceback."""


def describe_os_error(exc: Exception) -> str:
    """``FILE: no such file or directory`` rather than Python's ``[Errno 2] ...: 'FILE'``."""
    if isinstance(exc, OSError) and exc.strerror:
        reason = exc.strerror[0].lower() + exc.strerror[1:]
        return f"{exc.filename}: {reason}" if exc.filename is not None else reason
    return str(exc)
