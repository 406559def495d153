"""The match driver: server text in, exact commands out, for every trap real bots meet."""

from __future__ import annotations

import numpy as np
import pytest

from engine.rules.ids import CENTRED
from fibsbot.protocol.board import FibsBoard, O, X
from fibsbot.protocol.match.outputs import DoubleRequest, MoveRequest, ResignRequest, Send, TakeRequest
from tests.board_builder import make_row
from tests.fake_agent import FakeAgent
from tests.fibs_samples import MID_O_DOWN, MID_O_UP, MID_X_DOWN, MID_X_UP, OPENING_O_UP, OPENING_X_DOWN
from tests.match_bot import ROLL_OR_DOUBLE, START, Bot, fields

# --- the opening move and move notation -------------------------------------------------


def test_opening_move_comes_without_a_prompt():
    bot = Bot()
    assert bot.feed(START) == []
    sent = bot.feed(OPENING_X_DOWN + "\r\n", answer=False)
    assert sent == []
    (request,) = bot.requests
    assert isinstance(request, MoveRequest) and request.dice == (6, 2)
    assert request.state.match_length == 5 and request.state.score == (0, 0)
    assert request.state.on_roll == 0 and request.state.dice == (6, 2)
    assert np.array_equal(request.board[0], request.board[1])  # the opening, seen from us
    assert bot.driver.decided(request, ((24, 18), (13, 11))) == [Send("move 24-18 13-11")]


@pytest.mark.parametrize(
    "line, expected",
    [
        (OPENING_X_DOWN, "move 24-18 13-11"),  # X moving 24 -> 1: server point = our point
        (OPENING_O_UP, "move 1-7 12-14"),  # O moving 1 -> 24: server point = 25 - our point
    ],
)
def test_move_in_the_servers_numbering(line, expected):
    bot = Bot()
    bot.feed(START)
    bot.feed(line + "\r\n", answer=False)
    assert bot.driver.decided(bot.requests[-1], ((24, 18), (13, 11))) == [Send(expected)]


@pytest.mark.parametrize(
    "line, expected",
    [
        (MID_X_DOWN, "move bar-20 20-17"),
        (MID_O_DOWN, "move bar-20 20-17"),
        (MID_O_UP, "move bar-5 5-8"),
        (MID_X_UP, "move bar-5 5-8"),
    ],
)
def test_bar_entry_in_all_four_seats_with_bar_fields_left_at_zero(line, expected):
    bot = Bot()
    bot.feed("** Player bob has joined you for a 7 point match.\r\n")
    bot.feed(fields(line, f47=0, f48=0) + "\r\n", answer=False)  # bar counts only in the cells
    (request,) = bot.requests
    assert request.board[0, 24] == 1 and request.board[1, 24] == 2
    assert request.state.cube == 2 and request.state.cube_owner == 1  # bob may double: his cube
    assert request.state.score == (2, 3) and request.state.match_length == 7
    assert bot.driver.decided(request, ((25, 20), (20, 17))) == [Send(expected)]


@pytest.mark.parametrize("direction, colour, expected", [(-1, X, "move 2-off 2-off"), (1, O, "move 23-off 23-off")])
def test_bear_off_uses_the_off_word(direction, colour, expected):
    board = FibsBoard.from_rows(
        make_row({2: 2}),
        make_row({6: 15}),
        on_roll="us",
        opponent="bob",
        match_length=5,
        player_dice=(6, 2),
        colour=colour,
        direction=direction,
    )
    bot = Bot()
    bot.feed(START)
    bot.feed(board.to_line() + "\r\n", answer=False)
    assert bot.driver.decided(bot.requests[-1], ((2, 0), (2, 0))) == [Send(expected)]


def test_glued_roll_and_prompt_without_line_end_give_one_move():
    bot = Bot()
    bot.feed("** Player bob has joined you for a 7 point match.\r\n")
    sent = bot.feed(MID_X_DOWN + "You roll 5 and 3.\r\nPlease move 2 pieces.\r\n> ")
    assert len(sent) == 1 and sent[0].startswith("move bar-")
    assert bot.agent.kinds() == ["move"]
    assert bot.feed(MID_X_DOWN + "\r\n") == []  # a redisplay asks nothing again


def test_session_fed_one_character_at_a_time_sends_the_same():
    text = START + OPENING_X_DOWN + "\r\nbob rolls 4 and 2.\r\n" + MID_X_DOWN + "You roll 5 and 3.\r\n> "
    whole, chunked = Bot(), Bot()
    expected = whole.feed(text)
    sent = [line for ch in text for line in chunked.feed(ch)]
    assert len(expected) == 2 and all(line.startswith("move ") for line in expected)
    assert sent == expected


def test_illegal_agent_move_is_replaced_by_a_legal_one():
    bot = Bot()
    bot.feed(START)
    bot.feed(OPENING_X_DOWN + "\r\n", answer=False)
    (sent,) = bot.driver.decided(bot.requests[-1], ((24, 14),))  # not a 6-2
    assert sent.text.startswith("move ") and sent.text != "move 24-14"


def test_no_legal_move_asks_nothing():
    # our checker on the bar, all six entry points closed
    board = FibsBoard.from_rows(
        make_row({25: 1, 6: 14}),
        make_row({p: 2 for p in range(1, 7)} | {13: 3}),
        on_roll="us",
        opponent="bob",
        match_length=5,
        player_dice=(3, 4),
    )
    bot = Bot()
    bot.feed(START)
    assert bot.feed(board.to_line() + "\r\nYou can't move.\r\n") == [] and bot.requests == []


# --- rolling, doubling, auto-roll ------------------------------------------------------------------


def test_double_or_roll_decision_when_we_may_double():
    bot = Bot(FakeAgent(double=False))
    bot.feed("** Player bob has joined you for a 7 point match.\r\n")
    assert bot.feed(ROLL_OR_DOUBLE + "\r\nIt's your turn. Please roll or double\r\n") == ["roll"]
    assert isinstance(bot.requests[0], DoubleRequest) and bot.requests[0].state.cube_owner == CENTRED
    doubler = Bot(FakeAgent(double=True))
    doubler.feed("** Player bob has joined you for a 7 point match.\r\n")
    assert doubler.feed(ROLL_OR_DOUBLE + "\r\n") == ["double"]
    # our double is pending: turn negated to bob's colour, both flags 0 -> nothing to do
    pending = fields(ROLL_OR_DOUBLE, f32=1, f38=0, f39=0)
    assert doubler.feed("You double. Please wait for bob to accept or reject.\r\n" + pending + "\r\n") == []
    assert [w for w in doubler.waits if w.timer.purpose == "roll"] == [] and len(doubler.requests) == 1


def test_server_auto_roll_when_the_opponent_owns_the_cube():
    bot = Bot()
    bot.feed("** Player bob has joined you for a 7 point match.\r\n")
    no_dice = fields(MID_X_DOWN, f33=0, f34=0)  # cube 2 owned by bob: we may not double
    assert bot.feed(no_dice + "\r\n") == []
    assert [w.seconds for w in bot.waits if w.timer.purpose == "roll"] == [2.0]
    sent = bot.feed("You roll 5 and 3.\r\n" + MID_X_DOWN + "\r\n")  # the server rolled for us
    assert len(sent) == 1 and sent[0].startswith("move")
    assert bot.fire("roll") == []  # the stale roll timer sends nothing


def test_roll_after_a_short_wait_when_the_server_does_not():
    bot = Bot(roll_delay=0.5)
    bot.feed("** Player bob has joined you for a 7 point match.\r\n")
    bot.feed(fields(MID_X_DOWN, f33=0, f34=0) + "\r\n")
    assert [w.seconds for w in bot.waits if w.timer.purpose == "roll"] == [0.5]
    assert bot.fire("roll") == ["roll"]


def test_roll_prompt_rolls_at_once_and_the_timer_then_stays_quiet():
    bot = Bot()
    bot.feed("** Player bob has joined you for a 7 point match.\r\n")
    assert bot.feed(fields(MID_X_DOWN, f33=0, f34=0) + "It's your turn. Please roll or double\r\n") == ["roll"]
    assert bot.fire("roll") == []


def test_crawford_game_with_both_may_double_flags_set_never_doubles():
    crawford = fields(ROLL_OR_DOUBLE, f3=5, f4=4, f5=2)  # 5-point match, we are 1-away
    bot = Bot(FakeAgent(double=True))
    bot.feed("** Player bob has joined you for a 5 point match.\r\n")
    assert bot.feed(crawford + "\r\n") == []
    assert bot.requests == [] and [w.timer.purpose for w in bot.waits].count("roll") == 1
    assert bot.fire("roll") == ["roll"]
    post = Bot(FakeAgent(double=True))
    post.feed("** Player bob has joined you for a 5 point match.\r\n")
    assert post.feed(fields(crawford, f51=1) + "\r\n") == ["double"]  # post-Crawford: may double


def test_crawford_flag_reaches_the_match_state():
    crawford = fields(MID_X_DOWN, f3=5, f4=4, f5=2, f37=1, f38=1, f39=1)
    bot = Bot()
    bot.feed("** Player bob has joined you for a 5 point match.\r\n")
    bot.feed(crawford + "\r\n", answer=False)
    assert bot.requests[0].state.crawford and bot.requests[0].state.score == (4, 2)


# --- being doubled: the turn field is negated ---------------------------------------------------


DOUBLED = fields(ROLL_OR_DOUBLE, f38=0, f39=0, f40=1)  # turn = our colour, was_doubled 1


@pytest.mark.parametrize("take, answer", [(True, "accept"), (False, "reject")])
def test_take_decision_after_a_double(take, answer):
    bot = Bot(FakeAgent(take=take))
    bot.feed("** Player bob has joined you for a 7 point match.\r\n")
    bot.feed(fields(ROLL_OR_DOUBLE, f32=1) + "\r\n")  # bob to roll or double
    sent = bot.feed("bob doubles. Type 'accept' or 'reject'.\r\n" + DOUBLED + "\r\n")
    assert sent == [answer] and bot.agent.kinds() == ["take"]  # one decision, not two
    (request,) = bot.requests
    assert isinstance(request, TakeRequest)
    assert request.state.doubled and request.state.on_roll == 1 and request.state.to_decide == 0


def test_double_message_while_the_board_shows_our_move_asks_for_the_board():
    bot = Bot()
    bot.feed("** Player bob has joined you for a 7 point match.\r\n")
    bot.feed(MID_X_DOWN + "\r\n", answer=False)
    assert bot.feed("bob doubles. Type 'accept' or 'reject'.\r\n", answer=False) == ["board"]


# --- resignations, game and match end, resume ----------------------------------------------------


@pytest.mark.parametrize("accept, answer", [(True, "accept"), (False, "reject")])
def test_resignation_offer_is_answered(accept, answer):
    bot = Bot(FakeAgent(accept_resign=accept))
    bot.feed("** Player bob has joined you for a 7 point match.\r\n")
    bot.feed(fields(MID_X_DOWN, f32=1, f33=0, f34=0) + "\r\n")  # bob's turn
    sent = bot.feed("bob wants to resign. You will win 4 points. Type 'accept' or 'reject'.\r\n")
    assert sent == [answer]
    (request,) = bot.requests
    assert isinstance(request, ResignRequest) and request.level == 2 and request.points == 4  # cube 2
    assert not request.we_are_on_roll and request.state.resigned == 2


def test_join_between_games_and_idle_after_the_match():
    bot = Bot()
    bot.feed(START)
    text = (
        "bob wins the game and gets 2 points. Sorry.\r\nscore in 5 point match: bot-0 bob-2\r\n"
        "Type 'join' if you want to play the next game, type 'leave' if you don't.\r\n"
    )
    assert bot.feed(text) == ["join"]
    assert bot.feed("bob wins the 5 point match 5-1 .\r\n") == []
    assert not bot.driver.in_match and bot.driver.matches_finished == 1
    assert bot.feed("Type 'join' if you want to play the next game, type 'leave' if you don't.\r\n") == []


def test_resumed_match_plays_from_its_board():
    bot = Bot()
    text = (
        "You are now playing with bob. Your running match was loaded.\r\nturn: bot\r\n"
        "match length: 7\r\npoints for user bot: 2\r\npoints for user bob: 3\r\n" + MID_O_UP + "\r\n"
    )
    sent = bot.feed(text)
    assert len(sent) == 1 and sent[0].startswith("move bar-")
    assert bot.driver.in_match and bot.driver.opponent == "bob"


def test_dropped_match_is_resumed_after_reconnect_or_when_the_opponent_returns():
    bot = Bot()
    bot.feed(START)
    bot.driver.connection_lost()
    assert bot.driver.saved_opponent == "bob" and not bot.driver.in_match
    assert bot.driver.resume_commands() == [Send("show saved")]  # the server's listing decides
    assert bot.feed(SAVED_HEADER + "  bob                     5                0 -  0\r\n") == []  # offline
    assert bot.feed("7 carol carol logs in.\r\n") == []
    assert bot.feed("7 bob bob logs in.\r\n") == ["invite bob"]
    bot.feed(
        "bob has joined you. Your running match was loaded.\r\nturn: bob\r\nmatch length: 5\r\n"
        "points for user bot: 0\r\npoints for user bob: 0\r\n"
    )
    assert bot.driver.in_match and bot.driver.saved_opponent is None


SAVED_HEADER = "  opponent          matchlength   score (your points first)\r\n"


def test_opponent_leaving_saves_the_match():
    bot = Bot()
    bot.feed(START)
    bot.feed("** Player bob has left the game. The game was saved.\r\n")
    assert bot.driver.saved_opponent == "bob" and not bot.driver.in_match


# --- answers: safe defaults and the real engine agent -------------------------------------


def test_fallback_answers_are_safe():
    from fibsbot.protocol.match.outputs import fallback_answer

    bot = Bot()
    bot.feed("** Player bob has joined you for a 7 point match.\r\n")
    bot.feed(MID_X_DOWN + "\r\n", answer=False)
    request = bot.requests[-1]
    (sent,) = bot.driver.decided(request, fallback_answer(request))  # the agent failed
    assert sent.text.startswith("move bar-")
    taker = Bot()
    taker.feed("** Player bob has joined you for a 7 point match.\r\n")
    redouble = fields(MID_X_DOWN, f33=0, f34=0, f38=0, f39=0, f40=1)  # bob redoubles to 4
    taker.feed(redouble + "\r\n", answer=False)
    (take,) = taker.requests
    assert take.state.cube == 2 and take.state.cube_owner == 1  # bob owns the cube he turns
    assert taker.driver.decided(take, fallback_answer(take)) == [Send("accept")]


def test_the_engine_agent_answers_every_kind_of_request():
    from engine.rules.moves import legal_moves
    from engine.rules.notation import parse_fibs
    from engine.rules.position import Position
    from fibsbot.protocol.match.state import apply_steps
    from nets.player import load_agent

    agent = load_agent("net:default@0")
    unlimited = "** Player bob has joined you for an unlimited match.\r\n"
    for line in (OPENING_X_DOWN, MID_X_DOWN, MID_O_UP):
        bot = Bot(agent)
        bot.feed(unlimited)
        (command,) = bot.feed(fields(line, f3=9999) + "\r\n")
        request = bot.requests[-1]
        steps = parse_fibs(command, request.fibs.direction)
        after = apply_steps(request.board, steps)
        legal = {p.board.tobytes() for _, p in legal_moves(Position(request.board), *request.dice)}
        assert after is not None and after.tobytes() in legal
    for line, allowed in ((ROLL_OR_DOUBLE, {"double", "roll"}), (DOUBLED, {"accept", "reject"})):
        bot = Bot(agent)
        bot.feed(unlimited)
        sent = bot.feed(fields(line, f3=9999) + "\r\n")
        assert len(sent) == 1 and sent[0] in allowed
