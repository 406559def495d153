"""systemd's notify protocol, spoken directly: ``READY=1``, ``STATUS=``, ``WATCHDOG=1``, ``STOPPING=1``.

A unit of ``Type=notify`` hands its service ``NOTIFY_SOCKET``, a datagram socket to send
newline-separated ``KEY=value`` fields to: a path, or, with a leading ``@``, a name in
Linux's abstract namespace.  Without it (a console, a test, another supervisor) nothing is
sent and nothing fails.  A send that fails is logged once and never reaches the bot: the
socket is non-blocking, so a manager that reads nothing cannot stall the event loop either.

``WATCHDOG_USEC`` (``WatchdogSec=``) asks for ``WATCHDOG=1`` at least that often;
``watchdog_pings`` sends it from the event loop every half of it, so a loop that stops
turning (a blocking call, a deadlock) stops the pings and systemd kills and restarts the
daemon.  ``WATCHDOG_PID``, when set, names the process the pings are wanted from.

``freeze_on_signal`` is a test hook only, off unless ``FREEZE_ENV`` is set: it lets a test
block the loop as a stuck daemon would (``tests/test_service_notify.py``).
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import time
from collections.abc import Mapping

import structlog

log = structlog.get_logger("fibsbot.service")

# test hook: seconds SIGUSR1 blocks the event loop for; never set outside the tests
FREEZE_ENV = "FIBSBOT_TEST_FREEZE_LOOP_S"


def socket_address(value: str) -> str | None:
    """``NOTIFY_SOCKET``'s address for ``sendto``: a path, or an abstract name (``@name``); None if unset."""
    if not value:
        return None
    return "\0" + value[1:] if value.startswith("@") else value


class Notifier:
    """Sends notify messages to ``NOTIFY_SOCKET`` of ``environ`` (the process's environment)."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        self.address = socket_address(env.get("NOTIFY_SOCKET", ""))
        self._socket: socket.socket | None = None
        self._failure_told = False
        self.status_text: str | None = None  # the last STATUS= sent
        self.stopped = False  # once stopping, only ``stopping`` says more

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def send(self, *fields: str) -> bool:
        """One datagram of ``fields``; False when there is no socket or the send failed."""
        if self.address is None:
            return False
        try:
            if self._socket is None:
                self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
                self._socket.setblocking(False)
            self._socket.sendto("\n".join(fields).encode("utf-8", "replace"), self.address)
        except OSError as exc:
            if not self._failure_told:  # a manager that went away: said once, not at every ping
                self._failure_told = True
                shown = self.address.replace("\0", "@", 1)
                log.warning("notify_failed", socket=shown, fields=[f.split("=")[0] for f in fields], error=str(exc))
            return False
        return True

    def ready(self, status: str) -> None:
        self.status_text = status
        self.send("READY=1", f"STATUS={status}")

    def status(self, text: str) -> None:
        """``STATUS=text``, unless it is what was sent last or the daemon is stopping."""
        if text != self.status_text and not self.stopped:
            self.status_text = text
            self.send(f"STATUS={text}")

    def watchdog(self) -> None:
        self.send("WATCHDOG=1")

    def stopping(self, status: str) -> None:
        self.status_text, self.stopped = status, True
        self.send("STOPPING=1", f"STATUS={status}")

    def close(self) -> None:
        if self._socket is not None:
            self._socket.close()
            self._socket = None


def watchdog_period(environ: Mapping[str, str] | None = None) -> float | None:
    """Seconds between pings, half of ``WATCHDOG_USEC``; None when no watchdog wants this process's."""
    env = os.environ if environ is None else environ
    try:
        usec = int(env.get("WATCHDOG_USEC", ""))
        pid = int(env.get("WATCHDOG_PID") or os.getpid())
    except ValueError:
        return None
    if usec <= 0 or pid != os.getpid():
        return None
    return usec / 2e6


async def watchdog_pings(notifier: Notifier, period: float) -> None:
    """``WATCHDOG=1`` every ``period`` seconds, for as long as the event loop turns."""
    while True:
        notifier.watchdog()
        await asyncio.sleep(period)


def freeze_on_signal(loop: asyncio.AbstractEventLoop, environ: Mapping[str, str] | None = None) -> bool:
    """Test hook: with ``FREEZE_ENV`` set, SIGUSR1 blocks ``loop`` for that many seconds, as a
    blocking call would; True if installed.  Off in every normal run."""
    env = os.environ if environ is None else environ
    try:
        seconds = float(env.get(FREEZE_ENV, ""))
    except ValueError:
        return False

    def freeze() -> None:
        log.warning("loop_frozen_by_test_hook", seconds=seconds)
        time.sleep(seconds)  # on the loop's thread: nothing of the loop runs meanwhile

    try:
        loop.add_signal_handler(signal.SIGUSR1, freeze)
    except (NotImplementedError, RuntimeError):
        return False
    return True
