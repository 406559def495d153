"""An outage drill: ``fibsbot run`` started while its server cannot be reached, which later comes back.

The daemon is a real process with its own settings file, as systemd starts it; the server
is the local one (``fibsbot.server``), in this process.  The faults, each lasting
``outage_s`` from the daemon's start:

* ``refused``: nothing listens on the server's port until the server starts on it;
* ``lookup``: the server runs, but its name does not resolve: the resolver answers each
  error of ``dns_errors`` in turn (``EAI_NONAME``, as a boot without network says, then
  ``EAI_AGAIN``), through ``fibsbot.arena.dns_fault``, until the network "comes up";
* ``silent``: a server that accepts connections and never sends its welcome, replaced by
  the real one at the end.

The drill records whether the daemon exited during the outage (it must not), how long it
took from the server's return to the daemon's login, and the daemon's console lines; then
it stops the daemon with SIGTERM.  ``scripts/checks/outage_drill.py`` runs it.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from fibsbot.arena import dns_fault
from fibsbot.records.atomic import write_atomically
from fibsbot.server.config import ServerConfig
from fibsbot.server.core import ServerCore
from fibsbot.server.net import start_server

BOT = "outagebot"
PASSWORD = "outage-drill-pw"
FAULTS = ("refused", "lookup", "silent")
_POLL_S = 0.05
_CONSOLE_WAIT_S = 10.0  # how long a login may take to reach the console once the server has it
PHASE_GRACE_S = 120.0
DEFAULT_LOGIN_TIMEOUT_S = 30.0  # [server] login_timeout's default, left out of the settings file


@dataclass
class OutageResult:
    fault: str
    outage_s: float
    exit_during_outage: int | None = None  # the daemon's exit code, had it given up
    login_after_s: float | None = None  # from the server's return to the daemon's login
    attempts: int = 0  # failed attempts the daemon logged during the outage
    exit_code: int | None = None  # after SIGTERM
    console: list[str] = field(default_factory=list)  # the daemon's stderr, timestamps and levels kept


def free_port() -> int:
    """A loopback port nobody listens on: one the system just handed out and took back."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def write_config(folder: Path, host: str, port: int, backoff: tuple[float, float], login_timeout: float) -> Path:
    path = folder / "outage-daemon.toml"
    path.write_text(f"""data_dir = "{folder / "data"}"
[server]
host = "{host}"
port = {port}
user = "{BOT}"
reconnect_backoff_base = {backoff[0]}
reconnect_backoff_max = {backoff[1]}
{f"login_timeout = {login_timeout}" if login_timeout != DEFAULT_LOGIN_TIMEOUT_S else ""}
[play]
ply = 0
warmup = false
""")
    return path


class DaemonProcess:
    """``fibsbot run --config FILE``, its console lines kept in a file."""

    def __init__(self, config: Path, folder: Path, extra_env: dict[str, str] | None = None) -> None:
        self.config, self.stderr_path = config, folder / "daemon.stderr"
        env = {name: value for name, value in os.environ.items() if not name.startswith("FIBSBOT_")}
        self.env = dict(env, FIBSBOT_PASSWORD=PASSWORD, NO_COLOR="1", **(extra_env or {}))
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        with open(self.stderr_path, "wb") as stderr:
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable,
                *("-m", "fibsbot.cli", "run", "--config", str(self.config)),
                env=self.env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=stderr,
            )

    @property
    def returncode(self) -> int | None:
        return None if self.proc is None else self.proc.returncode

    async def stop(self, sig: int = signal.SIGTERM, timeout: float = 30.0) -> int | None:
        if self.proc is None:
            return None
        if self.proc.returncode is None:
            self.proc.send_signal(sig)
            try:
                await asyncio.wait_for(self.proc.wait(), timeout)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()
        return self.proc.returncode

    def console(self) -> list[str]:
        return self.stderr_path.read_text(errors="replace").splitlines()

    def said(self, text: str) -> bool:
        """Whether a console line holds ``text``."""
        return self.stderr_path.exists() and any(text in line for line in self.console())

    def failed_attempts(self) -> int:
        log = self.config.parent / "data" / "log" / "fibsbot.jsonl"
        if not log.exists():
            return 0
        return sum('"connection ended"' in line for line in log.read_text(errors="replace").splitlines())


class SilentServer:
    """Accepts connections and never says a word."""

    def __init__(self) -> None:
        self.accepted = 0
        self.open = 0  # connections the other end has not closed
        self._writers: list[asyncio.StreamWriter] = []
        self._server: asyncio.Server | None = None

    async def start(self, port: int) -> None:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.accepted += 1
            self.open += 1
            self._writers.append(writer)
            try:
                while await reader.read(4096):
                    pass
            except OSError:
                pass
            finally:
                self.open -= 1

        self._server = await asyncio.start_server(handle, "127.0.0.1", port)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            for writer in self._writers:
                writer.close()
            await self._server.wait_closed()


async def _phase(daemon: DaemonProcess, seconds: float, attempts: int) -> bool:
    """Wait ``seconds`` and, past them, until the daemon has failed ``attempts`` more times (a
    daemon slow to start on a loaded machine still meets the fault); False as soon as it exits."""
    deadline, before = time.monotonic() + seconds, daemon.failed_attempts()
    give_up = deadline + PHASE_GRACE_S
    while time.monotonic() < deadline or daemon.failed_attempts() - before < attempts:
        if daemon.returncode is not None:
            return False
        if time.monotonic() > give_up:  # the caller's checks will show what went wrong
            break
        await asyncio.sleep(_POLL_S * 4)
    return daemon.returncode is None


async def run_outage(
    fault: str,
    outage_s: float,
    folder: Path,
    *,
    backoff: tuple[float, float] = (2.0, 30.0),
    login_timeout: float = DEFAULT_LOGIN_TIMEOUT_S,
    dns_errors: tuple[str, ...] = ("EAI_NONAME", "EAI_AGAIN"),
    login_wait_s: float = 120.0,
    min_attempts: int = 2,
) -> OutageResult:
    """The drill of ``fault`` (one of ``FAULTS``); the daemon's files go to ``folder``."""
    if fault not in FAULTS:
        raise ValueError(f"fault {fault!r}: one of {', '.join(FAULTS)}")
    folder.mkdir(parents=True, exist_ok=True)
    result = OutageResult(fault, outage_s)
    core = ServerCore(ServerConfig(idle_timeout=None, new_account_toggles={"ready": True}), seed=1)
    port, server, silent, extra_env = free_port(), None, None, {}
    host = "127.0.0.1"
    fault_file = folder / "dns-fault"
    if fault == "lookup":
        host = dns_fault.FAKE_HOST
        server = await start_server(core, "127.0.0.1", port)
        # written whole at once (the daemon reads it at every lookup; rewritten in place it
        # was once read empty between its truncation and its text)
        write_atomically(fault_file, dns_errors[0])
        site = dns_fault.write_sitecustomize(folder / "site")
        path = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p)
        extra_env = {dns_fault.ENV: str(fault_file), "PYTHONPATH": path}
    elif fault == "silent":
        silent = SilentServer()
        await silent.start(port)
    daemon = DaemonProcess(write_config(folder, host, port, backoff, login_timeout), folder, extra_env)
    try:
        await daemon.start()
        alive = True
        for error in dns_errors if fault == "lookup" else ("",):
            if error:
                write_atomically(fault_file, error)
            alive = await _phase(daemon, outage_s / (len(dns_errors) if fault == "lookup" else 1), min_attempts)
            if not alive:
                break
        result.attempts = daemon.failed_attempts()
        if not alive:
            result.exit_during_outage = daemon.returncode
            return result
        if silent is not None:
            await silent.close()
        if fault == "lookup":
            fault_file.unlink()
        else:
            server = await start_server(core, "127.0.0.1", port)
        up = time.monotonic()
        deadline = up + login_wait_s
        while BOT not in core.online and daemon.returncode is None and time.monotonic() < deadline:
            await asyncio.sleep(_POLL_S)
        if BOT in core.online:
            result.login_after_s = time.monotonic() - up
            # the server knows of the login before the daemon has said so on its
            # console; a SIGTERM in between would leave the console without it
            said_by = time.monotonic() + _CONSOLE_WAIT_S
            while not daemon.said(f"logged in as {BOT}") and daemon.returncode is None and time.monotonic() < said_by:
                await asyncio.sleep(_POLL_S)
    finally:
        result.exit_code = await daemon.stop()
        result.console = daemon.console() if daemon.stderr_path.exists() else []
        if silent is not None:
            await silent.close()
        if server is not None:
            await server.close()
    return result
