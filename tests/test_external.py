"""gnubg's external-player interface: reading gnubg 1.07's requests, answering, a real match."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from dataclasses import dataclass

import numpy as np
import pytest

from engine.players.registry import PubevalPlayer
from engine.rules.ids import CENTRED, MatchState
from engine.rules.moves import legal_moves
from engine.rules.notation import parse_gnubg
from engine.rules.position import Position
from fibsbot.external import ExternalPlayerServer, answer, parse_listen, read_request
from tests.fake_agent import FakeAgent
from tests.gnubg_cli import GNUBG, require_gnubg

# Lines captured from gnubg 1.07 playing against an external player.
# Player 1 ("root") to move 64, post-Crawford, gnubg 2 - root 4 (note: gnubg's name and score first).
SEAT1_MOVE = (
    "board:gnubg:root:5:2:4:0:-1:0:-1:0:0:5:0:3:0:0:0:-4:5:0:0:0:-4:0:-5:0:0:0:0:2:0:1:"
    "4:6:4:6:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:1:1"
)
# gnubg doubled player 1 at the same score: root's name and score come first now.
SEAT1_DOUBLED = (
    "board:root:gnubg:5:4:2:0:-1:0:-1:0:0:5:0:3:0:0:0:-4:5:0:0:0:-4:1:-5:1:0:0:0:0:0:-1:"
    "0:0:0:0:1:1:1:1:1:-1:0:25:0:0:0:0:0:0:1:1"
)
# gnubg, owning the cube at 2, redoubles; player 1 has a checker on the bar.
SEAT1_REDOUBLED = (
    "board:root:gnubg:3:0:0:0:0:0:0:0:-1:5:0:4:0:2:0:-5:3:0:0:0:0:0:-4:-1:-2:-2:0:0:1:"
    "-1:0:0:0:0:2:0:1:1:1:-1:0:25:0:0:0:0:0:0:0:1"
)
# player 1 owns the cube at 4 and has rolled 25, a checker on the bar.
SEAT1_OWNS_CUBE = (
    "board:gnubg:root:3:0:0:0:0:0:0:0:-1:5:0:4:0:2:0:-4:3:0:0:0:-1:0:-3:-2:-2:-2:0:0:1:"
    "1:2:5:2:5:4:1:0:0:1:-1:0:25:0:0:0:0:0:0:0:1"
)
# gnubg 1.07 with the external player in seat 0 ("extbot"): the turn field says X acts.
SEAT0_MOVE = (
    "board:extbot:gnubg:5:1:3:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:1:0:-3:0:-5:0:0:0:0:1:0:-1:"
    "2:6:2:6:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1"
)


def with_fields(line: str, **changes: int) -> str:
    fields = line.split(":")
    for index, value in changes.items():
        fields[int(index[1:])] = str(value)
    return ":".join(fields)


def test_seat1_move_request():
    request = read_request(SEAT1_MOVE, our_name="root")
    assert np.array_equal(request.board[0], Position.initial().board[0])
    # gnubg opened 52: 13/8 24/22, seen from its own side
    theirs = np.zeros(25, np.int8)
    theirs[[5, 7, 12, 21, 23]] = [5, 4, 4, 1, 1]
    assert np.array_equal(request.board[1], theirs)
    assert request.dice == (6, 4) and not request.doubled and not request.may_double
    state = request.state
    assert state.score == (4, 2) and state.match_length == 5 and not state.crawford
    assert (state.cube, state.cube_owner, state.on_roll, state.dice) == (1, CENTRED, 0, (6, 4))


def test_without_our_name_gnubgs_field_order_gives_the_score():
    # field 1 is gnubg's player (asked XOR on move): player 0 on ordinary requests
    assert read_request(SEAT1_MOVE).state.score == (4, 2)
    assert read_request(SEAT1_MOVE, our_name="nobody").state.score == (4, 2)
    assert read_request(SEAT1_DOUBLED).state.score == (4, 2)
    assert read_request(SEAT0_MOVE).state.score == (1, 3)


def test_a_beaver_is_accepted_without_asking_the_agent():
    # we (player 1) doubled to 4 and gnubg beavered: the turn stays ours, gnubg asks us again
    beaver = (
        "board:gnubg:fibsbot:0:4:10:-2:4:2:0:2:0:-1:1:-2:0:1:0:-2:4:0:0:0:-2:0:-2:-2:-2:1:0:0:0:1:"
        "0:0:0:0:4:0:1:1:1:-1:0:25:0:0:0:0:0:0:0:1"
    )
    request = read_request(beaver, our_name="fibsbot", seat=1)
    assert request.beaver and not request.doubled and request.state.score == (10, 4)
    assert request.state.match_length == 0 and request.state.cube == 4
    agent = FakeAgent(take=False)
    assert answer(beaver, agent, our_name="fibsbot", seat=1) == "take" and agent.calls == []
    # without the seat learnt earlier the line reads as a double by player 1 to player 0
    assert read_request(beaver, our_name="fibsbot").seat == 0


def test_seat1_doubled_requests():
    request = read_request(SEAT1_DOUBLED, our_name="root")
    assert request.doubled and request.dice is None and not request.may_double
    assert request.state.score == (4, 2) and request.state.doubled and request.state.on_roll == 1
    assert request.state.cube_owner == CENTRED
    redouble = read_request(SEAT1_REDOUBLED, our_name="root")
    assert redouble.doubled and redouble.state.cube == 2 and redouble.state.cube_owner == 1
    assert redouble.board[0, 24] == 1 and int(redouble.board[0].sum()) == 15


def test_cube_owned_by_us_and_crawford():
    owned = read_request(SEAT1_OWNS_CUBE, our_name="root")
    assert owned.state.cube == 4 and owned.state.cube_owner == 0 and owned.dice == (5, 2)
    # the same position before rolling: we may double
    before = read_request(with_fields(SEAT1_OWNS_CUBE, f33=0, f34=0, f35=0, f36=0), our_name="root")
    assert before.dice is None and before.may_double
    # 2-0 in a 3-point match, field 52 at 0 as gnubg writes the Crawford game: nobody doubles
    crawford = with_fields(SEAT1_MOVE, f3=3, f4=2, f5=0, f33=0, f34=0, f35=0, f36=0, f51=0, f52=0)
    request = read_request(crawford, our_name="root")
    assert request.state.crawford and not request.may_double
    post = read_request(with_fields(crawford, f51=1), our_name="root")
    assert not post.state.crawford and post.may_double


def test_seat0_request_is_read_from_the_side_the_turn_names():
    request = read_request(SEAT0_MOVE, our_name="extbot")
    assert np.array_equal(request.board[0], Position.initial().board[0])  # X's opening, moving 1 -> 24
    theirs = np.zeros(25, np.int8)
    theirs[[5, 7, 12, 14, 23]] = [5, 3, 5, 1, 1]  # gnubg played 24/15
    assert np.array_equal(request.board[1], theirs)
    assert request.state.score == (1, 3) and request.dice == (6, 2)


@pytest.mark.parametrize(
    "line, reason",
    [
        ("hello", "not a board line"),
        ("board:a:b:1", "not a board line"),
        (with_fields(SEAT1_MOVE, f32=0), "game is over"),
        (with_fields(SEAT1_MOVE, f4=9), "inconsistent match state"),
    ],
)
def test_bad_requests_get_an_error_answer(line, reason):
    reply = answer(line, FakeAgent())
    assert reply.startswith("Error: ") and reason in reply


def test_answers_from_the_agent():
    agent = FakeAgent(double=True, take=False)
    move = answer(SEAT1_MOVE, agent, our_name="root")
    request = read_request(SEAT1_MOVE, our_name="root")
    legal = {after for _, after in legal_moves(Position(request.board), 6, 4)}
    assert apply(request.board, parse_gnubg(move, request.board, (6, 4))) in legal
    kind, board, state = agent.calls[-1]
    assert kind == "move" and state.score == (4, 2) and np.array_equal(board, request.board)
    assert answer(SEAT1_DOUBLED, agent, our_name="root") == "drop"
    assert answer(SEAT1_DOUBLED, FakeAgent(take=True), our_name="root") == "take"
    no_dice = with_fields(SEAT1_MOVE, f33=0, f34=0, f35=0, f36=0)
    assert answer(no_dice, agent, our_name="root") == "double"
    assert answer(no_dice, FakeAgent(double=False), our_name="root") == "roll"
    crawford = with_fields(no_dice, f3=3, f4=2, f5=0, f51=0, f52=0)
    assert answer(crawford, agent, our_name="root") == "roll"  # never asks the agent in the Crawford game
    assert agent.kinds()[-1] == "double"


def test_a_dance_is_an_empty_answer():
    # we have a checker on the bar and gnubg holds our 19 point, where a 6 enters
    closed = with_fields(SEAT1_REDOUBLED, f32=1, f33=6, f34=6, f35=6, f36=6, f40=0)
    request = read_request(closed, "root")
    assert request.board[0, 24] == 1 and request.dice == (6, 6)
    assert [move for move, _ in legal_moves(Position(request.board), 6, 6)] == [()]
    assert answer(closed, FakeAgent(), our_name="root") == ""


def apply(board: np.ndarray, steps) -> Position:
    """The position after ``steps`` (mover in row 0), hitting blots on the way."""
    board = board.copy()
    for start, end in steps:
        board[0, start - 1] -= 1
        if end:
            board[0, end - 1] += 1
            if board[1, 24 - end] == 1:
                board[1, 24 - end] = 0
                board[1, 24] += 1
    return Position(board)


def test_parse_listen():
    assert parse_listen("127.0.0.1:8765") == ("127.0.0.1", 8765)
    assert parse_listen("[::1]:0") == ("::1", 0)
    for bad in ("8765", "host:", ":80", "h:99999", "h:x"):
        with pytest.raises(ValueError):
            parse_listen(bad)


async def test_server_speaks_the_wire_protocol():
    seen = []
    player = ExternalPlayerServer(FakeAgent(), our_name="root", on_answer=lambda q, a: seen.append((q, a)))
    server = await asyncio.start_server(player.handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(SEAT1_DOUBLED.encode() + b"\n\0")
        writer.write(b"garbage\n\0" + with_fields(SEAT1_MOVE, f33=0, f34=0, f35=0, f36=0).encode() + b"\n\0")
        replies = [await asyncio.wait_for(reader.readline(), 5) for _ in range(3)]
        writer.close()
        await writer.wait_closed()
    assert replies[0] == b"take\n" and replies[1].startswith(b"Error: ") and replies[2] == b"roll\n"
    assert [a for _, a in seen] == [r.decode().strip() for r in replies]


# ---------------------------------------------------------------------- a whole match against gnubg


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


class _BrokenAgent(FakeAgent):
    def choose_move(self, board, d1, d2, state):
        raise RuntimeError("engine exploded")


async def test_an_engine_failure_is_answered_not_hung(tmp_path):
    events = tmp_path / "e.jsonl"
    from fibsbot.records.events import event_logger

    player = ExternalPlayerServer(_BrokenAgent(), our_name="root", log=event_logger(events))
    server = await asyncio.start_server(player.handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(SEAT1_MOVE.encode() + b"\n\0" + SEAT1_DOUBLED.encode() + b"\n\0")
        replies = [await asyncio.wait_for(reader.readline(), 5) for _ in range(2)]
        writer.close()
        await writer.wait_closed()
    assert replies[0].startswith(b"Error: internal error: RuntimeError: engine exploded")
    assert replies[1] == b"take\n"  # the connection survives
    logged = [json.loads(line) for line in events.read_text().splitlines()]
    failure = next(e for e in logged if e["event"] == "external_engine_failed")
    assert "engine exploded" in failure["exception"]


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
