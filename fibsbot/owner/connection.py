"""The daemon's connection to its server, as ``daemon.json`` keeps it and its owner reads it.

``ConnectionState`` follows the client's session (``on_session``, ``client.dispatch._report``)
and keeps one of: ``connecting`` (no connection yet since the start), ``connected`` (the
first connection, before the login), ``logged_in`` (as whom, since when), ``down`` (the
server unreachable, silent or dropping us, or refusing the login: since when, and why in
the console's words).  An outage's ``since`` is its first failed attempt: it stays while
the retries go on, whatever each one meets, until a login ends it.  ``connection_text``
says the state in a line, for ``fibsbot status`` and systemd's ``STATUS=`` alike.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from fibsbot.client.reach import outage_text

CONNECTING, CONNECTED, LOGGED_IN, DOWN = "connecting", "connected", "logged_in", "down"


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


class ConnectionState:
    """The state as a plain dict (``as_dict``) for the owner's file; ``follow`` says if it changed."""

    def __init__(self, host: str, port: int, clock=_now) -> None:
        self.server = f"{host}:{port}"
        self._clock = clock
        self.state: dict[str, Any] = {"state": CONNECTING, "server": self.server, "since": clock()}

    def as_dict(self) -> dict[str, Any]:
        return dict(self.state)

    def follow(self, what: str, details: dict[str, Any]) -> bool:
        """The session's ``what`` happened (``details``: its fields); True when the state changed."""
        current = self.state["state"]
        if what == "connected" and current == CONNECTING:
            return self._set({"state": CONNECTED, "server": self.server, "since": self._clock()})
        if what == "logged_in":
            user = details.get("user")
            return self._set({"state": LOGGED_IN, "server": self.server, "user": user, "since": self._clock()})
        if what == "connection_lost":
            kind = str(details.get("kind", "lost"))
            reason = outage_text(kind, str(details.get("error", "")), *self._host_port(details))
            return self._down(kind, reason)
        if what == "login_refused":
            host, port = self._host_port(details)
            reason = f"login refused: {host}:{port} does not accept user {details.get('user')} with this password"
            return self._down("login refused", reason)
        return False

    def _host_port(self, details: dict[str, Any]) -> tuple[str, int]:
        host, _, port = self.server.rpartition(":")
        return str(details.get("host") or host), int(details.get("port") or port)

    def _down(self, kind: str, reason: str) -> bool:
        since = self.state["since"] if self.state["state"] == DOWN else self._clock()
        return self._set({"state": DOWN, "server": self.server, "kind": kind, "reason": reason, "since": since})

    def _set(self, state: dict[str, Any]) -> bool:
        if state == self.state:
            return False
        self.state = state
        return True


def connection_text(connection: dict[str, Any] | None) -> str:
    """The state in a line: ``logged in as mybot since ...``, ``server ... unreachable (...) since ...``."""
    if not connection:
        return "connection state unknown"
    state, server, since = connection.get("state"), connection.get("server"), connection.get("since")
    if state == LOGGED_IN:
        return f"logged in as {connection.get('user')} on {server} since {since}"
    if state == CONNECTED:
        return f"connected to {server} since {since}, logging in"
    if state == DOWN:
        return f"{connection.get('reason')}, since {since}: retrying"
    return f"waiting for server {server} since {since}"
