"""The README is a page for operators: short, and every `fibsbot` command in it (and in the
command reference, docs/commands.md) is one the command line accepts as written."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from fibsbot.cli.app import build_parser
from fibsbot.cli.registry import COMMANDS

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = (README, ROOT / "docs" / "commands.md")
MAX_README_LINES = 400
# a placeholder or an alternative in a synopsis, not a command as typed
SYNOPSIS = re.compile(r"[\[\]|]|\.\.\.|\bDIR\b|\bFILE\b|\bNAME\b|\bID\b|\bSPEC\b|\bPLAYER\b|\bCOMMAND\b")


def _fenced_lines(text: str) -> list[str]:
    lines, inside = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            inside = not inside
            continue
        if inside and lines and lines[-1].endswith("\\"):
            lines[-1] = lines[-1][:-1] + line  # a command continued on the next line
        elif inside:
            lines.append(line)
    return lines


def _commands(page: Path) -> list[str]:
    """The `fibsbot ...` invocations of a page as typed: in its shell blocks, and in inline code
    that is a whole command (no placeholders)."""
    text = page.read_text()
    found = []
    for line in _fenced_lines(text):
        for part in re.split(r"&&|;", line.split("#")[0]):
            found.append(part.strip())
    found += re.findall(r"`(fibsbot [^`]+)`", text)
    commands = []
    for candidate in found:
        try:
            words = shlex.split(candidate)
        except ValueError:
            continue  # not shell: a fragment of prose in code
        while words and (re.fullmatch(r"[A-Z_]+=\S*", words[0]) or words[0] in ("sudo", "nice")):
            words = words[1:]  # environment assignments and wrappers before the command
        if words and Path(words[0]).name == "fibsbot" and not SYNOPSIS.search(" ".join(words[1:])):
            commands.append(shlex.join(words[1:]))
    return commands


def test_the_readme_is_a_page_not_a_manual():
    assert len(README.read_text().splitlines()) <= MAX_README_LINES


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_command_on_the_page_is_accepted_as_written(page, capsys):
    commands = _commands(page)
    assert commands, f"{page.name}: no fibsbot command found"
    parser = build_parser()
    for command in commands:
        if " " not in command and command in COMMANDS:
            continue  # a command named in prose, without the arguments it needs
        try:
            parser.parse_args(shlex.split(command))
        except SystemExit as exc:  # --help and --version exit 0; a mistake exits 2
            assert exc.code == 0, f"{page.name}: `fibsbot {command}`: {capsys.readouterr().err.strip()}"


def test_the_quick_start_puts_the_command_on_the_path():
    quick_start = README.read_text().split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert ". .venv/bin/activate" in quick_start
