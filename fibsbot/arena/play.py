"""``fibsbot arena``: our bot against a sparring bot on the local server, for real.

Everything goes through the protocol: a local FIBS-style server on 127.0.0.1, our
bot and a sparring bot logged in as clients, and a referee account that asks the
sparring bot (an admin command, ``tell sparring invite fibsbot 3``) for each match.
Our bot keeps the same records as on a real server: ``.mat`` files, JSON logs and
the training queue.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import random
import re
import resource
import secrets
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import structlog

from fibsbot.arena.sparring import sparring_partner
from fibsbot.client.connection import BotClient
from fibsbot.client.options import Backoff, ClientOptions
from fibsbot.client.policy import Policy, PolicySettings
from fibsbot.owner.live import OwnerRecords
from fibsbot.protocol.events import BadBoard, MatchEnd, ServerError
from fibsbot.protocol.match.outputs import MatchObserver, NullObserver
from fibsbot.records.events import WireLog, configure_logging
from fibsbot.records.observer import MatchRecords
from fibsbot.records.queue import TrainingQueue
from fibsbot.warmup import SearchWarmup, start_warmup
from nets.player import load_agent

BOT, SPARRING, REFEREE = "fibsbot", "sparring", "referee"
# server lines that refuse a command (as opposed to "** Will send rawboards..." notices)
_REFUSAL = re.compile(r"illegal|invalid|can't|cannot|not your turn|unknown command|don't|isn't|wrong", re.I)
MATCH_TIMEOUT_S = 900.0


@dataclass
class ArenaResult:
    matches: int
    won: int
    lost: int
    length: int
    opponent: str
    ply: int | str  # 0, 1, 2 or "table"
    seconds: float
    scores: list[tuple[int, int]] = field(default_factory=list)
    stuck: int = 0
    errors: list[str] = field(default_factory=list)  # server refusals and unreadable boards
    rss_mb: list[float] = field(default_factory=list)  # resident memory after each match
    peak_rss_mb: float = 0.0
    decisions: int = 0  # our moves and cube decisions
    decisions_before_search: int = 0  # of them, taken at 0-ply while the search was compiling
    warmup_pid: int | None = None  # the search warm-up, when it was still running at the end
    match_files: list[str] = field(default_factory=list)
    queue_path: str = ""
    queued: int = 0
    log_path: str = ""

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


class _Watcher(NullObserver):
    def __init__(self, warming: SearchWarmup | None = None) -> None:
        self.ends: list[MatchEnd] = []
        self.errors: list[str] = []
        self.warming = warming
        self.decisions = 0
        self.before_search = 0

    def on_decision(self, request, answer, commands) -> None:
        ply = getattr(answer, "ply", None)  # moves and cube decisions say the depth that took them
        if ply is None:
            return
        self.decisions += 1
        # ``ready`` turns true only when a decision asks for it (ours, or the sparring bot's cube), so
        # one still false here was taken without the search; at the switch, one may go uncounted
        if ply == 0 and self.warming is not None and not self.warming.ready:
            self.before_search += 1

    def on_event(self, event, snapshot) -> None:
        if isinstance(event, MatchEnd):
            self.ends.append(event)
        elif isinstance(event, BadBoard):
            self.errors.append(f"unreadable board: {event.text}")
        elif isinstance(event, ServerError) and _REFUSAL.search(event.message):
            self.errors.append(event.message)


def _memory_mb(field_name: str = "VmRSS") -> float:
    """Resident memory now (``VmRSS``) or at its peak (``VmHWM``), both from the kernel's
    same counters (getrusage's peak is counted apart and may read below the current figure)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(f"{field_name}:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def _peak_mb(after_each_match: list[float]) -> float:
    peak = _memory_mb("VmHWM")
    if peak != peak:  # no /proc: getrusage's figure
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return round(max([peak, *after_each_match]), 1)


def _client(
    port: int, name: str, password: str, agent, policy: PolicySettings, observers, matches: int | None
) -> BotClient:
    options = ClientOptions(
        backoff=Backoff(initial_s=0.05, max_s=1.0),
        roll_delay_s=0.5,
        board_delay_s=2.0,
        max_matches=matches,
        keepalive_s=60.0,
    )
    return BotClient(
        "127.0.0.1", port, name, password, agent, Policy(policy), observers, options=options, rng=random.Random(name)
    )


def _opponent_agent(opponent: str):
    return sparring_partner(opponent, load_agent)


def log_cap_bytes() -> int:
    """The log folder's cap, from the settings the daemon would have (``FIBSBOT_RECORDS__LOG_MAX_MB``);
    ConfigError where they are unusable."""
    from fibsbot.config import load_settings

    return load_settings().records.log_max_mb * 1024 * 1024


async def run_arena(
    length: int = 3,
    matches: int = 1,
    opponent: str = "pubeval",
    ply: int | str = 2,
    net: str = "default",
    data_dir: Path | None = None,
    seed: int | None = None,
    progress: Callable[[str], None] | None = None,
    warmup: bool = True,
    wait_for_search: bool = False,
    console: MatchObserver | None = None,
    workers: int = 1,
) -> ArenaResult:
    """Play ``matches`` matches; with ``wait_for_search``, a search still compiling in the
    warm-up child is waited for before the first match, so every decision is at ``ply``.
    ``console`` (``fibsbot.console.Console``) follows our bot as it follows the daemon's;
    ``workers``: threads of our agent's cubeful lookahead."""
    from fibsbot.config import default_data_dir
    from fibsbot.owner.readers import check_formats
    from fibsbot.server.testing import ClipTestClient, run_local_server

    data_dir = Path(data_dir or default_data_dir())
    check_formats(data_dir)  # records a newer release wrote are neither read as older nor added to
    (data_dir / "log").mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    log_path = data_dir / "log" / f"arena-{stamp}.jsonl"
    passwords = {name: secrets.token_urlsafe(12) for name in (BOT, SPARRING, REFEREE)}
    # every module's events go to the file, rotated and capped as the daemon's ([records] log_max_mb)
    configure_logging(log_path, secrets=passwords.values(), max_bytes=log_cap_bytes())
    logger = structlog.get_logger("fibsbot.arena.play").bind(bot=BOT)
    agent = load_agent(f"net:{net}@{ply}", workers=workers)  # threads change the speed, never a decision
    sparring_agent = _opponent_agent(opponent)
    warming = start_warmup(agent, logger, enabled=warmup)
    if warming is not None:  # the sparring bot's cube decisions wait for the compiled kernels too
        getattr(sparring_agent, "cube_agent", sparring_agent).search_ready = warming
        if warming.proc is not None:
            await _announce_or_wait(warming, ply, wait_for_search, progress)
    queue = TrainingQueue(data_dir / "queue.sqlite")
    records = MatchRecords(
        data_dir / "matches",
        queue,
        user=BOT,
        net_version=agent.evaluator.name,
        event_log=logger,
        wire_log=WireLog(logger),
        site="fibsbot arena (local server)",
    )
    watcher = _Watcher(warming)
    result = ArenaResult(matches, 0, 0, length, opponent, ply, 0.0, queue_path=str(queue.path), log_path=str(log_path))
    start = time.perf_counter()
    async with run_local_server(seed=seed) as (host, port, core):
        ours = _client(
            port,
            BOT,
            passwords[BOT],
            agent,
            PolicySettings(user=BOT, min_length=1, max_length=99),
            [
                records,
                watcher,
                OwnerRecords(data_dir, BOT, server=records.site),  # rating lines named by the arena's account
                *([console] if console is not None else []),
            ],
            matches,
        )
        theirs = _client(
            port,
            SPARRING,
            passwords[SPARRING],
            sparring_agent,
            PolicySettings(user=SPARRING, min_length=1, max_length=99, admins=frozenset({REFEREE})),
            [],
            matches,
        )
        tasks = [asyncio.create_task(ours.run()), asyncio.create_task(theirs.run())]
        try:
            while not (ours.logged_in and theirs.logged_in):
                await asyncio.sleep(0.02)
            referee = await ClipTestClient.connect(host, port)
            await referee.login(REFEREE, passwords[REFEREE])
            for k in range(matches):
                before = len(watcher.ends)
                referee.send(f"tell {SPARRING} invite {BOT} {length}")
                deadline = time.monotonic() + MATCH_TIMEOUT_S
                while len(watcher.ends) == before and time.monotonic() < deadline:
                    await asyncio.sleep(0.05)
                if len(watcher.ends) == before:
                    result.stuck += 1
                    break
                end = watcher.ends[-1]
                result.won += end.we_won
                result.lost += not end.we_won
                result.scores.append(end.scores if end.we_won else end.scores[::-1])  # a tuple: pydantic made it
                result.rss_mb.append(round(_memory_mb(), 1))
                if progress:
                    progress(
                        f"match {k + 1}/{matches}: {'won' if end.we_won else 'lost'} "
                        f"{result.scores[-1][0]}-{result.scores[-1][1]}  (total {result.won}-{result.lost}, "
                        f"{time.perf_counter() - start:.0f} s, queue {records.queued})"
                    )
                await asyncio.sleep(0.3)  # let both sides settle into the lobby
            referee.close()
        finally:
            for client in (ours, theirs):
                client.stop()
            await asyncio.wait(tasks, timeout=10)
    queue.close()
    result.seconds = round(time.perf_counter() - start, 1)
    result.errors = watcher.errors
    result.match_files = [str(p) for p in records.finished]
    result.queued = records.queued
    result.peak_rss_mb = _peak_mb(result.rss_mb)
    result.decisions, result.decisions_before_search = watcher.decisions, watcher.before_search
    if warming is not None and warming.proc is not None and warming.proc.poll() is None:
        result.warmup_pid = warming.proc.pid
    return result


async def _announce_or_wait(
    warming: SearchWarmup, ply: int | str, wait: bool, progress: Callable[[str], None] | None
) -> None:
    assert warming.proc is not None  # called only for a warm-up that started its child
    pid = warming.proc.pid
    if not wait:
        if progress:
            progress(
                f"compiling the {level_name(ply)} search in the background (pid {pid}); moves at 0-ply until it is "
                f"ready (--wait-for-search waits for it instead)"
            )
        return
    if progress:
        progress(f"waiting for the {level_name(ply)} search to compile (pid {pid}; a few minutes, once per install)")
    started = time.perf_counter()
    while not warming():
        await asyncio.sleep(0.5)
    if progress:
        progress(f"search ready after {time.perf_counter() - started:.0f} s ({warming.outcome})")


def level_name(ply: int | str) -> str:
    """``2-ply``, or ``table level``."""
    return "table level" if ply == "table" else f"{ply}-ply"


def print_result(result: ArenaResult, out=sys.stdout) -> None:
    depth = f"net {level_name(result.ply)}"
    if result.decisions_before_search:
        depth += (
            f"; {result.decisions_before_search} of {result.decisions} decisions at 0-ply while the search compiled"
        )
    print(
        f"{result.matches} x {result.length}-point matches, fibsbot ({depth}) vs {result.opponent}: "
        f"won {result.won}, lost {result.lost}, stuck {result.stuck}, in {result.seconds} s",
        file=out,
    )
    if result.errors:
        print(f"server refusals / unreadable boards: {len(result.errors)}: {result.errors[:5]}", file=out)
    if result.rss_mb:
        print(
            f"memory: {result.rss_mb[0]} MB after the first match, {result.rss_mb[-1]} MB after the last, "
            f"peak {result.peak_rss_mb} MB",
            file=out,
        )
    folder = Path(result.match_files[0]).parent if result.match_files else "(none)"
    print(f"match files: {len(result.match_files)} in {folder}", file=out)
    print(f"training queue: {result.queue_path} ({result.queued} positions added)", file=out)
    print(f"event log: {result.log_path}", file=out)
    if result.warmup_pid is not None:
        print(
            f"the {level_name(result.ply)} search is still compiling in the background (pid {result.warmup_pid}, "
            f"python -m fibsbot.warmup, nice'd): it goes on after this command and ends by itself; later runs "
            f"then search at {level_name(result.ply)} from their first move",
            file=out,
        )
