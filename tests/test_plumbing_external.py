"""``fibsbot external``: requests recorded from gnubg 1.07 reach the agent with gnubg's own state.

Each request of ``tests.plumbing_records`` is answered through ``fibsbot.external.answer``
by an agent that records what it is handed; the score (ours first), match length, cube,
its owner, the Crawford and post-Crawford game, the dice and the board must be those
gnubg held (its Position and Match ID at that moment).
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

import numpy as np
import pytest

from engine.cube.decision import may_double
from engine.rules.ids import CENTRED, match_state_from_id
from engine.rules.position import board_from_position_id
from fibsbot.external import ExternalPlayerServer, answer, read_request
from fibsbot.hint import as_player0
from fibsbot.protocol.board import parse_board_line
from fibsbot.protocol.match.state import cube_owner
from tests.plumbing_records import GNUBG_REQUESTS, OWNED_ONE_CUBE, RecordingAgent, assert_state

# gnubg names its players "gnubg" and the login name ("root" when these were recorded),
# whichever seat the external player takes; "fibsbot" is a name gnubg never wrote
OUR_NAMES = ["root", "gnubg", "fibsbot", None]


def handed(line: str, our_name: str | None = None, seat: int | None = None) -> tuple:
    agent = RecordingAgent()
    answer(line, agent, our_name=our_name, seat=seat)
    (call,) = agent.calls
    return call


@pytest.mark.parametrize("our_name", OUR_NAMES)
@pytest.mark.parametrize("name", list(GNUBG_REQUESTS))
def test_each_recorded_request_hands_the_agent_the_state_it_was_recorded_at(name, our_name):
    recorded = GNUBG_REQUESTS[name]
    kind, board, state, dice = handed(recorded.line, our_name)
    assert kind == recorded.expected.kind
    assert_state(state, recorded.expected)
    assert dice == recorded.expected.dice
    if kind == "move":
        assert state.dice == tuple(sorted(dice, reverse=True)) and state.on_roll == 0
    if kind == "take":
        assert state.doubled and state.on_roll == 1 and state.to_decide == 0
    # gnubg's Position ID has the side on roll first (the doubler while a double waits)
    assert np.array_equal(board[::-1] if kind == "take" else board, board_from_position_id(recorded.position_id))


@pytest.mark.parametrize("name", list(GNUBG_REQUESTS))
def test_the_expected_states_are_gnubgs_own_match_ids(name):
    recorded = GNUBG_REQUESTS[name]
    gnubg = as_player0(match_state_from_id(recorded.match_id), recorded.seat)
    expected = recorded.expected
    assert (gnubg.score, gnubg.match_length, gnubg.cube, gnubg.cube_owner, gnubg.crawford) == (
        expected.score,
        expected.length,
        expected.cube,
        expected.owner,
        expected.crawford,
    )
    assert gnubg.doubled == (expected.kind == "take")
    assert read_request(recorded.line).seat == recorded.seat


@pytest.mark.parametrize("name", list(GNUBG_REQUESTS))
def test_gnubg_asks_for_a_double_exactly_where_the_engine_may_double(name):
    """gnubg asks an external player to double or roll only when a double is possible
    (else it rolls for it); the state we hand on must make the engine agree."""
    recorded = GNUBG_REQUESTS[name]
    request = read_request(recorded.line)
    if recorded.expected.kind == "double":
        assert request.may_double and may_double(request.state)
    elif name in ("their cube, we lead", "seat 0, their cube, post-Crawford, we trail"):
        # gnubg rolled for us without asking: we may not double
        before_rolling = replace(request.state, dice=(0, 0))
        assert not request.may_double and not may_double(before_rolling)


@pytest.mark.parametrize("name", list(GNUBG_REQUESTS))
def test_cube_owner_agrees_with_the_clip_reading_of_the_same_line(name):
    """``fibsbot.protocol.match.state.cube_owner`` reads a board line from the side of its
    field 1 flags (gnubg's player 1 here) and, while a double waits, takes the doubler
    as owner of any cube above 1; both readings must give gnubg's owner."""
    recorded = GNUBG_REQUESTS[name]
    request = read_request(recorded.line)
    fibs = parse_board_line(recorded.line)
    by_flags = cube_owner(fibs)  # gnubg keeps the flags of the owner while a double waits
    seen_by_us = by_flags if by_flags == CENTRED or request.seat == 1 else 1 - by_flags
    assert request.state.cube_owner == seen_by_us == recorded.expected.owner
    if request.doubled:
        doubler_rule = CENTRED if fibs.cube == 1 else 1  # state.py's reading of a pending double
        assert request.state.cube_owner == doubler_rule


def test_an_owned_one_cube_follows_gnubg_where_the_clip_reading_says_centred():
    """gnubg lets a 1-cube be owned (``set cube owner``) and writes one flag; the external
    reading follows gnubg, the CLIP one says centred (FIBS never owns a 1-cube)."""
    kind, _, state, _ = handed(OWNED_ONE_CUBE.line)
    assert kind == "move"
    assert_state(state, OWNED_ONE_CUBE.expected)
    assert as_player0(match_state_from_id(OWNED_ONE_CUBE.match_id), 1).cube_owner == state.cube_owner == 0
    assert cube_owner(parse_board_line(OWNED_ONE_CUBE.line)) == CENTRED


async def test_the_server_hands_on_the_recorded_state_in_seat_0_with_the_default_name():
    """gnubg in seat 1 keeps the login name, which is also our default name."""
    agent = RecordingAgent()
    log = _ListLog()
    player = ExternalPlayerServer(agent, our_name="root", log=log)
    server = await asyncio.start_server(player.handle, "127.0.0.1", 0)
    names = ["seat 0, crawford, we trail", "seat 0, doubled from the centre", "seat 0, our cube, before rolling"]
    async with server:
        reader, writer = await asyncio.open_connection(*server.sockets[0].getsockname()[:2])
        for name in names:
            writer.write(GNUBG_REQUESTS[name].line.encode() + b"\n\0")
        replies = [await asyncio.wait_for(reader.readline(), 5) for _ in names]
        writer.close()
        await writer.wait_closed()
    assert not any(reply.startswith(b"Error") for reply in replies)
    for (kind, _, state, _), name in zip(agent.calls, names):
        assert kind == GNUBG_REQUESTS[name].expected.kind
        assert_state(state, GNUBG_REQUESTS[name].expected)
    # "root" stands beside gnubg's own score: reported once, never believed
    assert [fields["seat"] for event, fields in log.events if event == "external_names_disagree"] == [0]


def test_a_name_on_the_other_side_is_reported_not_believed():
    for name, recorded in GNUBG_REQUESTS.items():
        ours = "root" if recorded.seat == 1 else "gnubg"  # the names gnubg gave our seat
        theirs = "gnubg" if recorded.seat == 1 else "root"
        assert not read_request(recorded.line, our_name=ours).names_disagree, name
        assert read_request(recorded.line, our_name=theirs).names_disagree, name
        assert not read_request(recorded.line, our_name="fibsbot").names_disagree, name


class _ListLog:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict]] = []

    def info(self, event: str, **fields) -> None:
        self.events.append((event, fields))
