"""When a logged-in connection needs the keepalive command, and when its server has gone silent.

A server can keep the TCP connection open and stop answering (a hung process, a
middlebox that lost the flow).  The kernel notices only after many minutes of
retransmissions, and never while nothing is sent, so the client watches the
conversation itself:

* the keepalive command (``time``, which FIBS always answers) goes out after
  ``keepalive_s`` without sending (FIBS logs out idle players), and also once the
  server has sent nothing for half of ``silence_s``: a live server then has
  something to answer even when the bot's own last command had no reply;
* a command left unanswered ``silence_s``, with nothing at all from the server
  meanwhile, means the server is silent: the connection counts as lost.

So a silent server is found at most 1.5 * ``silence_s`` after its last byte, and a
server that answers the keepalive command is never taken for a silent one.  Pure:
the clock is passed in; ``client.connection`` sends and drops.
"""

from __future__ import annotations

from collections.abc import Callable


class ServerSilent(TimeoutError):
    """The server left a command unanswered, and sent nothing else, for ``silence_s``."""


class SilenceWatch:
    def __init__(self, *, keepalive_s: float, silence_s: float, clock: Callable[[], float]) -> None:
        if keepalive_s <= 0 or silence_s <= 0:
            raise ValueError("keepalive_s and silence_s must be positive")
        self.keepalive_s, self.silence_s = keepalive_s, silence_s
        self._clock = clock
        now = clock()
        self._last_sent = self._last_received = now
        self._unanswered_since: float | None = None  # our oldest command with nothing received after it
        self._asked = False  # the keepalive command went out after the last byte received

    def sent(self) -> None:
        now = self._clock()
        self._last_sent = now
        if self._unanswered_since is None:
            self._unanswered_since = now

    def keepalive_sent(self) -> None:
        """The command just ``sent`` was the keepalive command, which the server answers."""
        self._asked = True

    def received(self) -> None:
        self._last_received = self._clock()
        self._unanswered_since = None
        self._asked = False

    def keepalive_due(self) -> bool:
        now = self._clock()
        if now - self._last_sent >= self.keepalive_s:
            return True
        return not self._asked and now - self._last_received >= self.silence_s / 2

    def silent(self) -> bool:
        since = self._unanswered_since
        return since is not None and self._clock() - since >= self.silence_s

    def quiet_s(self) -> float:
        """Seconds since the server's last byte."""
        return self._clock() - self._last_received

    def unanswered_s(self) -> float:
        """Seconds our oldest unanswered command has waited (0: none waits)."""
        since = self._unanswered_since
        return 0.0 if since is None else self._clock() - since

    def next_check_s(self) -> float:
        """Seconds until ``keepalive_due`` or ``silent`` may turn true.

        Never more than half of ``silence_s``: a command sent meanwhile starts its own
        count, and a check that often still finds its silence on time."""
        now = self._clock()
        moments = [self._last_sent + self.keepalive_s, now + self.silence_s / 2]
        if not self._asked:
            moments.append(self._last_received + self.silence_s / 2)
        if self._unanswered_since is not None:
            moments.append(self._unanswered_since + self.silence_s)
        return max(min(moments) - now, 0.0)

    def silence(self) -> ServerSilent:
        """The exception that ends the connection, its reason in the console's words."""
        return ServerSilent(
            f"the server sent nothing for {self.quiet_s():.0f} s "
            f"and left a command unanswered for {self.unanswered_s():.0f} s"
        )
