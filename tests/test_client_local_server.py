"""Two bots play each other on the local FIBS-style server (``fibsbot.server``)."""

from __future__ import annotations

import asyncio
import random

import pytest

from fibsbot.client.connection import BotClient
from fibsbot.client.options import Backoff, ClientOptions
from fibsbot.client.policy import Policy, PolicySettings
from fibsbot.protocol.match.outputs import NullObserver
from tests.fake_agent import FakeAgent

testing = pytest.importorskip("fibsbot.server.testing", reason="the local server is not available")

FAST = Backoff(initial_s=0.05, factor=2.0, max_s=0.5, jitter=0.5)


class Log(NullObserver):
    def __init__(self) -> None:
        self.decisions: list[tuple[str, list[str]]] = []
        self.errors: list[str] = []

    def on_event(self, event, snapshot) -> None:
        if type(event).__name__ in ("ServerError", "BadBoard"):
            self.errors.append(repr(event))

    def on_decision(self, request, answer, commands) -> None:
        self.decisions.append((request.kind, [c.text for c in commands]))


def bot(port: int, name: str, agent: FakeAgent, log: Log, **policy) -> BotClient:
    settings = PolicySettings(user=name, min_length=1, max_length=7, **policy)
    options = ClientOptions(backoff=FAST, roll_delay_s=0.3, board_delay_s=2.0, max_matches=1)
    return BotClient(
        "127.0.0.1", port, name, f"pw-{name}", agent, Policy(settings), [log], options=options, rng=random.Random(name)
    )


async def test_two_bots_play_a_match_with_the_cube():
    async with testing.run_local_server(seed=3) as (host, port, core):
        alice_log, bob_log = Log(), Log()
        alice = bot(port, "alice", FakeAgent(double=True), alice_log, admins=frozenset({"root"}))
        bob = bot(port, "bob", FakeAgent(double=False, take=True), bob_log)
        tasks = [asyncio.create_task(alice.run()), asyncio.create_task(bob.run())]
        while not (alice.logged_in and bob.logged_in):
            await asyncio.sleep(0.02)
        root = await testing.ClipTestClient.connect(host, port)
        assert await root.login("root", "pw-root")
        root.send("tell alice invite bob 3")
        done, _ = await asyncio.wait(tasks, timeout=60)
        root.close()
        for client in (alice, bob):
            client.stop()
        await asyncio.wait(tasks, timeout=5)
        assert len(done) == 2, (alice.status_text(), bob.status_text())
        assert alice.driver.matches_finished == bob.driver.matches_finished == 1
        kinds = [kind for kind, _ in alice_log.decisions]
        assert "move" in kinds and "double" in kinds  # alice doubles whenever she may
        assert "take" in [kind for kind, _ in bob_log.decisions]
        refused = [e for e in alice_log.errors + bob_log.errors if "can't" in e.lower()]
        assert refused == []


class CuttableProxy:
    """A TCP relay in front of the server whose connections can be cut, like a network drop."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.pipes: list[asyncio.StreamWriter] = []

    async def __aenter__(self) -> CuttableProxy:
        self.server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc) -> None:
        self.cut()
        self.server.close()

    def cut(self) -> None:
        for writer in self.pipes:
            writer.transport.abort()
        self.pipes.clear()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        self.pipes += [writer, up_writer]

        async def pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            try:
                while data := await source.read(4096):
                    sink.write(data)
            except ConnectionError:
                pass
            finally:
                sink.transport.abort()

        await asyncio.gather(pump(reader, up_writer), pump(up_reader, writer))


async def test_a_bot_that_drops_mid_match_resumes_it_after_reconnecting():
    async with testing.run_local_server(seed=5) as (host, port, core):
        async with CuttableProxy(port) as proxy:
            alice_log, bob_log = Log(), Log()
            alice = bot(proxy.port, "alice", FakeAgent(), alice_log, admins=frozenset({"root"}))
            bob = bot(port, "bob", FakeAgent(), bob_log)
            tasks = [asyncio.create_task(alice.run()), asyncio.create_task(bob.run())]
            while not (alice.logged_in and bob.logged_in):
                await asyncio.sleep(0.02)
            root = await testing.ClipTestClient.connect(host, port)
            assert await root.login("root", "pw-root")
            root.send("tell alice invite bob 5")
            while len([k for k, _ in alice_log.decisions if k == "move"]) < 4:
                await asyncio.sleep(0.005)
            proxy.cut()  # alice's connection drops mid-game
            done, _ = await asyncio.wait(tasks, timeout=60)
            root.close()
            for client in (alice, bob):
                client.stop()
            await asyncio.wait(tasks, timeout=5)
            assert len(done) == 2, (alice.status_text(), bob.status_text())
            assert alice.connections == 2  # reconnected once
            assert alice.driver.matches_finished == bob.driver.matches_finished == 1
            assert core.saved_match("alice", "bob") is None  # the saved match was played out
