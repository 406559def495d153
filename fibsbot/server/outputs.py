"""What the server core asks the network layer to do: send text, switch echo, close.

The core never touches a socket; every input it receives returns a list of these,
in the order they must happen.
"""

from __future__ import annotations

from dataclasses import dataclass

CRLF = "\r\n"


@dataclass(frozen=True)
class Send:
    session: int
    text: str  # complete lines end in CRLF; prompts do not


@dataclass(frozen=True)
class SetEcho:
    """Telnet ECHO: ``on=False`` tells the client to stop echoing (passwords)."""

    session: int
    on: bool


@dataclass(frozen=True)
class Close:
    """Close the connection after everything sent before it."""

    session: int


Output = Send | SetEcho | Close


def texts_for(outputs: list[Output], session: int) -> str:
    """Everything sent to one session, joined (a test and logging convenience)."""
    return "".join(o.text for o in outputs if isinstance(o, Send) and o.session == session)
