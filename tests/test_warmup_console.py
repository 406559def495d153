"""The console while the search compiles: it says the bot plays at 0-ply, and when the search is ready."""

from __future__ import annotations

import asyncio
import io
import sys
from types import SimpleNamespace

from fibsbot.console import Console
from fibsbot.daemon import _announce_start
from fibsbot.warmup import SearchWarmup
from tests.test_warmup import cache, writer  # noqa: F401  cache is a fixture


def console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console("bot", out, timestamps=False, colours=False), out


def said(out: io.StringIO) -> list[str]:
    return [line.split("] ", 1)[1] for line in out.getvalue().splitlines()]


async def test_the_console_says_zero_ply_while_the_search_compiles_then_that_it_is_ready(cache, tmp_path):  # noqa: F811
    warm = SearchWarmup("net:default@2", command=writer(0.3)).start()
    c, out = console()
    task = _announce_start(c, SimpleNamespace(data_dir=tmp_path), "net:default@2", warm, 2)
    assert said(out) == [
        f"starting: net:default@2, records in {tmp_path}",
        f"playing at 0-ply while the 2-ply search compiles (in the background, pid {warm.proc.pid}, once per install)",
    ]
    assert task is not None
    await asyncio.wait_for(task, 60)
    assert len(said(out)) == 3 and said(out)[2].startswith("the 2-ply search is ready after ")
    assert said(out)[2].endswith(": moves at 2-ply from now")
    assert warm() and len(said(out)) == 3  # said once


async def test_a_failed_warmup_is_a_warning_on_the_console(cache, tmp_path):  # noqa: F811
    warm = SearchWarmup("net:default@2", command=[sys.executable, "-c", "raise SystemExit(3)"]).start()
    c, out = console()
    await asyncio.wait_for(_announce_start(c, SimpleNamespace(data_dir=tmp_path), "x", warm, 2), 60)
    assert "[warning  ] the search warm-up failed" in out.getvalue()


def test_a_cached_search_adds_no_warmup_line(cache, tmp_path):  # noqa: F811
    from fibsbot.warmup import marker_path

    cache.mkdir(parents=True)
    marker_path().write_text("{}")
    warm = SearchWarmup("net:default@2", command=writer(0.0)).start()
    c, out = console()
    assert _announce_start(c, SimpleNamespace(data_dir=tmp_path), "net:default@2", warm, 2) is None
    assert said(out) == [f"starting: net:default@2, records in {tmp_path}"]
