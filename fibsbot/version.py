"""The version ``fibsbot --version`` and ``fibsbot status`` tell: the installed package's."""

from __future__ import annotations


def package_version() -> str:
    """The installed package's version (its metadata, as pip shows it)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("fibsbot")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def version_text() -> str:
    """``fibsbot 0.1.0``: the program's name and its version."""
    return f"fibsbot {package_version()}"
