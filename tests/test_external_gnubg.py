"""gnubg's external-player interface end to end: whole matches against gnubg 1.07, through
the server and through ``fibsbot external``, and the command's errors."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from dataclasses import dataclass

import numpy as np
import pytest

from engine.players.registry import PubevalPlayer
from engine.rules.ids import MatchState
from engine.rules.moves import legal_moves
from engine.rules.notation import parse_gnubg
from engine.rules.position import Position
from fibsbot.external import ExternalPlayerServer, read_request
from tests.external_samples import apply
from tests.gnubg_cli import GNUBG, require_gnubg


@dataclass(frozen=True)
class _Move:
    steps: tuple


@dataclass(frozen=True)
class _Cube:
    double: bool = False
    take: bool = True


class PipAgent:
    """Pubeval moves and a pip-count cube: enough to reach every answer against gnubg."""

    def __init__(self) -> None:
        self.pubeval = PubevalPlayer()

    def choose_move(self, board, d1, d2, state: MatchState) -> _Move:
        options = legal_moves(Position(board), d1, d2)
        if len(options) == 1:
            return _Move(options[0][0])
        candidates = np.stack([after.board for _, after in options])
        return _Move(options[self.pubeval.choose(board, d1, d2, candidates)][0])

    @staticmethod
    def _lead(board) -> float:
        ours, theirs = Position(board).pip_counts()
        return (theirs - ours) / max(ours, 1)

    def double_decision(self, board, state) -> _Cube:
        return _Cube(double=self._lead(board) > 0.08)

    def take_decision(self, board, state) -> _Cube:
        return _Cube(take=self._lead(board) > -0.12)


_GNUBG_MATCH = """
import gnubg, json, os
gnubg.command("set player 0 gnubg")
gnubg.command("set player 0 chequerplay evaluation plies 0")
gnubg.command("set player 0 cubedecision evaluation plies 0")
gnubg.command("set player 1 name fibsbot")
gnubg.command("set player 1 external 127.0.0.1:" + os.environ["FIBSBOT_PORT"])
gnubg.command("set beavers 0")  # gnubg 1.07 halts after an external player takes a beaver
gnubg.command("set automatic game " + os.environ.get("FIBSBOT_AUTOGAME", "on"))
gnubg.command("set rng mersenne")
gnubg.command("set seed " + os.environ["FIBSBOT_SEED"])
gnubg.command("new " + os.environ["FIBSBOT_NEW"])
gnubg.command("export match mat " + os.environ["FIBSBOT_MAT"])
with open(os.environ["FIBSBOT_JSON"], "w") as out:
    json.dump(gnubg.match(0, 0, 0, 0), out)
"""


async def play_against_gnubg(tmp_path, agent, length: int, seed: int) -> tuple[dict, list[tuple[str, str]]]:
    log: list[tuple[str, str]] = []
    player = ExternalPlayerServer(agent, our_name="fibsbot", on_answer=lambda q, a: log.append((q, a)))
    server = await asyncio.start_server(player.handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    script = tmp_path / "match.py"
    script.write_text(_GNUBG_MATCH)
    env = dict(
        os.environ,
        FIBSBOT_PORT=str(port),
        FIBSBOT_SEED=str(seed),
        FIBSBOT_NEW=f"match {length}",
        FIBSBOT_MAT=str(tmp_path / "match.mat"),
        FIBSBOT_JSON=str(tmp_path / "match.json"),
    )
    async with server:
        gnubg = await asyncio.create_subprocess_exec(
            str(GNUBG),
            "-t",
            "-q",
            "-r",
            "-p",
            str(script),
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        output, _ = await asyncio.wait_for(gnubg.communicate(), 60)
    assert (tmp_path / "match.json").exists(), output.decode(errors="replace")[-3000:]
    return json.loads((tmp_path / "match.json").read_text()), log


def assert_gnubg_played_our_answers(match: dict, log: list[tuple[str, str]]) -> int:
    """Every answer became the record gnubg kept for player 1 ("O"), in order, and every
    move was legal and played as answered (gnubg plays an answer it cannot use as an
    empty move, which would differ).  Returns the number of moves checked."""
    assert not any(reply.startswith("Error") for _, reply in log)
    ours = [(request, reply) for request, reply in log if reply != "roll"]
    records = [r for game in match["games"] for r in game["game"] if r["player"] == "O"]
    assert [r["action"] for r in records] == [
        {"double": "double", "take": "take", "drop": "drop"}.get(reply, "move") for _, reply in ours
    ]
    moves = 0
    for (request_line, reply), record in zip(ours, records):
        if record["action"] != "move":
            continue
        request = read_request(request_line, our_name="fibsbot", seat=1)
        legal = {after for _, after in legal_moves(Position(request.board), *request.dice)}
        played = apply(request.board, parse_gnubg(reply, request.board, request.dice)) if reply else None
        recorded = apply(request.board, [tuple(step) for step in record.get("move") or ()])
        assert recorded in legal and (played == recorded if reply else len(legal) == 1)
        moves += 1
    return moves


async def test_a_whole_match_against_gnubg(tmp_path):
    require_gnubg()
    match, log = await play_against_gnubg(tmp_path, PipAgent(), length=5, seed=11)
    assert not any(reply.startswith("Error") for _, reply in log)
    # the match was played to the end
    final = [0, 0]
    for game in match["games"]:
        final["XO".index(game["info"]["winner"])] += game["info"]["points-won"]
    assert max(final) >= 5, match["games"][-1]["info"]
    assert assert_gnubg_played_our_answers(match, log) > 20
    answers = {reply for _, reply in log}
    assert {"roll", "double", "take"} <= answers or {"roll", "double", "drop"} <= answers, answers
    assert (tmp_path / "match.mat").read_text().count("Wins") == len(match["games"])


_CLI = "import sys, fibsbot.cli.external; from fibsbot.cli import main; sys.exit(main(sys.argv[1:]))"


async def test_cli_with_the_shipped_net_plays_a_match(tmp_path):
    """``fibsbot external --once`` end to end: the shipped net plays a money game against gnubg."""
    require_gnubg()
    events = tmp_path / "external.jsonl"
    cli = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        _CLI,
        "external",
        "--listen",
        "127.0.0.1:0",
        "--once",
        "--name",
        "fibsbot",
        "--player",
        "net:default@0",
        "--log",
        str(events),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        first = await asyncio.wait_for(cli.stdout.readline(), 60)
        assert first.startswith(b"listening on 127.0.0.1:"), first + await cli.stderr.read()
        port = int(first.split(b":")[-1])
        script = tmp_path / "match.py"
        script.write_text(_GNUBG_MATCH)
        # one money game (a session, stopped after its first game): the real net's moves and cube
        env = dict(
            os.environ,
            FIBSBOT_PORT=str(port),
            FIBSBOT_SEED="3",
            FIBSBOT_NEW="session",
            FIBSBOT_AUTOGAME="off",
            FIBSBOT_MAT=str(tmp_path / "m.mat"),
            FIBSBOT_JSON=str(tmp_path / "m.json"),
        )
        gnubg = await asyncio.create_subprocess_exec(
            str(GNUBG),
            "-t",
            "-q",
            "-r",
            "-p",
            str(script),
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        await asyncio.wait_for(gnubg.wait(), 60)
        code = await asyncio.wait_for(cli.wait(), 30)  # --once: gone with gnubg's connection
    finally:
        if cli.returncode is None:
            cli.kill()
            await cli.wait()
    assert code == 0, await cli.stderr.read()
    match = json.loads((tmp_path / "m.json").read_text())
    assert match["match-info"]["match-length"] == 0
    assert len(match["games"]) == 1 and match["games"][0]["info"]["points-won"] >= 1
    logged = [json.loads(line) for line in events.read_text().splitlines()]
    pairs = [(e["request"], e["answer"]) for e in logged if e["event"] == "external_answer"]
    assert assert_gnubg_played_our_answers(match, pairs) > 5
    assert logged[-1]["event"] == "external_disconnected" and logged[-1]["requests"] == len(pairs)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--listen", "nope"], "expected HOST:PORT"),
        (["--listen", "127.0.0.1:0", "--player", "pubeval"], "net:NAME@PLY"),
        (["--listen", "127.0.0.1:0", "--player", "net:no_such_net@0"], "no_such_net"),
    ],
)
def test_cli_errors_are_one_line(capsys, argv, message):
    import fibsbot.cli.external  # noqa: F401  registers the command
    from fibsbot.cli import main

    assert main(["external", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fibsbot external: error: ") and message in err and err.count("\n") == 1
