"""What `fibsbot run` checks before the daemon starts, so that a mistake in the settings is
one line on the console and exit code 2 rather than a traceback.

The server is deliberately not among them: a server that cannot be reached at start (a
router still booting, a resolver not up yet, FIBS down for maintenance) is something time
mends, so the daemon retries it by itself for as long as it takes (``client.connection``)
and says so on the console, instead of exiting for a service manager whose start limit
an outage of a minute would exhaust.  A host that cannot be a host name at all is refused
with the settings (``config.ServerSettings``).
"""

from __future__ import annotations

from fibsbot.cli.registry import UserError
from fibsbot.config import Settings


def check_player(settings: Settings) -> None:
    """The net and level of ``[play]`` name a player that exists, before anything is written."""
    from engine.players.registry import PlayerSpecError
    from nets.player import resolve_net_path

    try:
        resolve_net_path(settings.play.net)
    except PlayerSpecError as exc:
        raise UserError(f"[play] net = {settings.play.net!r}: {exc}") from exc
