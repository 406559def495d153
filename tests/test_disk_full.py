"""The daemon with its data directory's disk full in the middle of a match.

Root in a container ignores permissions, so the full disk is the writers' fault hook
(``fibsbot.records.space.fill``): every write under the data directory fails with
ENOSPC, as on a full file system.  The bot must finish the match, keep every record it
had, refuse new invitations with a tell, say why once, and go on when space returns.
"""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

from fibsbot.config import load_settings
from fibsbot.console import Console
from fibsbot.daemon import prepare_logging, run_daemon
from fibsbot.protocol.events import MatchStart, Says
from fibsbot.records.space import fill
from fibsbot.server.testing import ClipTestClient, run_local_server
from nets import logfiles
from tests.test_daemon import sparring_client, write_config

PASSWORD = "disk-full-Horse"


def _journal(data: Path) -> dict | None:
    found = sorted((data / "matches").glob("*.journal.json"))
    return json.loads(found[-1].read_text()) if found else None


async def _until(condition, timeout: float = 60.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.05)


async def _tell_from(client: ClipTestClient, name: str, timeout: float = 10.0) -> str:
    while True:
        event = await client.next_event(timeout)
        if isinstance(event, Says) and event.name == name:
            return event.text


async def test_a_full_disk_mid_match_loses_nothing_and_play_goes_on_when_space_returns(tmp_path, monkeypatch):
    monkeypatch.setenv("FIBSBOT_PASSWORD", PASSWORD)
    data = tmp_path / "data"
    console_text = io.StringIO()
    async with run_local_server(seed=8) as (host, port, core):
        settings = load_settings(write_config(tmp_path, port))
        prepare_logging(settings)
        stop = asyncio.Event()
        console = Console("daemonbot", console_text, timestamps=False, colours=False)
        daemon = asyncio.create_task(run_daemon(settings, stop, console=console))
        sparring = sparring_client(host, port, 0.1)
        match = asyncio.create_task(sparring.run())
        referee = await ClipTestClient.connect(host, port)
        assert await referee.login("referee", "pw")
        await asyncio.sleep(0.5)
        referee.send("tell sparring invite daemonbot 3")
        await _until(lambda: (_journal(data) or {}).get("actions", []).__len__() >= 6)

        with fill(lambda path: data in path.parents):
            before = _journal(data)
            await asyncio.wait_for(match, 120)  # the match is played to its end with nothing written
            on_disk = _journal(data)
            assert on_disk == before  # what was written stays as it was: whole, unchanged
            newcomer = await ClipTestClient.connect(host, port)
            assert await newcomer.login("newcomer", "pw")
            newcomer.send("invite daemonbot 1")
            refusal = await _tell_from(newcomer, "daemonbot")
            assert "disk is full" in refusal
            newcomer.send("invite daemonbot 1")  # a second refusal is not said again on the console
            await asyncio.sleep(1.0)
        full_lines = [line for line in console_text.getvalue().splitlines() if "the disk is full" in line]
        assert len(full_lines) == 1 and "refused" in full_lines[0]

        # space is back: the next invitation finds it, writes what waited and is accepted
        newcomer.send("invite daemonbot 1")
        await newcomer.expect(MatchStart, timeout=10.0)
        stop.set()
        await asyncio.wait_for(daemon, 20)
        referee.close()
        newcomer.close()

    finished = json.loads(sorted((data / "matches").glob("*.journal.json"))[0].read_text())
    assert finished["status"] == "finished" and finished["actions"][-1][0] == "end"
    assert finished["actions"][: len(before["actions"])] == before["actions"]  # nothing lost, nothing rewritten
    mat = (data / "matches" / finished["header"]["mat"]).read_text()
    assert mat.count("Wins") >= 1 and max(finished["actions"][-1][1:]) >= 3
    assert "disk space is back" in console_text.getvalue()
    # the log lines of the full spell waited in memory and came to the file
    events = [json.loads(line).get("event") for line in logfiles.lines(logfiles.log_files(data / "log"))]
    assert "match_end" in events and "disk_space_back" in events
