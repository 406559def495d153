"""`fibsbot server`: run the local FIBS-style server (registered into the main parser)."""

from __future__ import annotations

import argparse
import asyncio

from fibsbot.cli.registry import UserError, command, describe_listen_error


def _setup(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=4321, help="TCP port; 0 picks a free one (default 4321)")
    p.add_argument("--seed", type=int, help="dice seed: the same seed and commands give the same games")
    p.add_argument(
        "--idle-timeout",
        type=float,
        default=3600.0,
        help="seconds without input before a connection is dropped (default 3600)",
    )
    p.add_argument(
        "--no-create-accounts",
        action="store_true",
        help="refuse unknown names at login (accounts then come from the guest login)",
    )
    p.add_argument("--ready", action="store_true", help="new accounts start with 'toggle ready' on")
    p.add_argument(
        "--glue-tell-echo",
        action="store_true",
        help="send the echo of a player's own tell without its line end, glued to the next line, as a foreign "
        "server did (a test bed for clients)",
    )
    p.add_argument(
        "--logout-line-only",
        action="store_true",
        help="when a player leaves the server mid-match, send their opponent only the logout line "
        "('8 U U drops connection.'), no 'The game was saved.', as a foreign server did",
    )
    p.add_argument("--verbose", action="store_true", help="log every connection and command (stderr)")


@command("server", "run the local FIBS-style server (CLIP) for bots and tests")(_setup)
def _server(args: argparse.Namespace) -> int:
    import logging

    import structlog
    from pydantic import ValidationError

    from fibsbot.server import ServerConfig, ServerCore
    from fibsbot.server.net import serve_forever

    if not 0 <= args.port <= 65535:
        raise UserError(f"--port must be 0..65535, got {args.port}")
    try:
        config = ServerConfig(
            idle_timeout=args.idle_timeout,
            create_accounts=not args.no_create_accounts,
            new_account_toggles={"ready": True} if args.ready else {},
            glue_tell_echo=args.glue_tell_echo,
            logout_line_only=args.logout_line_only,
        )
    except ValidationError as exc:
        raise UserError(f"bad server settings: {exc.errors()[0]['msg']}") from None
    core = ServerCore(config, seed=args.seed)
    # the log already goes to stderr (``fibsbot.cli.app.main``), so stdout carries only the listening line
    structlog.configure(
        wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG if args.verbose else logging.INFO)
    )

    def ready(server) -> None:
        print(f"fibsbot server listening on {server.host}:{server.port}", flush=True)

    try:
        asyncio.run(serve_forever(core, args.host, args.port, on_ready=ready))
    except KeyboardInterrupt:
        return 0
    except OSError as exc:
        raise UserError(describe_listen_error(args.host, args.port, exc)) from None
    return 0
