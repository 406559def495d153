"""What `fibsbot run` checks before the daemon starts, so that a mistake in the settings is
one line on the console and exit code 2 rather than a traceback, or a daemon that retries
for ever and says nothing.

Once the daemon is running it reconnects with backoff after a lost connection (the server
may restart); at start a server it cannot reach is said in one line with exit code 75
(``TryAgainLater``): under systemd (``Restart=on-failure``, ``RestartPreventExitStatus=2``)
a server still down at boot is tried again by the unit, while a mistake in the settings
(exit 2) is not.
"""

from __future__ import annotations

import socket

from fibsbot.cli.registry import TryAgainLater, UserError
from fibsbot.config import Settings

CONNECT_TIMEOUT_S = 15.0  # a host that drops our packets is as wrong as one that refuses them


def check_player(settings: Settings) -> None:
    """The net and level of ``[play]`` name a player that exists, before anything is written."""
    from engine.players.registry import PlayerSpecError
    from nets.player import resolve_net_path

    try:
        resolve_net_path(settings.play.net)
    except PlayerSpecError as exc:
        raise UserError(f"[play] net = {settings.play.net!r}: {exc}") from exc


def check_server_reachable(settings: Settings) -> None:
    """A TCP connection to the configured server opens; it is closed again at once (a FIBS
    server drops a connection that never logs in)."""
    host, port = settings.server.host, settings.server.port
    try:
        with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S):
            pass
    except socket.gaierror as exc:
        raise UserError(f"[server] host = {host!r}: no such host ({exc.strerror or exc})") from exc
    except TimeoutError as exc:
        raise TryAgainLater(
            f"cannot reach the server {host}:{port}: no answer in {CONNECT_TIMEOUT_S:.0f} s "
            "(check [server] host and port)"
        ) from exc
    except OSError as exc:
        reason = (exc.strerror or str(exc)).lower()
        raise TryAgainLater(f"cannot reach the server {host}:{port}: {reason} (check [server] host and port)") from exc
