"""The FIBS client path: a board line, through the CLIP parser and the match driver, reaches
the agent with the score (ours first), match length, cube, owner, Crawford and
post-Crawford game, dice and board of the line."""

from __future__ import annotations

import numpy as np
import pytest

from engine.rules.position import board_from_position_id
from fibsbot.protocol.board import parse_board_line
from tests.match_bot import Bot
from tests.plumbing_records import CLIP_LINES, CLIP_THEIR_TURN, MIDDLE, RecordingAgent, assert_state

START = "** Player bob has joined you for a {} point match.\r\n"
START_UNLIMITED = "** Player bob has joined you for an unlimited match.\r\n"
DOUBLES = "bob doubles. Type 'accept' or 'reject'.\r\n"
# the same position in every line, our checkers first
OURS_FIRST = board_from_position_id(MIDDLE)


def handed(line: str) -> tuple:
    agent = RecordingAgent()
    bot = Bot(agent)
    fibs = parse_board_line(line)
    bot.feed(START_UNLIMITED if fibs.is_unlimited else START.format(fibs.match_length))
    bot.feed((DOUBLES if fibs.opponent_doubled else "") + line + "\r\n")
    (call,) = agent.calls
    return call


@pytest.mark.parametrize("name", list(CLIP_LINES))
def test_each_board_line_hands_the_agent_its_state(name):
    line, expected = CLIP_LINES[name]
    kind, board, state, dice = handed(line)
    assert kind == expected.kind
    assert_state(state, expected)
    assert dice == expected.dice
    assert np.array_equal(board, OURS_FIRST)  # ours in row 0 whatever colour and direction
    if kind == "move":
        assert state.on_roll == 0 and state.dice == tuple(sorted(dice, reverse=True))
    if kind == "take":
        assert state.doubled and state.on_roll == 1 and state.to_decide == 0


@pytest.mark.parametrize("name", [n for n in CLIP_LINES if n.startswith("unlimited")])
def test_an_unlimited_match_is_money_play_without_the_jacoby_rule(name):
    """FIBS plays unlimited matches without the Jacoby rule: gammons count with the cube
    in the middle (fibs.com's guide: "automatic doubles, beavers, raccoons, except for
    the Jacoby rule"), and the local server scores them so too."""
    _, _, state, _ = handed(CLIP_LINES[name][0])
    assert state.is_money and state.jacoby is False


def test_a_resignation_is_judged_at_the_score_and_cube_of_the_line():
    agent = RecordingAgent()
    bot = Bot(agent)
    bot.feed(START.format(7))
    bot.feed(CLIP_THEIR_TURN + "\r\n")
    assert agent.calls == []  # bob to roll: nothing for us
    bot.feed("bob wants to resign. You will win 4 points. Type 'accept' or 'reject'.\r\n")
    ((kind, board, state, (level, we_are_on_roll)),) = agent.calls
    assert kind == "resign" and level == 2 and not we_are_on_roll  # 4 points at a 2-cube: a gammon
    assert (state.score, state.match_length, state.cube, state.cube_owner) == ((2, 3), 7, 2, 0)
    assert state.resigned == 2 and state.on_roll == 1
    assert np.array_equal(board, OURS_FIRST)
