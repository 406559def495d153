"""Where numba keeps the compiled kernels: one folder per version of the code.

numba's on-disk cache (``@njit(cache=True)``) checks the source file of the function it
caches and nothing else: not the files of the kernels it calls, nor the module-level
constants compiled into it.  After an edit of ``engine/eval/encode.py`` a net's forward
pass, cached from ``engine/eval/forward.py``, kept running the old encoder until its
cache files were deleted; an install updated by ``git pull`` touches only the files
that changed, so an upgraded bot could play with stale machine code and nothing said so.

So the cache is keyed by the digest of all the code a kernel can compile in: the
sources of every package that holds kernels (``engine``, ``nets``, ``fibsbot``, read as
files: the engine imports neither), the data files baked into kernels at import,
numba's, numpy's and Python's versions and the machine.  ``configure()``, called by
``engine/__init__.py`` before any kernel is defined, points numba at
``BASE/DIGEST16/``: BASE is ``NUMBA_CACHE_DIR`` when set (the systemd units set it),
else ``numba`` in the fibsbot cache folder.  numba reads ``numba.config.CACHE_DIR``
when a decorated function's cache is created (``UserProvidedCacheLocator``), so
setting it works even when numba was imported first; the environment variable is set
too, for child processes and for numba's own reload of its settings from the
environment.  Changed code gets a folder of its own and compiles afresh.

Every process holds a shared lock on its folder's lock file; ``prune()`` removes the
folders of other code (and their warm-up markers) whose lock nobody holds, once a
start has its search ready.  The engine does no other IO.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import os
import platform
import re
import shutil
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the folder holding engine/, nets/ and fibsbot/
PACKAGES = ("engine", "nets", "fibsbot")
DATA_FILES = ("engine/data/*.json",)  # read at import into module constants that kernels freeze
LOCK_NAME = "fibsbot-code.lock"  # in every folder of ours: what pruning recognises, and the in-use lock
# what numba's compiled code depends on beside our sources, their versions and builds
VERSION_FILES = (("numba", "_version.py"), ("llvmlite", "_version.py"), ("numpy", "version.py"))
MARKER_PREFIX = "search-ready-"  # the warm-up's markers in BASE (fibsbot.warmup)

_DIGEST_FOLDER = re.compile(r"[0-9a-f]{16}")
_MARKER = re.compile(rf"{MARKER_PREFIX}([0-9a-f]{{16}})\.(json|lock|log)")

_active: str | None = None  # the digest this process compiles for, once configured
_in_use = None  # the open lock file of the active folder, held shared for the process's life


def cache_dir() -> Path:
    """FIBSBOT_CACHE_DIR, else the platform's user cache folder plus ``fibsbot``."""
    explicit = os.environ.get("FIBSBOT_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        base = Path(xdg).expanduser()
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    elif sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        base = Path(os.environ["LOCALAPPDATA"])
    else:
        base = Path.home() / ".cache"
    return base / "fibsbot"


def code_digest(root: Path = ROOT, packages: Iterable[str] = PACKAGES, data: Iterable[str] = DATA_FILES) -> str:
    """The sha256 of what the compiled code depends on (about 5 ms for the whole tree:
    every process that imports the engine pays it once)."""
    top = str(root)
    names: set[str] = set()  # relative posix paths; strings, which sort faster than Paths
    for package in packages:
        for folder, subfolders, files in os.walk(os.path.join(top, package)):
            subfolders[:] = [name for name in subfolders if name != "__pycache__"]
            relative = os.path.relpath(folder, top).replace(os.sep, "/")
            names.update(f"{relative}/{name}" for name in files if name.endswith(".py"))
    for pattern in data:
        names.update(path.relative_to(root).as_posix() for path in root.glob(pattern))
    h = hashlib.sha256()
    for name in sorted(names):
        with open(os.path.join(top, name), "rb") as source:
            h.update(name.encode() + b"\0" + source.read() + b"\0")
    for module, version_file in VERSION_FILES:
        h.update(_version_text(module, version_file) + b"\0")
    h.update(f"{sys.version}\0{platform.machine()}".encode())
    return h.hexdigest()


def _version_text(module: str, version_file: str) -> bytes:
    """A package's version file, read without importing it (numba takes half a second),
    so the digest is the same whether or not it was imported first."""
    try:
        spec = importlib.util.find_spec(module)
        if spec is None or spec.origin is None:
            return b"missing"
        return (Path(spec.origin).parent / version_file).read_bytes()
    except (OSError, ValueError, ImportError):
        return b"unknown"


def cache_base() -> Path:
    """BASE: ``NUMBA_CACHE_DIR`` (less a digest folder this or a parent process put
    there), else ``numba`` in the fibsbot cache folder."""
    explicit = os.environ.get("NUMBA_CACHE_DIR")
    if not explicit:
        return cache_dir() / "numba"
    path = Path(explicit).expanduser()
    if _DIGEST_FOLDER.fullmatch(path.name) and (path / LOCK_NAME).is_file():
        return path.parent
    return path


def digest() -> str:
    """The digest of the code this process compiles for (computed once, at configure)."""
    return _active or code_digest()


def configure(root: Path = ROOT, packages: Iterable[str] = PACKAGES, data: Iterable[str] = DATA_FILES) -> Path | None:
    """Point numba's cache at the folder of this code; returns the folder.  Never fails
    (it runs at ``import engine``): sources it cannot read or no cache folder at all (no
    home) leave numba's settings alone, a folder it cannot make leaves numba to cache
    where it can."""
    global _active
    try:
        _active = code_digest(root, packages, data)
        folder = cache_base() / _active[:16]
    except (OSError, RuntimeError):
        return None
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    config = sys.modules.get("numba.core.config")
    if config is not None:  # imported before us: its settings were read from the old environment
        config.CACHE_DIR = str(folder)  # type: ignore[attr-defined]
    _hold(folder)
    return folder


def _hold(folder: Path) -> None:
    """Take the shared lock that keeps ``prune()`` of other processes off ``folder``."""
    global _in_use
    if _in_use is not None:
        _in_use.close()
        _in_use = None
    for _ in range(3):  # a prune may remove the file between our open and our lock: lock the new one
        try:
            folder.mkdir(parents=True, exist_ok=True)
            lock = open(folder / LOCK_NAME, "a")  # noqa: SIM115 - held open for the process's life
        except OSError:
            return
        fcntl.flock(lock, fcntl.LOCK_SH)
        try:
            ours = os.fstat(lock.fileno()).st_ino == os.stat(folder / LOCK_NAME).st_ino
        except OSError:
            ours = False
        if ours:
            _in_use = lock
            return
        lock.close()


def prune(base: Path | None = None, keep: str | None = None) -> list[Path]:
    """Remove from ``base`` the folders of code other than ``keep`` (its digest; by
    default this process's) and their warm-up markers, unless a process still uses
    them, and the cache numba kept there for these sources before it was keyed by the
    code; returns what went.  Nothing else in ``base`` is touched: a folder of ours has
    a 16-hex-digit name and our lock file, a marker our name pattern."""
    base = cache_base() if base is None else base
    keep = (keep or digest())[:16]
    removed: list[Path] = []
    try:
        entries = sorted(base.iterdir())
    except OSError:
        return removed
    kept = {keep}
    for folder in entries:
        if not (_DIGEST_FOLDER.fullmatch(folder.name) and (folder / LOCK_NAME).is_file()):
            continue
        if folder.name == keep or not _remove_unused(folder):
            kept.add(folder.name)
        else:
            removed.append(folder)
    for path in entries:
        marker = _MARKER.fullmatch(path.name)
        if marker and marker.group(1) not in kept and path.is_file():
            path.unlink(missing_ok=True)
            removed.append(path)
    for folder in _unkeyed_folders(base):
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed


def _remove_unused(folder: Path) -> bool:
    """Remove ``folder`` unless a process holds its lock (runs that code now); a process
    starting meanwhile waits for the lock, then finds its file gone and makes another."""
    try:
        with open(folder / LOCK_NAME, "a") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False
            for entry in folder.iterdir():  # the lock file last: a removal cut short is found again
                if entry.name == LOCK_NAME:
                    continue
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry)
                else:
                    entry.unlink()
            shutil.rmtree(folder, ignore_errors=True)
            return True
    except OSError:
        return False


def _unkeyed_folders(base: Path) -> list[Path]:
    """The folders numba made in ``base`` for these very sources when the cache was
    keyed by each file alone: named after a source folder (``eval_`` and the sha1 of its
    path, numba's scheme) and holding nothing but numba's index and data files."""
    names = set()
    for top in {ROOT, Path(__file__).absolute().parents[1]}:  # resolved, and as imported
        for package in PACKAGES:
            for source in (top / package).rglob("*.py"):
                where = str(source.parent).encode()
                names.add(f"{source.parent.name}_{hashlib.sha1(where).hexdigest()}")
    found = []
    for name in sorted(names):
        folder = base / name
        try:
            if folder.is_dir() and all(f.suffix in (".nbi", ".nbc") for f in folder.iterdir()):
                found.append(folder)
        except OSError:
            continue
    return found
