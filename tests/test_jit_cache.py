"""numba's compiled code always matches the source: its cache is keyed by the code.

numba's own cache checks only the file of the function it caches: a kernel that calls
a kernel of another file keeps the callee it was compiled with after that file
changes.  ``engine.jit_cache`` keys the cache folder by a digest of all the sources,
and the warm-up's marker by the same digest; old folders go after a start.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine import jit_cache
from fibsbot.warmup import SearchWarmup, marker_path, search_compiled

CALLEE = """\
from numba import njit


@njit(cache=True)
def step(x):
    return x + {increment}
"""

CALLER = """\
from numba import njit

from pkg.callee import step


@njit(cache=True)
def run(x):
    return step(x) * 10
"""

# run in a child: the tiny package's caller, cached, and whether it came from the cache
SCRIPT = """\
import json, sys
from pathlib import Path

mode, tree = sys.argv[1], sys.argv[2]
sys.path.insert(0, tree)
if mode != "plain":
    if mode == "numba-first":
        import numba  # imported before the cache is configured: configure must still hold
    from engine import jit_cache

    jit_cache.configure(root=Path(tree), packages=("pkg",), data=())
from pkg.caller import run

value = run(1)
print(json.dumps({"value": value, "hits": sum(run.stats.cache_hits.values()), "cache": run.stats.cache_path}))
"""


def tiny_tree(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "callee.py").write_text(CALLEE.format(increment=1))
    (root / "pkg" / "caller.py").write_text(CALLER)
    return root


def edit_callee(tree: Path) -> None:
    (tree / "pkg" / "callee.py").write_text(CALLEE.format(increment=100))


def run_tree(tree: Path, mode: str, numba_dir: Path) -> dict:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(numba_dir), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, mode, str(tree)], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_an_edited_callee_is_seen_through_the_cached_caller(tmp_path):
    tree = tiny_tree(tmp_path / "keyed")
    base = tmp_path / "numba"
    first = run_tree(tree, "numba-first", base)
    again = run_tree(tree, "configured-first", base)
    assert first["value"] == again["value"] == 20 and first["hits"] == 0
    assert again["hits"] > 0 and again["cache"] == first["cache"]  # the cache is on: loaded, not compiled
    old_folder = Path(first["cache"]).relative_to(base).parts[0]
    assert old_folder == jit_cache.code_digest(tree, ("pkg",), ())[:16]

    edit_callee(tree)
    after = run_tree(tree, "configured-first", base)
    assert after["value"] == 1010  # (1 + 100) * 10: the new callee, through the cached caller
    assert Path(after["cache"]).relative_to(base).parts[0] != old_folder


def test_numbas_plain_cache_keeps_the_stale_callee(tmp_path):
    """The way it was: only the caller's file is checked, so the old callee stays."""
    tree = tiny_tree(tmp_path / "plain")
    assert run_tree(tree, "plain", tmp_path / "numba")["value"] == 20
    edit_callee(tree)
    stale = run_tree(tree, "plain", tmp_path / "numba")
    assert stale["value"] == 20 and stale["hits"] > 0  # still (1 + 1) * 10


def project_tree(root: Path) -> Path:
    for name in ("engine/search/nply.py", "nets/train/td_kernel.py", "fibsbot/bench/speed.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("depth = 2\n")
    (root / "engine" / "data").mkdir()
    (root / "engine" / "data" / "met.json").write_text("[1]")
    return root


@pytest.mark.parametrize(
    "edited", ["engine/search/nply.py", "nets/train/td_kernel.py", "fibsbot/bench/speed.py", "engine/data/met.json"]
)
def test_the_digest_changes_with_any_source_of_any_package_and_the_baked_in_data(tmp_path, edited):
    tree = project_tree(tmp_path)
    (tree / "nets" / "runs").mkdir()
    (tree / "nets" / "README.txt").write_text("not code")
    before = jit_cache.code_digest(tree)
    (tree / "nets" / "README.txt").write_text("still not code")
    assert jit_cache.code_digest(tree) == before
    (tree / edited).write_text((tree / edited).read_text() + " ")
    assert jit_cache.code_digest(tree) != before


def test_the_ready_marker_of_one_digest_is_not_taken_for_another(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    tree = project_tree(tmp_path / "tree")
    monkeypatch.setattr(jit_cache, "_active", jit_cache.code_digest(tree))
    marker = marker_path()
    marker.parent.mkdir(parents=True)
    marker.write_text("{}")
    assert search_compiled() and marker.name == f"search-ready-{jit_cache.digest()[:16]}.json"
    # the engine did not change, a kernel of the training did: the old marker is not ours
    (tree / "nets" / "train" / "td_kernel.py").write_text("depth = 3\n")
    monkeypatch.setattr(jit_cache, "_active", jit_cache.code_digest(tree))
    assert marker_path() != marker and not search_compiled()
    warm = SearchWarmup("net:default@2", command=[sys.executable, "-c", "import time; time.sleep(30)"]).start()
    try:
        assert warm.outcome == "" and warm.proc is not None  # warms up again, not "cached"
    finally:
        warm.proc.kill()  # our own stand-in, by its handle
        warm.proc.wait()


def test_a_child_finds_the_base_under_the_folder_its_parent_set(tmp_path, monkeypatch):
    folder = tmp_path / "numba" / "0123456789abcdef"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(folder))
    assert jit_cache.cache_base() == folder  # not a folder of ours (no lock file): taken as it is
    folder.mkdir(parents=True)
    (folder / jit_cache.LOCK_NAME).write_text("")
    assert jit_cache.cache_base() == tmp_path / "numba"
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    monkeypatch.setenv("FIBSBOT_CACHE_DIR", str(tmp_path / "fibsbot"))
    assert jit_cache.cache_base() == tmp_path / "fibsbot" / "numba"


CURRENT, OLD, RUNNING = "aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb", "cccccccccccccccc"


def cache_folder(base: Path, name: str) -> Path:
    folder = base / name
    (folder / "eval_0123").mkdir(parents=True)
    (folder / "eval_0123" / "forward.f-1.py311.nbi").write_bytes(b"index")
    (folder / jit_cache.LOCK_NAME).write_text("")
    return folder


def unkeyed_folder(base: Path) -> Path:
    """What numba made in ``base`` for engine/eval before the cache was keyed by the code."""
    import hashlib

    source_folder = str(jit_cache.ROOT / "engine" / "eval")
    folder = base / f"eval_{hashlib.sha1(source_folder.encode()).hexdigest()}"
    folder.mkdir(parents=True)
    (folder / "forward.f-1.py311.nbi").write_bytes(b"index")
    (folder / "forward.f-1.py311.1.nbc").write_bytes(b"code")
    return folder


def test_old_folders_and_markers_are_pruned_and_foreign_files_kept(tmp_path):
    base = tmp_path / "numba"
    current, old, running = (cache_folder(base, name) for name in (CURRENT, OLD, RUNNING))
    unkeyed = unkeyed_folder(base)
    foreign = [
        base / "dddddddddddddddd",  # our kind of name, but not our folder (no lock file)
        base / "notes.txt",
        base / "search-ready-test.json",
        base / "eval_0123456789",
    ]
    foreign[0].mkdir()
    (foreign[0] / "data").write_text("theirs")
    for path in foreign[1:3]:
        path.write_text("theirs")
    foreign[3].mkdir()
    (foreign[3] / "x.nbi").write_text("theirs")
    markers = {name: base / f"search-ready-{name}.json" for name in (CURRENT, OLD, RUNNING)}
    for marker in markers.values():
        marker.write_text("{}")
    (base / f"search-ready-{OLD}.log").write_text("")
    with open(running / jit_cache.LOCK_NAME) as held:  # a process still running that code
        fcntl.flock(held, fcntl.LOCK_SH)
        removed = jit_cache.prune(base, keep=CURRENT + "0" * 48)
    assert sorted(removed) == sorted([old, markers[OLD], base / f"search-ready-{OLD}.log", unkeyed])
    assert not old.exists() and not unkeyed.exists()
    assert current.is_dir() and running.is_dir() and markers[CURRENT].is_file() and markers[RUNNING].is_file()
    assert all(path.exists() for path in foreign) and (foreign[0] / "data").read_text() == "theirs"
    assert jit_cache.prune(base, keep=CURRENT) == [running, markers[RUNNING]]  # its process has ended


def test_a_start_with_the_search_ready_prunes_and_a_failed_one_does_not(tmp_path, monkeypatch):
    base = tmp_path / "numba"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(base))
    old = cache_folder(base, OLD)
    failed = SearchWarmup("net:default@2", command=[sys.executable, "-c", "raise SystemExit(3)"]).start()
    deadline = time.monotonic() + 60
    while not failed() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert failed.outcome == "failed" and failed.pruning is None and old.is_dir()
    marker_path().write_text("{}")
    cached = SearchWarmup("net:default@2", command=[sys.executable, "-c", "raise SystemExit(5)"]).start()
    assert cached.outcome == "cached" and cached.pruning is not None
    cached.pruning.join(30)
    assert not old.exists() and marker_path().is_file()


def test_the_digest_is_quick(tmp_path):
    jit_cache.code_digest()  # the files in the page cache, as at every start but the first
    start = time.perf_counter()
    for _ in range(5):
        jit_cache.code_digest()
    assert (time.perf_counter() - start) / 5 < 0.1  # about 5 ms here; every import of the engine pays it


def test_the_engine_configured_this_process_before_any_kernel():
    import numba

    from engine.eval.encode import encode_into

    folder = Path(os.environ["NUMBA_CACHE_DIR"])
    assert folder.name == jit_cache.digest()[:16] and (folder / jit_cache.LOCK_NAME).is_file()
    assert numba.config.CACHE_DIR == str(folder)
    assert Path(encode_into.stats.cache_path).parent == folder
