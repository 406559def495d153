"""The project's scripts (``scripts/NAME.py``, not a package) as modules for tests."""

from __future__ import annotations

import importlib.util
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


@cache
def load_script(name: str) -> ModuleType:
    """``scripts/NAME.py`` imported once, registered under its name (a script's
    dataclasses look their module up while being built)."""
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
