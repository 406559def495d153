"""From the daemon's ``Settings`` (``fibsbot.config``) to a ready ``BotClient``.

The client and the policy take plain values; this is the one place that knows
the shape of the settings file.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fibsbot.client.connection import BotClient
from fibsbot.client.options import Backoff, ClientOptions
from fibsbot.client.policy import Policy, PolicySettings
from fibsbot.config import Settings


def policy_settings(settings: Settings) -> PolicySettings:
    user, invitations = settings.server.user or "", settings.invitations
    return PolicySettings(
        user=user,
        min_length=invitations.min_length,
        max_length=invitations.max_length,
        allow_unlimited=invitations.allow_unlimited,
        allow=frozenset(invitations.allow),
        deny=frozenset(invitations.deny),
        admins=frozenset(settings.admins),
        auto_invite=frozenset(invitations.auto_invite),
        auto_invite_length=invitations.auto_invite_length,
    )


def client_options(settings: Settings, **overrides: Any) -> ClientOptions:
    server = settings.server
    values: dict[str, Any] = dict(
        client_name=server.client_name,
        keepalive_s=server.keepalive_interval,
        silence_timeout_s=server.silence_timeout,
        connect_timeout_s=server.connect_timeout,
        login_timeout_s=server.login_timeout,
        inactivity_timeout_s=settings.play.inactivity_timeout,
        backoff=Backoff(initial_s=server.reconnect_backoff_base, max_s=server.reconnect_backoff_max),
        max_login_refusals=None if server.retry_refused_login else server.max_login_refusals,
    )
    values.update(overrides)
    return ClientOptions(**values)


def bot_client(settings: Settings, agent: Any, observers: Iterable[Any] = (), **kwargs: Any) -> BotClient:
    """A client for the configured server and account; the password is read at each login.

    ``kwargs`` go to ``BotClient`` (``options`` replaces the configured ones).
    """
    user, _ = settings.fibs_login()  # fails early, with the reason, if the account is incomplete
    kwargs.setdefault("options", client_options(settings))
    return BotClient(
        settings.server.host,
        settings.server.port,
        user,
        settings.fibs_password,
        agent,
        Policy(policy_settings(settings)),
        observers,
        **kwargs,
    )
