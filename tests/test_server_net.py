"""The server over real TCP with telnetlib3 clients: connecting, logging in, timeouts,
and telnet negotiation."""

from __future__ import annotations

import asyncio
import time

import pytest

from fibsbot.protocol.parser import (
    Banner,
    Board,
    ConnectionTimedOut,
    Invitation,
    JoinInstructions,
    LoginFailed,
    LoginPrompt,
    MatchStart,
    OwnInfo,
    PasswordPrompt,
    Welcome,
    WhoEnd,
)
from fibsbot.server.telnet import DO, DONT, ECHO, IAC, SB, SE, WILL, WONT, TelnetFilter
from fibsbot.server.testing import ClipTestClient, run_local_server

TTYPE, NAWS = 24, 31


# --- the telnet filter (sans-IO) -------------------------------------------------------------


def test_filter_strips_negotiation_and_refuses_options():
    telnet = TelnetFilter()
    data, replies = telnet.feed(bytes([IAC, WILL, TTYPE]) + b"lo" + bytes([IAC, DO, NAWS]) + b"gin\r\n")
    assert data == b"login\r\n"
    assert replies == bytes([IAC, DONT, TTYPE, IAC, WONT, NAWS])


def test_filter_handles_subnegotiation_escapes_and_split_sequences():
    telnet = TelnetFilter()
    stream = bytes([IAC, SB, TTYPE, 0]) + b"xterm" + bytes([IAC, SE]) + b"a" + bytes([IAC, IAC]) + b"b"
    stream += bytes([IAC, DO, ECHO, IAC, DONT, ECHO, IAC, WONT, TTYPE])  # answers to us: no reply
    pieces = [stream[i : i + 1] for i in range(len(stream))]  # one byte at a time
    results = [telnet.feed(piece) for piece in pieces]
    assert b"".join(d for d, _ in results) == b"a\xffb"
    assert b"".join(r for _, r in results) == b""


# --- over TCP ----------------------------------------------------------------------------------


async def test_connect_is_fast_and_login_works():
    async with run_local_server(seed=1) as (host, port, core):
        started = time.perf_counter()
        client = await ClipTestClient.connect(host, port)
        assert client.connect_seconds < 0.5
        assert await client.login("alice", "secret")
        elapsed = time.perf_counter() - started
        assert elapsed < 0.5, f"connect and login took {elapsed:.2f} s"
        kinds = [type(e) for e in client.events]
        assert kinds[:4] == [Banner, LoginPrompt, Welcome, OwnInfo] and kinds[-1] is WhoEnd
        assert core.online == {"alice": core.online["alice"]}
        client.close()


async def test_failed_login_then_retry_on_the_same_connection():
    async with run_local_server() as (host, port, core):
        core.accounts.create("alice", "right")
        client = await ClipTestClient.connect(host, port)
        await client.expect(LoginPrompt)
        client.parser.expect_login_result()
        client.send("login fibsbot_test 1008 alice wrong")
        assert isinstance(await client.next_event(), LoginFailed)
        client.parser.expect_login_result()
        client.send("login fibsbot_test 1008 alice right")
        assert isinstance(await client.expect(Welcome), Welcome)
        await client.expect(WhoEnd)
        client.close()


async def test_guest_registration_over_telnet_echo():
    async with run_local_server() as (host, port, core):
        client = await ClipTestClient.connect(host, port)
        await client.expect(LoginPrompt)
        client.send("guest")
        client.send("name carol")
        await client.expect(PasswordPrompt)
        client.send("secret1")
        await client.expect(PasswordPrompt)
        client.send("secret1")
        client.send("bye")
        await client.until_closed()
        assert core.accounts.get("carol").password_matches("secret1")
        again = await ClipTestClient.connect(host, port)
        assert await again.login("carol", "secret1")
        again.close()


async def test_a_negotiating_raw_client_gets_refusals_and_no_delay():
    async with run_local_server() as (host, port, core):
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(bytes([IAC, WILL, TTYPE, IAC, DO, NAWS]) + b"login raw 1008 dave pw\r\n")
        received = b""
        deadline = time.monotonic() + 2
        while b"\r\n6\r\n" not in received and time.monotonic() < deadline:
            received += await asyncio.wait_for(reader.read(4096), 2)
        assert bytes([IAC, DONT, TTYPE]) in received and bytes([IAC, WONT, NAWS]) in received
        assert b"1 dave " in received and received.rstrip().endswith(b"6")
        writer.close()


async def test_idle_connection_times_out():
    async with run_local_server(idle_timeout=0.3) as (host, port, core):
        client = await ClipTestClient.connect(host, port)
        started = time.perf_counter()  # before the last input the server sees
        assert await client.login("alice", "pw")
        await client.expect(ConnectionTimedOut, timeout=3)
        await client.until_closed(timeout=3)
        assert 0.28 < time.perf_counter() - started < 2.0
        assert "alice" not in core.online


async def test_invite_and_join_over_tcp():
    async with run_local_server(seed=5) as (host, port, core):
        alice, bob = await ClipTestClient.connect(host, port), await ClipTestClient.connect(host, port)
        assert await alice.login("alice", "pw") and await bob.login("bob", "pw")
        alice.send("invite bob 3")
        assert await bob.expect(Invitation) == Invitation(player="alice", length=3, resume=False)
        await bob.expect(JoinInstructions)
        bob.send("join alice")
        assert await bob.expect(MatchStart) == MatchStart(opponent="alice", length=3, we_joined=True)
        assert await alice.expect(MatchStart) == MatchStart(opponent="bob", length=3, we_joined=False)
        boards = [(await alice.expect(Board)).board, (await bob.expect(Board)).board]
        assert boards[0].board == boards[1].board and boards[0].colour == -boards[1].colour
        assert boards[0].is_our_turn != boards[1].is_our_turn
        alice.close()
        bob.close()


@pytest.mark.parametrize("bad", [b"\xff\xfb", b"\xc3\x28 garbage \x00\r\n", b"x" * 70000 + b"\r\n"])
async def test_garbage_input_does_not_kill_the_server(bad):
    async with run_local_server() as (host, port, core):
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(bad)
        await writer.drain()
        good = await ClipTestClient.connect(host, port)
        assert await good.login("alice", "pw")
        writer.close()
        good.close()
