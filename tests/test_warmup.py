"""The warm-up of the search at start: its marker, the child, the fallback, the switch."""

from __future__ import annotations

import functools
import json
import sys
import time

import pytest
from structlog.testing import capture_logs

from engine import jit_cache
from engine.rules.position import Position
from fibsbot.warmup import SearchWarmup, marker_path, search_compiled, start_warmup
from nets.player import load_agent


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    return tmp_path / "numba"


def wait_ready(warm: SearchWarmup, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not warm() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert warm.ready


def writer(seconds: float = 0.0) -> list[str]:
    """A stand-in child: waits, then writes the marker as the real one does."""
    code = f"import sys, time; time.sleep({seconds}); open(sys.argv[1], 'w').write('{{\"seconds\": 1}}')"
    return [sys.executable, "-c", code, str(marker_path())]


def test_the_marker_is_keyed_by_the_engine_and_lives_in_numbas_cache(cache, tmp_path, monkeypatch):
    path = marker_path()
    assert path.parent == cache and path.name.startswith("search-ready-") and not search_compiled()
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "elsewhere"))
    assert marker_path().parent == tmp_path / "elsewhere"  # another numba cache: another marker
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    monkeypatch.setenv("FIBSBOT_CACHE_DIR", str(tmp_path / "fibsbot"))
    assert marker_path().parent == tmp_path / "fibsbot" / "numba"  # numba caches in ours
    engine = tmp_path / "engine"
    engine.mkdir()
    (engine / "search.py").write_text("changed = True\n")
    before = marker_path().name
    monkeypatch.setattr(jit_cache, "_active", jit_cache.code_digest(tmp_path))
    assert marker_path().name != before  # other engine sources: another marker


def test_a_start_with_the_marker_goes_straight_to_the_search(cache):
    cache.mkdir(parents=True)
    marker_path().write_text("{}")
    with capture_logs() as logs:
        warm = SearchWarmup("net:default@2", command=[sys.executable, "-c", "raise SystemExit(5)"]).start()
    assert warm() and warm.outcome == "cached" and warm.proc is None
    assert not [e for e in logs if e["event"].startswith("search_warm")]


def test_without_the_marker_the_child_runs_and_its_end_is_logged_once(cache):
    with capture_logs() as logs:
        warm = SearchWarmup("net:default@2", command=writer(0.3)).start()
        assert warm.proc is not None and not warm()
        wait_ready(warm)
        assert warm()
    events = [e["event"] for e in logs]
    assert events == ["search_warming", "search_ready"] and warm.outcome == "warmed"
    assert [e for e in logs if e["event"] == "search_ready"][0]["child"] == {"seconds": 1}


@pytest.mark.parametrize(
    "command, timeout",
    [
        ([sys.executable, "-c", "import sys; sys.stderr.write('boom'); sys.exit(3)"], 60),
        ([sys.executable, "-c", "import time; time.sleep(60)"], 0.3),
        ([sys.executable, "-c", "pass"], 60),  # exits cleanly but leaves no marker
    ],
)
def test_a_failed_warmup_is_logged_and_the_search_compiles_in_process(cache, command, timeout):
    with capture_logs() as logs:
        warm = SearchWarmup("net:default@2", timeout_s=timeout, command=command).start()
        wait_ready(warm)
    failed = [e for e in logs if e["event"] == "search_warmup_failed"]
    assert warm.outcome == "failed" and len(failed) == 1 and failed[0]["fallback"] == "compile in-process"
    assert warm.proc.poll() is not None  # never left running after a timeout
    if "boom" in command[-1]:
        assert "boom" in failed[0]["stderr_tail"] and "exit code 3" in failed[0]["reason"]


def test_a_child_that_cannot_start_falls_back_at_once(cache):
    warm = SearchWarmup("net:default@2", command=[str(cache / "no-such-program")]).start()
    assert warm() and warm.outcome == "failed"


def test_the_agent_plays_zero_ply_until_the_search_is_ready_then_its_ply(cache):
    agent = load_agent("net:default@2")
    board = Position.initial().board
    agent.search_ready = False
    agent.choose_move(board, 3, 1)  # the 0-ply path's own compiling first: seconds on a cold cache
    warm = SearchWarmup(agent.name, command=writer(1.5)).start()
    agent.search_ready = warm
    assert agent.choose_move(board, 3, 1).ply == 0 and agent.depth == 0
    wait_ready(warm)
    assert agent.depth == 2 and agent.choose_move(board, 3, 1).ply > 0  # the search decides again


def test_start_warmup_leaves_a_zero_ply_agent_alone_and_can_be_turned_off(cache):
    zero = load_agent("net:default@0")
    assert start_warmup(zero) is None and zero.search_ready is True
    two = load_agent("net:default@2")
    assert start_warmup(two, enabled=False) is None and two.search_ready is True


def test_the_real_child_warms_the_search_and_writes_its_figures(tmp_path):
    # numba's cache as the test run has it (warm: the child loads rather than compiles);
    # only the marker goes to a folder of its own
    warm = SearchWarmup("net:default@2")
    warm.marker = tmp_path / "search-ready-test.json"
    warm.start()
    assert warm.proc is not None and warm.proc.args[1:3] == ["-m", "fibsbot.warmup"]
    wait_ready(warm, 600)
    assert warm.outcome == "warmed"
    figures = json.loads(warm.marker.read_text())
    assert figures["agent"] == "net:default@2" and figures["cpu_s"] > 0 and figures["peak_rss_mb"] > 50


def test_start_warmup_hands_a_searching_agent_its_readiness(cache):
    cache.mkdir(parents=True)
    marker_path().write_text("{}")
    agent = load_agent("net:default@2")
    warm = start_warmup(agent)
    assert agent.search_ready is warm and warm.outcome == "cached" and agent.depth == 2


def test_a_second_child_waits_for_the_first_and_compiles_nothing(tmp_path):
    """A daemon killed and restarted during its warm-up starts another child: that one
    waits for the first (its lock) and, finding the marker, stops without compiling."""
    import fcntl
    import subprocess

    marker = tmp_path / "search-ready-test.json"
    with open(marker.with_suffix(".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the first child, compiling
        second = subprocess.Popen([sys.executable, "-m", "fibsbot.warmup", "--marker", str(marker)])
        time.sleep(1.0)
        assert second.poll() is None  # waiting, not compiling beside it
        marker.write_text('{"pid": "the first child"}')
    assert second.wait(timeout=60) == 0
    assert json.loads(marker.read_text()) == {"pid": "the first child"}


def test_a_start_while_another_warmup_compiles_starts_no_child_and_waits_for_its_marker(cache):
    """A daemon killed and restarted every few seconds must not leave a child per start."""
    import fcntl

    cache.mkdir(parents=True)
    marker = marker_path()
    with open(marker.with_suffix(".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # an earlier start's child, compiling
        with capture_logs() as logs:
            warm = SearchWarmup("net:default@2", command=writer(0.0)).start()
            assert warm.proc is None and warm.watching and not warm()
            marker.write_text('{"pid": "the earlier child"}')
            assert warm() and warm.outcome == "warmed"
    assert [e["event"] for e in logs] == ["search_warming", "search_ready"]
    marker.unlink()
    with open(marker.with_suffix(".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        warm = SearchWarmup("net:default@2", command=writer(0.0)).start()
    # the lock is free again and no marker came: that child died, the agent compiles by itself
    with capture_logs() as logs:
        assert warm() and warm.outcome == "failed" and warm.proc is None
    assert any(e["event"] == "search_warmup_failed" for e in logs)


def test_the_marker_changes_with_a_file_in_any_engine_package(tmp_path, monkeypatch):
    engine = tmp_path / "engine"
    (engine / "search").mkdir(parents=True)
    (engine / "__init__.py").write_text("")
    (engine / "search" / "nply.py").write_text("depth = 2\n")
    monkeypatch.setattr(jit_cache, "_active", None)  # the digest read afresh, of this tree
    monkeypatch.setattr(jit_cache, "code_digest", functools.partial(jit_cache.code_digest, tmp_path))
    before = marker_path().name
    (engine / "search" / "nply.py").write_text("depth = 3\n")
    assert marker_path().name != before
