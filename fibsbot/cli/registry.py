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

    exit_code = 2


class TryAgainLater(UserError):
    """Something outside that may mend by itself (a server not answering yet): one line,
    and exit code 75 (EX_TEMPFAIL), which a service manager may restart on while it does
    not restart on a mistake (exit 2)."""

    exit_code = 75


def describe_os_error(exc: Exception) -> str:
    """``FILE: no such file or directory`` rather than Python's ``[Errno 2] ...: 'FILE'``."""
    if isinstance(exc, OSError) and exc.strerror:
        reason = exc.strerror[0].lower() + exc.strerror[1:]
        return f"{exc.filename}: {reason}" if exc.filename is not None else reason
    return str(exc)


def describe_listen_error(host: str, port: int, exc: OSError) -> str:
    """``cannot listen on HOST:PORT: address already in use``: asyncio's own message repeats
    the address, so the reason is taken from the error number where there is one."""
    import os

    number = exc.errno or 0
    # a failed name lookup (socket.gaierror) has a negative number and a text of its own
    reason = os.strerror(number) if number > 0 else (exc.strerror or str(exc))
    return f"cannot listen on {host}:{port}: {reason[0].lower() + reason[1:]}"


def net_path(name: str):
    """The weights file of a net name or path, or a clear error: every command that takes
    ``--net`` checks it before any work, so that a misspelt name never runs as another net."""
    from engine.players.registry import PlayerSpecError
    from nets.player import resolve_net_path

    try:
        return resolve_net_path(name)
    except PlayerSpecError as exc:
        raise UserError(str(exc)) from exc
