"""The match driver against stale states, dances, unsure boards and glued server lines."""

from __future__ import annotations

from fibsbot.protocol.board import parse_board_line
from tests.fake_agent import FakeAgent
from tests.fibs_samples import MID_X_DOWN, OPENING_X_DOWN
from tests.match_bot import ROLL_OR_DOUBLE, START, Bot, fields

# --- staleness, dances, unsure states -----------------------------------------------------------


def test_stale_answer_is_dropped_and_a_redisplay_keeps_the_request():
    bot = Bot()
    bot.feed("** Player bob has joined you for a 7 point match.\r\n")
    bot.feed(MID_X_DOWN + "\r\n", answer=False)
    request = bot.requests[-1]
    bot.feed(MID_X_DOWN + "\r\n", answer=False)  # the same board again
    assert bot.driver.pending is request and len(bot.requests) == 1
    bot.feed(fields(MID_X_DOWN, f32=1, f33=0, f34=0) + "\r\n")  # now bob's turn: stale
    assert bot.driver.decided(request, ((25, 20), (20, 17))) == []


def test_same_position_after_a_dance_gets_a_new_decision():
    bot = Bot()
    bot.feed("** Player bob has joined you for a 7 point match.\r\n")
    assert len(bot.feed(MID_X_DOWN + "\r\n")) == 1
    assert bot.feed("bob rolls 6 and 6.\r\nbob can't move.\r\n" + MID_X_DOWN + "\r\n") != []
    assert bot.agent.kinds() == ["move", "move"]


def test_no_board_after_match_start_asks_for_it():
    bot = Bot(board_delay=3.0)
    bot.feed("** Player bob has joined you for a 3 point match.\r\n")
    assert [(w.timer.purpose, w.seconds) for w in bot.waits if w.timer.purpose != "inactive"] == [("board", 3.0)]
    assert bot.fire("board") == ["board"]
    answered = Bot()
    answered.feed(START + OPENING_X_DOWN + "\r\n")
    assert answered.fire("board") == []  # boards arrived: nothing to ask


def test_refused_command_makes_the_driver_look_again_a_few_times():
    bot = Bot(max_retries=2)
    bot.feed("** Player bob has joined you for a 7 point match.\r\n")
    assert len(bot.feed(MID_X_DOWN + "\r\n")) == 1
    for _ in range(2):
        assert bot.feed("** You can't move that way.\r\n") == ["board"]
        assert len(bot.feed(MID_X_DOWN + "\r\n")) == 1  # decided again
    assert bot.feed("** You can't move that way.\r\n") == []  # gave up retrying
    assert bot.agent.kinds() == ["move"] * 3


def test_bad_board_line_asks_for_the_board_but_not_forever():
    bot = Bot(max_board_requests=2)
    bot.feed(START)
    bad = MID_X_DOWN.replace(":-2:0:1:", ":-9:0:1:")
    assert bot.feed(bad + "\r\n") == ["board"]
    assert bot.feed(bad + "\r\n") == ["board"]
    assert bot.feed(bad + "\r\n") == []


def test_move_prompt_that_contradicts_the_board_asks_for_it():
    bot = Bot()
    bot.feed(START)
    bot.feed(fields(OPENING_X_DOWN, f32=1, f33=0, f34=0) + "\r\n")  # bob's turn
    assert bot.feed("Please move 2 pieces.\r\n") == ["board"]


def test_watched_boards_are_ignored():
    bot = Bot()
    bot.feed(fields(MID_X_DOWN, f1="alice") + "\r\n")
    assert bot.requests == [] and not bot.driver.in_match


def test_board_line_alone_puts_us_in_the_match():
    # a resume we did not see announced: the board line is the truth
    bot = Bot()
    assert len(bot.feed(MID_X_DOWN + "\r\n")) == 1
    assert bot.driver.in_match and bot.driver.opponent == "bob"
    assert parse_board_line(MID_X_DOWN).opponent == bot.driver.snapshot().opponent


def test_unlimited_match_is_a_money_game_for_the_agent():
    bot = Bot()
    bot.feed("** Player bob has joined you for an unlimited match.\r\n")
    bot.feed(fields(MID_X_DOWN, f3=9999) + "\r\n", answer=False)
    assert bot.requests[0].state.match_length == 0 and bot.requests[0].state.is_money


# --- more traps from the real server ---------------------------------------------------------


def test_accepted_double_glued_to_the_board_then_roll_after_the_wait():
    bot = Bot(FakeAgent(double=True), roll_delay=0.1)
    bot.feed("** Player bob has joined you for a 7 point match.\r\n")
    assert bot.feed(ROLL_OR_DOUBLE + "\r\n") == ["double"]
    accepted = fields(ROLL_OR_DOUBLE, f37=2, f38=0, f39=1)  # our turn, cube 2 now bob's
    assert bot.feed("bob accepts the double.  The cube shows 2." + accepted + "\r\n") == []
    assert bot.fire("roll") == ["roll"]  # the server did not roll for us


def test_checker_count_field_zero_does_not_stop_a_move():
    bot = Bot()
    bot.feed("** Player bob has joined you for a 7 point match.\r\n")
    sent = bot.feed(fields(MID_X_DOWN, f49=0) + "Please move 1 pieces.\r\n")  # field 49 lies
    assert len(sent) == 1 and sent[0].startswith("move bar-")


def test_move_dump_glued_to_the_game_end_then_join():
    bot = Bot()
    bot.feed(START)
    text = (
        "bob moves 3-off 1-off .bob wins the game and gets 1 point. Sorry.\r\n"
        "score in 5 point match: bot-0 bob-1\r\n"
        "Type 'join' if you want to play the next game, type 'leave' if you don't.\r\n"
    )
    assert bot.feed(text) == ["join"]


def test_match_resumed_between_games_joins_the_next_game():
    bot = Bot()
    text = (
        "bob has joined you. Your running match was loaded.\r\nturn: bob\r\nmatch length: 5\r\n"
        "points for user bot: 1\r\npoints for user bob: 0\r\n"
    )
    assert bot.feed(text + fields(OPENING_X_DOWN, f4=1, f32=0, f33=0, f34=0) + "\r\n") == ["join"]


def test_roll_prompt_before_its_board_rolls_as_soon_as_the_board_comes():
    bot = Bot()
    bot.feed(START + fields(OPENING_X_DOWN, f32=1, f33=0, f34=0) + "\r\n")  # bob's turn
    assert bot.feed("It's your turn. Please roll or double\r\n") == ["board"]
    assert bot.feed(fields(MID_X_DOWN, f33=0, f34=0) + "\r\n") == ["roll"]  # no wait: we were asked
