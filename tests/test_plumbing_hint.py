"""``fibsbot hint``: a position given by Position and Match ID (as gnubg showed them), by XGID
(as gnubg reads them back) or as a batch line reaches the agent exactly as the same
request does through gnubg's external-player interface."""

from __future__ import annotations

import numpy as np
import pytest

from engine.rules.ids import CENTRED
from fibsbot.external import answer
from fibsbot.hint import hint, parse_batch_line, parse_request
from tests.plumbing_records import GNUBG_REQUESTS, MIDDLE, XGIDS, RecordingAgent, assert_state

# the Match ID gnubg showed while its double waited; gnubg's `set xgid` steps back to
# before the double, so this XGID is checked against that Match ID instead
DOUBLED_XGIDS = {"redoubled, we lead": "XGID=--BCCCD-------------ccccc-:1:-1:-1:D:3:0:0:7:10"}


def by_hint(**request) -> tuple:
    agent = RecordingAgent()
    hint(agent, parse_request(**request))
    (call,) = agent.calls
    return call


def by_external(name: str) -> tuple:
    agent = RecordingAgent()
    answer(GNUBG_REQUESTS[name].line, agent)
    (call,) = agent.calls
    return call


def assert_same_request(seen: tuple, name: str) -> None:
    kind, board, state, dice = seen
    expected = GNUBG_REQUESTS[name].expected
    assert kind == expected.kind and dice == expected.dice
    assert_state(state, expected)
    ext_kind, ext_board, ext_state, _ = by_external(name)
    assert np.array_equal(board, ext_board)
    assert (state.on_roll, state.to_decide, state.doubled) == (
        ext_state.on_roll,
        ext_state.to_decide,
        ext_state.doubled,
    )


@pytest.mark.parametrize("name", list(GNUBG_REQUESTS))
def test_position_and_match_id_reach_the_agent_as_the_external_request(name):
    recorded = GNUBG_REQUESTS[name]
    # gnubg rolled for some of these after showing its IDs: the roll is given as dice
    dice = recorded.expected.dice if recorded.expected.kind == "move" else None
    assert_same_request(by_hint(position=recorded.position_id, match=recorded.match_id, dice=dice), name)


@pytest.mark.parametrize("name", list(XGIDS) + list(DOUBLED_XGIDS))
def test_xgid_reaches_the_agent_as_the_external_request(name):
    xgid = XGIDS.get(name) or DOUBLED_XGIDS[name]
    dice = GNUBG_REQUESTS[name].expected.dice
    assert_same_request(by_hint(xgid=xgid, dice=dice), name)


@pytest.mark.parametrize("name", ["crawford, we lead", "seat 0, our cube, before rolling", "redoubled, we lead"])
def test_a_batch_line_reaches_the_agent_as_the_external_request(name):
    recorded = GNUBG_REQUESTS[name]
    agent = RecordingAgent()
    hint(agent, parse_batch_line(f"{recorded.position_id} {recorded.match_id}"))
    assert_same_request(agent.calls[0], name)


def test_a_batch_lines_dice_are_the_roll_when_the_match_id_has_none():
    recorded = GNUBG_REQUESTS["their cube, we lead"]  # gnubg's Match ID shows no roll yet
    agent = RecordingAgent()
    hint(agent, parse_batch_line(f"{recorded.position_id} {recorded.match_id} 5 2"))
    assert_same_request(agent.calls[0], "their cube, we lead")


def test_a_position_alone_is_money_play_with_a_centred_cube():
    kind, board, state, dice = by_hint(position=MIDDLE, dice=(5, 2))
    assert kind == "move" and dice == (5, 2)
    assert state.is_money and (state.score, state.cube, state.cube_owner) == ((0, 0), 1, CENTRED)
    assert state.jacoby is False
    kind, _, state, _ = by_hint(position=MIDDLE)
    assert kind == "double" and state.is_money and state.on_roll == 0
