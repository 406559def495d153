"""A server that keeps the connection open and stops answering counts as a lost connection.

The rule (``fibsbot.client.silence``) on a fake clock, then the bot against servers that
hang: ``FakeFibs`` right after the login and while idle, and the local server
(``FibsServer.silence``) in the middle of a match against a sparring bot, which must be
saved and resumed as after any drop.  Each live test bounds its waits, so the code
before the rule (which waited for the kernel to give up) fails in seconds, not hangs.
"""

from __future__ import annotations

import asyncio
import io
import random
import re

import pytest
from structlog.testing import capture_logs

from fibsbot.client.connection import BotClient
from fibsbot.client.options import Backoff, ClientOptions
from fibsbot.client.policy import Policy, PolicySettings
from fibsbot.client.silence import ServerSilent, SilenceWatch
from fibsbot.config import ConfigError, Settings, load_settings
from fibsbot.console import Console
from fibsbot.protocol.match.outputs import NullObserver
from fibsbot.server import ServerConfig, ServerCore
from fibsbot.server.net import start_server
from fibsbot.server.testing import ClipTestClient
from tests.fake_agent import FakeAgent
from tests.fake_fibs import FakeFibs

FAST = Backoff(initial_s=0.05, factor=2.0, max_s=0.5, jitter=0.5)
BOUND = 1.0  # the silence bound of the live tests


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def watch(keepalive_s: float = 600.0, silence_s: float = 180.0) -> tuple[SilenceWatch, Clock]:
    clock = Clock()
    return SilenceWatch(keepalive_s=keepalive_s, silence_s=silence_s, clock=clock), clock


# --- the rule ---------------------------------------------------------------------------


def test_a_command_unanswered_for_the_bound_is_silence_and_any_byte_answers_it():
    silence, clock = watch()
    silence.sent()
    clock.now += 179.9
    assert not silence.silent()
    silence.received()  # anything at all from the server, not only the reply
    clock.now += 179.9
    assert not silence.silent()  # nothing waits for a reply any more
    silence.sent()
    clock.now += 100
    silence.sent()  # the oldest unanswered command counts, not the newest
    clock.now += 80
    assert silence.silent() and silence.unanswered_s() == pytest.approx(180)
    assert silence.quiet_s() == pytest.approx(179.9 + 180)
    error = silence.silence()
    assert isinstance(error, ServerSilent) and isinstance(error, TimeoutError)
    assert str(error) == "the server sent nothing for 360 s and left a command unanswered for 180 s"


def test_a_quiet_server_is_asked_once_halfway_and_again_after_it_answers():
    silence, clock = watch()
    clock.now += 89.9
    assert not silence.keepalive_due()
    clock.now += 0.1
    assert silence.keepalive_due()  # nothing for half the bound: ask, whatever waits
    silence.sent()
    silence.keepalive_sent()
    clock.now += 60
    assert not silence.keepalive_due()  # asked already; its answer is awaited
    clock.now += 119.9
    assert not silence.silent()
    clock.now += 0.1
    assert silence.silent()  # the keepalive itself unanswered for the bound
    silence.received()
    clock.now += 90
    assert silence.keepalive_due()


def test_the_keepalive_goes_out_after_the_interval_without_sending_even_to_a_chatty_server():
    silence, clock = watch(keepalive_s=600.0)
    for _ in range(10):
        clock.now += 60
        silence.received()
    assert silence.keepalive_due()
    silence.sent()
    assert not silence.keepalive_due()


def test_the_watch_looks_again_within_half_the_bound_so_a_new_command_is_timed_from_its_send():
    silence, clock = watch(keepalive_s=600.0, silence_s=180.0)
    silence.sent()
    silence.keepalive_sent()
    assert silence.next_check_s() == pytest.approx(90)  # the cap: a send meanwhile starts its own count
    clock.now += 150
    assert silence.next_check_s() == pytest.approx(30)  # the bound of the command sent at 100
    clock.now += 30
    assert silence.next_check_s() == 0.0 and silence.silent()


def test_bounds_must_be_positive():
    clock = Clock()
    with pytest.raises(ValueError):
        SilenceWatch(keepalive_s=600.0, silence_s=0.0, clock=clock)
    with pytest.raises(ValueError, match="silence_timeout_s"):
        ClientOptions(silence_timeout_s=0)


def test_the_setting_has_its_default_is_checked_and_reaches_the_client(tmp_path, monkeypatch):
    from fibsbot.client.settings import client_options

    monkeypatch.delenv("FIBSBOT_SERVER__SILENCE_TIMEOUT", raising=False)
    assert Settings().server.silence_timeout == 180.0 == ClientOptions().silence_timeout_s
    path = tmp_path / "fibsbot.toml"
    path.write_text("[server]\nsilence_timeout = 0\n")
    with pytest.raises(ConfigError, match="silence_timeout"):
        load_settings(path)
    path.write_text("[server]\nsilence_timeout = 45.5\n")
    assert client_options(load_settings(path)).silence_timeout_s == 45.5


# --- against servers that hang ------------------------------------------------------------


def fake_client(server: FakeFibs, observers=()) -> BotClient:
    policy = Policy(PolicySettings(user="bot", min_length=1, max_length=7, reply_interval_s=0))
    options = ClientOptions(backoff=FAST, silence_timeout_s=BOUND, keepalive_s=60.0)
    return BotClient("127.0.0.1", server.port, "bot", "secret", FakeAgent(), policy, observers, options=options)


async def until(condition, timeout: float) -> None:
    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.02)

    await asyncio.wait_for(poll(), timeout)


async def stop(client: BotClient, task: asyncio.Task) -> None:
    client.stop()
    await asyncio.wait_for(task, 5)


async def test_a_server_silent_right_after_the_login_is_dropped_and_logged_in_again():
    stream = io.StringIO()
    console = Console("bot", stream, timestamps=False, colours=False)
    async with FakeFibs(silent_after_login=True) as server:
        client = fake_client(server, [console])
        with capture_logs() as logs:
            task = asyncio.create_task(client.run())
            try:
                await until(lambda: server.logins == 2 and client.logged_in, 3 * BOUND + 3)
            finally:
                await stop(client, task)
    assert client.connections == 2
    silent = [line for line in logs if line["event"] == "server_silent"]
    assert len(silent) == 1 and silent[0]["seconds"] >= BOUND and silent[0]["log_level"] == "warning"
    # the login's toggles went unanswered, and so did the keepalive asked halfway
    first_connection = server.received[: server.received.index("login fibsbot 1008 bot secret", 1)]
    assert "set boardstyle 3" in first_connection and "time" in first_connection
    lines = stream.getvalue().splitlines()
    lost = [line for line in lines if "connection lost" in line]
    assert len(lost) == 1
    assert re.fullmatch(
        r"\[warning  \] connection lost: the server sent nothing for \d+ s "
        r"and left a command unanswered for \d+ s; reconnecting",
        lost[0],
    )
    assert lines.count("[info     ] logged in as bot") == 2


async def test_an_idle_bot_asks_a_quiet_server_and_drops_it_once_it_goes_silent():
    async with FakeFibs() as server:
        client = fake_client(server)
        task = asyncio.create_task(client.run())
        try:
            await server.wait_line("time", timeout=BOUND + 3)  # asked halfway: the fake answers it
            await asyncio.sleep(2 * BOUND)
            assert client.connections == 1  # a server that answers the keepalive is not silent
            mark = len(server.received)
            server.silence()  # idle, nothing of ours waits for a reply
            await server.wait_line("time", after=mark, timeout=BOUND + 2)
            await until(lambda: server.logins == 2 and client.logged_in, 2 * BOUND + 3)
        finally:
            await stop(client, task)
    assert client.connections == 2


class Log(NullObserver):
    def __init__(self) -> None:
        self.events: list[str] = []
        self.moves = 0

    def on_event(self, event, snapshot) -> None:
        self.events.append(type(event).__name__)

    def on_decision(self, request, answer, commands) -> None:
        self.moves += request.kind == "move"


def local_bot(port: int, name: str, log: Log, **policy) -> BotClient:
    settings = PolicySettings(user=name, min_length=1, max_length=7, **policy)
    options = ClientOptions(
        backoff=FAST, roll_delay_s=0.3, board_delay_s=2.0, max_matches=1, silence_timeout_s=BOUND, keepalive_s=60.0
    )
    return BotClient(
        "127.0.0.1",
        port,
        name,
        f"pw-{name}",
        FakeAgent(),
        Policy(settings),
        [log],
        options=options,
        rng=random.Random(name),
    )


async def test_a_server_silent_mid_match_is_dropped_and_the_match_saved_and_resumed():
    core = ServerCore(ServerConfig(idle_timeout=None, new_account_toggles={"ready": True}), seed=5)
    server = await start_server(core, "127.0.0.1", 0)
    alice_log, bob_log = Log(), Log()
    alice = local_bot(server.port, "alice", alice_log, admins=frozenset({"root"}))
    bob = local_bot(server.port, "bob", bob_log)
    tasks = [asyncio.create_task(alice.run()), asyncio.create_task(bob.run())]
    try:
        await until(lambda: alice.logged_in and bob.logged_in, 10)
        root = await ClipTestClient.connect(server.host, server.port)
        assert await root.login("root", "pw-root")
        root.send("tell alice invite bob 5")
        await until(lambda: alice_log.moves >= 4, 30)
        assert alice.connections == 1 and "alice" in core.matches
        with capture_logs() as logs:
            assert server.silence("alice")  # the server hangs for alice; bob is served on
            await until(lambda: alice.connections == 2, 3 * BOUND + 3)
        assert [line["event"] for line in logs].count("server_silent") == 1
        done, _ = await asyncio.wait(tasks, timeout=60)
        root.close()
        assert len(done) == 2, (alice.status_text(), bob.status_text())
    finally:
        for client in (alice, bob):
            client.stop()
        await asyncio.wait(tasks, timeout=5)
        await server.close()
    assert alice.driver.matches_finished == bob.driver.matches_finished == 1
    assert "GameSaved" in bob_log.events  # the server saved it when alice's connection ended
    assert "MatchResumed" in alice_log.events
    assert core.saved_match("alice", "bob") is None and len(core.finished) == 1
