"""gnubg's external-player interface: reading gnubg 1.07's requests, answering them, the server on the wire."""

from __future__ import annotations

import asyncio
import json

import numpy as np
import pytest

from engine.rules.ids import CENTRED
from engine.rules.moves import legal_moves
from engine.rules.notation import parse_gnubg
from engine.rules.position import Position
from fibsbot.external import ExternalPlayerServer, answer, parse_listen, read_request
from tests.external_samples import (
    SEAT0_MOVE,
    SEAT1_DOUBLED,
    SEAT1_MOVE,
    SEAT1_OWNS_CUBE,
    SEAT1_REDOUBLED,
    apply,
    with_fields,
)
from tests.fake_agent import FakeAgent


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
