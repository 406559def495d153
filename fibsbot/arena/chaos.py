"""``fibsbot arena --chaos``: matches on the local server while faults are injected.

The daemon runs as it does in production (``fibsbot run``, its own process) against
the local server; a sparring bot and a referee run in this process.  During each
match, at random moments, the chaos driver

* drops the daemon's connection (the server cuts it, as a network fault would),
* SIGKILLs the daemon and starts it again (nothing is flushed, nothing said),
* makes the sparring bot log out the moment it wins the match (the server is set to
  send the match-end line a moment later, so the daemon never gets it),
* has players talk to the daemon, before each match and during it, so that it answers
  with tells whose echo the server sends without a line end, glued to the next line the
  daemon gets (as a foreign server did with a match's start line).

Afterwards every match must have ended or be resumable, and its records are audited
(``fibsbot.arena.chaos_report``).
"""

from __future__ import annotations

import asyncio
import os
import random
import secrets
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from fibsbot.arena.chaos_report import ChaosResult, audit_chaos, print_chaos
from fibsbot.arena.play import BOT, REFEREE, SPARRING, _client, log_cap_bytes
from fibsbot.arena.sparring import PubevalSparring
from fibsbot.client.policy import PolicySettings
from fibsbot.protocol.match.outputs import MoveRequest, NullObserver
from fibsbot.records.events import configure_logging
from fibsbot.server.config import ServerConfig
from fibsbot.server.core import ServerCore
from fibsbot.server.net import start_server
from fibsbot.server.testing import ClipTestClient
from nets.player import load_agent

if TYPE_CHECKING:
    from fibsbot.client.connection import BotClient

__all__ = ["ChaosResult", "print_chaos", "run_chaos"]

# a match is stuck when nothing happens in it for this long; on a loaded machine (every restart
# warms the engine up again) a whole match may take longer than any fixed limit and still move on
MATCH_STALL_S = 180.0
HARNESS = "harness"  # the run's own log and the daemon's stderr, beside the daemon's data


def _progress(match) -> int:
    """How far a server match has come: its games and actions so far."""
    return sum(1 + len(game["actions"]) for game in match.history)


class LogoutAtWin(NullObserver):
    """Stops the sparring bot right after it sends a move that wins the match."""

    def __init__(self) -> None:
        self.armed = False
        self.client: BotClient | None = None
        self.fired = 0

    def on_decision(self, request, answer, commands) -> None:
        if not (self.armed and commands and isinstance(request, MoveRequest) and self.client is not None):
            return
        fibs = request.fibs
        borne_off = 15 - int(request.board[0].sum())
        moved_off = sum(1 for _, end in getattr(answer, "steps", ()) or () if end == 0)
        if borne_off + moved_off == 15 and fibs.player_score + fibs.cube >= fibs.match_length:
            self.armed = False
            self.fired += 1
            self.client.stop()  # "bye" goes out right behind the winning move


class Chatters:
    """Players who make the daemon answer with a tell: a hello brings its help text, an
    invitation to an unlimited match its refusal (it is never accepted, idle or not).  The
    daemon answers each player at most once a minute, hence several of them."""

    NAMES = tuple(f"chatter{i}" for i in range(1, 6))

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.clients: list[ClipTestClient] = []

    async def connect(self, host: str, port: int) -> None:
        for name in self.NAMES:
            client = await ClipTestClient.connect(host, port)
            await client.login(name, name)
            self.clients.append(client)

    def talk(self) -> None:
        client = self.rng.choice(self.clients)
        client.send(f"tell {BOT} hello" if self.rng.random() < 0.5 else f"invite {BOT} unlimited")

    def close(self) -> None:
        for client in self.clients:
            client.close()


class Daemon:
    """``fibsbot run`` as a child process: started, killed, started again."""

    def __init__(self, config: Path, password: str, log_path: Path) -> None:
        self.config, self.password, self.log_path = config, password, log_path
        self.proc: asyncio.subprocess.Process | None = None
        self.starts = 0

    async def start(self) -> None:
        env = dict(os.environ, FIBSBOT_PASSWORD=self.password)
        with open(self.log_path, "ab") as stderr:
            # what ``fibsbot run --config FILE --quiet`` runs, without building every other command
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-c",
                "import argparse, sys; from fibsbot.cli.run import _run; "
                "sys.exit(_run(argparse.Namespace(config=sys.argv[1], quiet=True)))",
                str(self.config),
                env=env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=stderr,
            )
        self.starts += 1

    async def kill(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.send_signal(signal.SIGKILL)
            await self.proc.wait()

    async def stop(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.proc.wait(), 20)
            except TimeoutError:
                await self.kill()


def _config(data_dir: Path, port: int, ply: int) -> Path:
    path = data_dir / "chaos-daemon.toml"
    path.write_text(f"""data_dir = "{data_dir}"
admins = ["{REFEREE}"]
[server]
host = "127.0.0.1"
port = {port}
user = "{BOT}"
reconnect_backoff_base = 0.05
reconnect_backoff_max = 0.5
[play]
ply = {ply}
inactivity_timeout = 60.0
[invitations]
min_length = 1
max_length = 99
""")
    return path


async def _until(condition: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


async def run_chaos(
    matches: int = 20,
    length: int = 3,
    data_dir: Path | None = None,
    seed: int | None = None,
    ply: int = 0,
    fault_rate: float = 0.5,
    progress: Callable[[str], None] | None = None,
    kill_share: float = 0.5,
    after_match: Callable[[int, int | None], object] | None = None,
) -> ChaosResult:
    """Play ``matches`` with faults; ``fault_rate``: the chance of a fault at each random moment,
    ``kill_share``: the share of faults that SIGKILL the daemon (the others drop its connection);
    ``after_match(number, daemon_pid)`` is called after each match (the soak samples there)."""
    rng = random.Random(seed)
    data_dir = Path(data_dir or Path.cwd() / "chaos-run").resolve()
    (data_dir / "log").mkdir(parents=True, exist_ok=True)
    password = secrets.token_urlsafe(12)
    # the run's own files stay out of the daemon's log folder, whose size is the daemon's alone
    (data_dir / HARNESS).mkdir(parents=True, exist_ok=True)
    configure_logging(data_dir / HARNESS / "chaos.jsonl", secrets=[password], max_bytes=log_cap_bytes())
    result = ChaosResult(matches, length)
    started_at = time.perf_counter()
    config = ServerConfig(
        idle_timeout=None, new_account_toggles={"ready": True}, match_end_delay=0.3, glue_tell_echo=True
    )
    core = ServerCore(config, seed=seed)
    server = await start_server(core, "127.0.0.1", 0)
    daemon = Daemon(_config(data_dir, server.port, ply), password, data_dir / HARNESS / "chaos-daemon.stderr")
    logout = LogoutAtWin()
    sparring_agent = PubevalSparring(load_agent("net:default@0"))
    sparring_policy = PolicySettings(user=SPARRING, min_length=1, max_length=99, admins=frozenset({REFEREE}))
    sparring_task: asyncio.Task | None = None
    played = []
    chatters = Chatters(rng)
    try:
        await daemon.start()
        referee = await ClipTestClient.connect(server.host, server.port)
        await referee.login(REFEREE, "referee")
        await chatters.connect(server.host, server.port)

        async def keep_alive() -> None:
            nonlocal sparring_task
            if daemon.proc is not None and daemon.proc.returncode is not None:
                result.daemon_exits += 1
                await daemon.start()
            if sparring_task is None or sparring_task.done():
                client = _client(server.port, SPARRING, "sparring", sparring_agent, sparring_policy, [logout], None)
                logout.client = client
                sparring_task = asyncio.create_task(client.run())

        for k in range(matches):
            await keep_alive()
            ready = await _until(
                lambda: (
                    BOT in core.online
                    and SPARRING in core.online
                    and BOT not in core.matches
                    and not core.saved
                    and not core.held_match_ends
                ),
                30,
            )
            if not ready:
                await keep_alive()
                ready = await _until(lambda: BOT in core.online and BOT not in core.matches and not core.saved, 30)
            if not ready:
                result.stuck += 1
                break
            chatters.talk()  # the daemon's answer may glue its echo to the invitation
            result.chats += 1
            await asyncio.sleep(0.2)  # both settle into the lobby
            referee.send(f"tell {SPARRING} invite {BOT} {length}")
            if not await _until(lambda: BOT in core.matches, 20):
                result.stuck += 1
                continue
            match = core.matches[BOT]
            played.append(match)
            logout.armed = rng.random() < 0.7
            seen, deadline = _progress(match), time.monotonic() + MATCH_STALL_S
            while match not in core.finished and time.monotonic() < deadline:
                await asyncio.sleep(rng.uniform(0.05, 0.6))
                if _progress(match) != seen:
                    seen, deadline = _progress(match), time.monotonic() + MATCH_STALL_S
                await keep_alive()
                if rng.random() < 0.2:
                    chatters.talk()
                    result.chats += 1
                if match in core.finished or BOT not in core.matches or rng.random() >= fault_rate:
                    continue
                if rng.random() < 1.0 - kill_share:
                    result.drops += server.drop(BOT)
                else:
                    await daemon.kill()
                    result.kills += 1
                    await daemon.start()
            if match not in core.finished:
                result.stuck += 1
            if after_match is not None:
                after_match(k + 1, daemon.proc.pid if daemon.proc is not None else None)
            if progress:
                progress(
                    f"match {k + 1}/{matches}: {'finished' if match in core.finished else 'STUCK'} "
                    f"(drops {result.drops}, kills {result.kills}, logouts at winning {logout.fired}, "
                    f"{time.perf_counter() - started_at:.0f} s)"
                )
        referee.close()
    finally:
        chatters.close()
        logout.armed = False
        await daemon.stop()
        if sparring_task is not None:
            assert logout.client is not None  # keep_alive sets it with the task
            logout.client.stop()
            await asyncio.wait([sparring_task], timeout=10)
        await server.close()
    result.restarts = daemon.starts - 1 - result.daemon_exits
    result.logouts_at_win = logout.fired
    result.finished = sum(1 for m in played if m in core.finished)
    result.resumable = sum(1 for m in played if m in core.saved.values())
    audit_chaos(result, played, data_dir)
    result.seconds = round(time.perf_counter() - started_at, 1)
    return result
