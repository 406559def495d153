"""The network client against a FIBS-speaking fake server on the loopback."""

from __future__ import annotations

import asyncio
import random

import pytest
from pydantic import SecretStr

from fibsbot.client.connection import BotClient, run_bot
from fibsbot.client.options import Backoff, ClientOptions, resolve_password, toggles_to_send
from fibsbot.client.policy import Policy, PolicySettings
from fibsbot.protocol.match.outputs import NullObserver
from tests.fake_agent import FakeAgent
from tests.fake_fibs import FakeFibs

FAST = Backoff(initial_s=0.05, factor=2.0, max_s=0.5, jitter=0.5)


class Recorder(NullObserver):
    def __init__(self) -> None:
        self.events: list = []
        self.decisions: list = []

    def on_event(self, event, snapshot) -> None:
        self.events.append(type(event).__name__)

    def on_decision(self, request, answer, commands) -> None:
        self.decisions.append((request.kind, [c.text for c in commands]))


class Broken(NullObserver):
    def on_event(self, event, snapshot) -> None:
        raise RuntimeError("records must not break the bot")


def make_client(server: FakeFibs, *, password="secret", agent=None, observers=(), **options) -> BotClient:
    options.setdefault("backoff", FAST)
    policy = Policy(PolicySettings(user="bot", min_length=1, max_length=7, reply_interval_s=0))
    return BotClient(
        "127.0.0.1",
        server.port,
        "bot",
        password,
        agent or FakeAgent(),
        policy,
        observers,
        options=ClientOptions(**options),
        rng=random.Random(1),
    )


async def running(client: BotClient) -> asyncio.Task:
    return asyncio.create_task(client.run())


async def finish(client: BotClient, task: asyncio.Task) -> None:
    client.stop()
    await asyncio.wait_for(task, 5)


async def test_login_handshake_board_style_and_only_the_differing_toggles():
    async with FakeFibs() as server:
        client = make_client(server)
        task = await running(client)
        await server.wait_line("set boardstyle 3")
        login = server.received[0]
        assert login == "login fibsbot 1008 bot secret"
        # own info had moves 1, notify 0, ready 0, silent 0 (and moreboards 1): flip just those
        await server.wait_line("toggle silent")
        toggles = [line for line in server.received if line.startswith("toggle")]
        assert toggles == ["toggle moves", "toggle notify", "toggle ready", "toggle silent"]
        assert client.logged_in
        await finish(client, task)
        assert server.received[-1] == "bye"


def test_toggles_compare_before_flipping():
    assert toggles_to_send({"ready": True, "moves": False}, {"ready": True, "moves": False}) == []
    assert toggles_to_send({"ready": False, "away": True}, {"ready": True, "away": False}) == [
        "toggle ready",
        "toggle away",
    ]


def test_password_sources_and_checks():
    assert resolve_password(SecretStr("pw")) == "pw"
    assert resolve_password(lambda: SecretStr("pw2")) == "pw2"
    with pytest.raises(ValueError) as info:
        resolve_password("two words")
    assert "two words" not in str(info.value)  # never show the password


async def test_failed_login_disconnects_backs_off_and_retries(capsys):
    attempts = iter(["wrong", "wrong", "secret"])
    async with FakeFibs() as server:
        client = make_client(server, password=lambda: next(attempts))
        task = await running(client)
        await server.wait_line("set boardstyle 3", timeout=10)
        assert server.logins == 1 and client.connections == 3
        logins = [line for line in server.received if line.startswith("login")]
        assert logins == ["login fibsbot 1008 bot wrong"] * 2 + ["login fibsbot 1008 bot secret"]
        gaps = [b - a for a, b in zip(server.connect_times, server.connect_times[1:])]
        assert gaps[0] >= 0.025 and gaps[1] >= 0.05  # (1 - jitter) * 0.05, then * 0.1
        await finish(client, task)
    assert "wrong" not in capsys.readouterr().out  # the password is never logged


async def test_reconnects_after_the_server_refuses_connections():
    async with FakeFibs() as server:
        port = server.port
    # nothing listens on the port now: attempts fail and back off
    policy = Policy(PolicySettings(user="bot"))
    client = BotClient(
        "127.0.0.1",
        port,
        "bot",
        "pw",
        FakeAgent(),
        policy,
        options=ClientOptions(backoff=FAST, connect_timeout_s=1),
        rng=random.Random(1),
    )
    task = asyncio.create_task(client.run())
    await asyncio.sleep(0.4)
    await finish(client, task)
    assert client.connections == 0 and not client.logged_in


async def test_invitations_follow_the_policy_and_tells_get_a_reply():
    async with FakeFibs() as server:
        client = make_client(server)
        task = await running(client)
        await server.wait_line("set boardstyle 3")
        mark = len(server.received)
        server.invite("alice", 9)
        await server.wait_line(r"tell alice Sorry, I play 1 to 7 point matches\.", after=mark)
        server.push("12 carol hello bot\r\n")
        await server.wait_line(r"tell carol Hi, I am bot, a backgammon bot.*", after=mark)
        assert not any(line.startswith("join") for line in server.received)
        await finish(client, task)


async def test_a_full_short_match_against_the_fake_server():
    recorder = Recorder()
    async with FakeFibs(seed=11) as server:
        client = make_client(server, observers=[recorder, Broken()], max_matches=1)
        task = await running(client)
        await server.wait_line("set boardstyle 3")
        server.invite("bob", 1)
        await server.wait_line("join bob")
        await asyncio.wait_for(task, 20)  # max_matches=1: the client stops by itself
        game = server.game
        assert game is not None and game.over and game.bot_moves > 5
        assert client.driver.matches_finished == 1
        assert not any(line.startswith("** You can't") for line in server.received)
        moves = [line for line in server.received if line.startswith("move ")]
        assert len(moves) == game.bot_moves  # every move the bot sent was legal
        assert [kind for kind, _ in recorder.decisions] == ["move"] * len(moves)
        assert "MatchEnd" in recorder.events and "Board" in recorder.events


async def test_agent_thinks_in_an_executor_while_reading_goes_on():
    agent = FakeAgent(delay_s=0.4)
    async with FakeFibs(seed=3) as server:
        client = make_client(server, agent=agent)
        task = await running(client)
        await server.wait_line("set boardstyle 3")
        server.invite("bob", 1)
        await server.wait_line("join bob")
        while not agent.calls:
            await asyncio.sleep(0.01)
        mark = len(server.received)
        server.push("12 carol are you there?\r\n")
        await server.wait_line("tell carol .*", after=mark)  # answered while the agent thinks
        first_move = await server.wait_line("move .*", after=mark)
        assert server.received.index(first_move) > server.received.index(
            next(line for line in server.received[mark:] if line.startswith("tell carol"))
        )
        assert agent.threads and all(name.startswith("fibsbot-agent") for name in agent.threads)
        await finish(client, task)


async def _a_match_through_one_drop(server: FakeFibs) -> BotClient:
    """A one-point match whose connection the server drops at the third move, played on."""
    client = make_client(server, max_matches=1)
    task = await running(client)
    await server.wait_line("set boardstyle 3")
    server.invite("bob", 1)
    await server.wait_line("join bob")
    await server.wait_line("invite bob", timeout=10)  # after the drop and the new login
    await asyncio.wait_for(task, 20)
    return client


async def test_dropped_connection_mid_game_is_resumed_after_reconnect():
    async with FakeFibs(seed=5, drop_at_move=3) as server:
        client = await _a_match_through_one_drop(server)
        assert server.logins == 2 and server.game is not None and server.game.over
        assert client.driver.matches_finished == 1 and client.driver.saved_opponent is None


async def test_keepalive_when_idle():
    async with FakeFibs() as server:
        client = make_client(server, keepalive_s=0.2)
        task = await running(client)
        await server.wait_line("set boardstyle 3")
        mark = len(server.received)
        await server.wait_line("time", after=mark, timeout=2)
        await finish(client, task)


async def test_silent_server_times_out_the_login_and_retries():
    async def mute(reader, writer):
        await asyncio.sleep(5)

    server = await asyncio.start_server(mute, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    policy = Policy(PolicySettings(user="bot"))
    client = BotClient(
        "127.0.0.1",
        port,
        "bot",
        "pw",
        FakeAgent(),
        policy,
        options=ClientOptions(backoff=FAST, login_timeout_s=0.2),
        rng=random.Random(2),
    )
    task = asyncio.create_task(client.run())
    await asyncio.sleep(0.8)
    await finish(client, task)
    server.close()
    assert client.connections >= 2 and not client.logged_in


async def test_run_bot_stops_on_the_event():
    async with FakeFibs() as server:
        stop = asyncio.Event()
        policy = Policy(PolicySettings(user="bot"))
        task = asyncio.create_task(
            run_bot(
                "127.0.0.1",
                server.port,
                "bot",
                SecretStr("secret"),
                FakeAgent(),
                policy,
                stop_event=stop,
                options=ClientOptions(backoff=FAST),
            )
        )
        await server.wait_line("set boardstyle 3")
        stop.set()
        client = await asyncio.wait_for(task, 5)
        assert isinstance(client, BotClient) and "secret" not in repr(client)
        assert server.received[-1] == "bye"


async def test_unusable_password_source_stops_the_client_without_retrying():
    from fibsbot.client.connection import LoginConfigError

    async with FakeFibs() as server:
        client = make_client(server, password=lambda: "has space")
        with pytest.raises(LoginConfigError) as info:
            await asyncio.wait_for(client.run(), 5)
        assert "has space" not in str(info.value) and client.connections == 1


class Wire(NullObserver):
    def __init__(self) -> None:
        self.received: list[str] = []
        self.sent: list[str] = []

    def on_received(self, line: str) -> None:
        self.received.append(line)

    def on_sent(self, command: str) -> None:
        self.sent.append(command)


async def test_wire_observers_see_lines_with_the_password_masked():
    wire = Wire()
    async with FakeFibs() as server:
        client = make_client(server, observers=[wire])
        task = await running(client)
        await server.wait_line("set boardstyle 3")
        await finish(client, task)
    assert wire.sent[0] == "login fibsbot 1008 bot ********" and "set boardstyle 3" in wire.sent
    assert wire.received[1] == "FIBS-like test server" and "6" in wire.received  # CLIP 6: who ends
    assert not any("secret" in line for line in wire.sent + wire.received)


async def test_a_client_built_from_the_settings_logs_in(monkeypatch):
    from fibsbot.client.settings import bot_client, policy_settings
    from fibsbot.config import Settings

    monkeypatch.setenv("FIBSBOT_PASSWORD", "secret")
    async with FakeFibs() as server:
        settings = Settings(
            server={
                "host": "127.0.0.1",
                "port": server.port,
                "user": "bot",
                "reconnect_backoff_base": 0.05,
                "keepalive_interval": 60,
            },
            invitations={"min_length": 3, "max_length": 5, "deny": ["mallory"]},
            admins=["root"],
        )
        policy = policy_settings(settings)
        assert (policy.user, policy.min_length, policy.max_length) == ("bot", 3, 5)
        assert policy.deny == {"mallory"} and policy.admins == {"root"}
        client = bot_client(settings, FakeAgent())
        assert client.options.keepalive_s == 60 and client.options.backoff.initial_s == 0.05
        task = await running(client)
        await server.wait_line("set boardstyle 3")
        assert server.received[0] == "login fibsbot 1008 bot secret"
        await finish(client, task)


async def test_a_dropped_connection_leaves_none_of_its_timers_behind():
    # a year of reconnects: the timers the lost connection had armed are cancelled, and
    # none of them may stay referenced by the client that lives on
    async with FakeFibs(seed=5, drop_at_move=3) as server:
        client = await _a_match_through_one_drop(server)
        assert server.logins == 2
        assert [handle for handle in client._timers.values() if handle.cancelled()] == []
