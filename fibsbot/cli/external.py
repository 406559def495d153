"""`fibsbot external`: play as GNU Backgammon's external player.

In gnubg: ``set player 1 external 127.0.0.1:PORT`` (after starting this), then
``new match 7``; gnubg sends each decision of player 1 here.  gnubg needs its
embedded Python (``gnubg -p script.py``) or the GUI for this: in ``-c`` command
mode it stops after the first move.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import sys
from pathlib import Path

import structlog

from fibsbot.cli.registry import UserError, command, describe_listen_error


def _setup(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--listen",
        required=True,
        metavar="HOST:PORT",
        help="where gnubg connects, e.g. 127.0.0.1:8765 (port 0: any free port, printed)",
    )
    p.add_argument(
        "--player",
        default="net:default@table",
        help="the engine player: net:NAME@LEVEL, LEVEL 0, 1, 2 or table (default net:default@table, the daemon's)",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help="threads of the cubeful lookahead, as [play] workers for the daemon (default: every core this "
        "process may use); the decisions are the same with any number",
    )
    p.add_argument(
        "--name",
        default=None,
        help="our player's name in gnubg (default: your login name, gnubg's default for player 1); "
        "only checked: a name on the other side is logged, the score comes from gnubg's field order",
    )
    p.add_argument("--once", action="store_true", help="stop when the first gnubg connection closes")
    p.add_argument("--log", type=Path, metavar="FILE", help="JSON-lines log of every request and answer")


def _logger(path: Path | None):
    if path is not None:
        from fibsbot.records.events import event_logger

        return event_logger(path, component="external")
    return structlog.wrap_logger(
        structlog.PrintLogger(sys.stderr),
        processors=[structlog.processors.TimeStamper(fmt="%H:%M:%S"), structlog.dev.ConsoleRenderer(colors=False)],
    )


async def serve(agent, host: str, port: int, *, our_name: str | None, once: bool, log) -> int:
    from fibsbot.external import MAX_REQUEST, ExternalPlayerServer

    player = ExternalPlayerServer(agent, our_name=our_name, log=log)
    done = asyncio.Event()

    async def handle(reader, writer):
        try:
            await player.handle(reader, writer)
        finally:
            if once:
                done.set()

    try:
        server = await asyncio.start_server(handle, host, port, limit=MAX_REQUEST)
    except OSError as exc:
        raise UserError(describe_listen_error(host, port, exc)) from exc
    bound = server.sockets[0].getsockname()
    print(f"listening on {bound[0]}:{bound[1]}", flush=True)
    async with server:
        if once:
            await done.wait()
        else:
            await server.serve_forever()
    return 0


@command("external", "answer GNU Backgammon's external-player requests with the engine")(_setup)
def _external(args: argparse.Namespace) -> int:
    from engine.players.registry import PlayerSpecError
    from fibsbot.config import PlaySettings
    from fibsbot.external import parse_listen
    from nets.player import load_agent

    try:
        host, port = parse_listen(args.listen)
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    if not args.player.startswith("net:"):
        raise UserError(f"--player {args.player!r}: expected net:NAME@PLY, e.g. net:default@0")
    if args.workers is not None and args.workers < 1:
        raise UserError(f"--workers {args.workers}: at least 1 thread")
    try:
        agent = load_agent(args.player, workers=PlaySettings(workers=args.workers).threads)
    except (PlayerSpecError, ValueError, FileNotFoundError) as exc:
        raise UserError(f"--player {args.player!r}: {exc}") from exc
    name = args.name if args.name is not None else getpass.getuser()
    try:
        return asyncio.run(serve(agent, host, port, our_name=name, once=args.once, log=_logger(args.log)))
    except KeyboardInterrupt:
        return 0
