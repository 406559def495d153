"""The `fibsbot` command line (the console script runs ``fibsbot.cli:main``).

``registry`` holds the commands, ``app`` builds the parser and runs one; every
other module here is one command.
"""

from fibsbot.cli.app import build_parser, main
from fibsbot.cli.registry import COMMANDS, UserError, command

__all__ = ["COMMANDS", "UserError", "build_parser", "command", "main"]
