"""The project's tools (``scripts/GROUP/NAME.py``, run as files) as modules for tests."""

from __future__ import annotations

import importlib
from types import ModuleType


def load_script(name: str) -> ModuleType:
    """``scripts/GROUP/NAME.py`` for ``name`` ``"GROUP.NAME"``, imported when a test first asks for it (collecting
    a test imports no tool)."""
    return importlib.import_module(f"scripts.{name}")
