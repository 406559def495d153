"""What a failed attempt at the server means, in a word the console can follow.

The client retries every one of these for ever: time mends them all (a router still
booting, a resolver not up yet, FIBS down for maintenance, a server that restarts).  The
kind only decides what the operator is told: ``fibsbot.console`` says a kind once and
keeps quiet while the same kind repeats.  Only a login refused ``max_login_refusals``
times ends the client, and that is ``dispatch.LoginGivenUp``, not a failure here.
"""

from __future__ import annotations

import os
import socket

# the server could not be reached: the console says "unreachable"
LOOKUP = "lookup"  # the name did not resolve (no network yet reads the same as a wrong name)
REFUSED = "refused"
NO_ANSWER = "no answer"
UNREACHABLE = "unreachable"  # no route, network down
UNREACHABLE_KINDS = frozenset({LOOKUP, REFUSED, NO_ANSWER, UNREACHABLE})
# it was reached, but never logged us in
NO_WELCOME = "no welcome"
CLOSED = "closed"
# we were logged in
LOST = "lost"


class NoWelcome(TimeoutError):
    """The server accepted the connection and sent no login prompt in time."""


def _reason(exc: BaseException) -> str:
    """``connection refused`` rather than asyncio's ``Connect call failed ('1.2.3.4', 4321)``."""
    number = getattr(exc, "errno", None)
    if isinstance(exc, OSError) and not isinstance(exc, socket.gaierror) and isinstance(number, int) and number > 0:
        text = os.strerror(number)
    else:
        text = (getattr(exc, "strerror", None) or str(exc) or type(exc).__name__).strip()
    return text[:1].lower() + text[1:]


def classify(exc: BaseException, host: str, *, connected: bool, logged_in: bool) -> tuple[str, str]:
    """(kind, reason in words) of the exception that ended an attempt.

    ``connected``: the TCP connection had opened; ``logged_in``: the server had welcomed us.
    """
    if logged_in:
        return LOST, _reason(exc)
    if isinstance(exc, socket.gaierror):
        return LOOKUP, f"cannot resolve {host}: {_reason(exc)}"
    if isinstance(exc, NoWelcome):
        return NO_WELCOME, _reason(exc)
    if connected:
        return CLOSED, _reason(exc)
    if isinstance(exc, ConnectionRefusedError):
        return REFUSED, _reason(exc)
    if isinstance(exc, TimeoutError):
        return NO_ANSWER, "no answer"
    return UNREACHABLE, _reason(exc)


def outage_text(kind: str, error: str, host: str, port: int) -> str:
    """What failed, as the console and ``fibsbot status`` say it (``error``: ``classify``'s reason)."""
    server = f"server {host}:{port}"
    if kind == LOST:
        return f"connection lost: {error}"
    if kind == NO_WELCOME:
        return f"{server} accepts connections but sends no welcome ({error})"
    if kind == CLOSED:
        return f"{server} ended the connection before the login ({error})"
    return f"{server} unreachable ({error})"
