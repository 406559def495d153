"""The Crawford game from our own record of the match, whatever a reloaded board says."""

from __future__ import annotations

import pytest
from structlog.testing import capture_logs

from fibsbot.protocol.match.crawford import CrawfordBook, reckon_crawford
from fibsbot.protocol.match.outputs import DoubleRequest, MoveRequest, TakeRequest
from tests.fake_agent import FakeAgent
from tests.match_bot import ROLL_OR_DOUBLE, Bot, fields

# 5-point match: we ("You", X) have 1, bob has 4; no dice, the cube centred, both may-double
# flags set (as FIBS shows them in the Crawford game), fields 50 and 51 at 0
CRAWFORD = fields(ROLL_OR_DOUBLE, f3=5, f4=1, f5=4)
BEFORE = fields(CRAWFORD, f5=3)  # the game before: bob had 3
# the same position after the server reloaded the match: the post-Crawford field went 0 -> 1
RELOADED = fields(CRAWFORD, f51=1)
THEIR_TURN = fields(RELOADED, f32=1)  # bob (O) to roll or double
DOUBLED = fields(RELOADED, f38=0, f39=0, f40=1)  # bob doubled: the turn shows our colour
OUR_ROLL = fields(RELOADED, f33=5, f34=3)

MATCH_START = "** Player bob has joined you for a 5 point match.\r\n"
RELOAD = (
    "** Player bob has left the game. The game was saved.\r\n"
    "bob has joined you. Your running match was loaded.\r\n"
    "turn: bot\r\nmatch length: 5\r\npoints for user bot: 1\r\npoints for user bob: 4\r\n"
)


def crawford_game_then_reload(bot: Bot) -> None:
    """bob reached 4 in the game before; the Crawford game begins; the match is saved and reloaded."""
    bot.feed(MATCH_START)
    bot.feed(fields(BEFORE, f32=1) + "\r\n")  # bob to roll in the game before
    bot.feed("bob wins the game and gets 1 point. Sorry.\r\nStarting a new game with bob.\r\n")
    assert bot.feed(CRAWFORD + "\r\n") == []  # the Crawford game: no double, the server rolls for us
    bot.feed(RELOAD)


class Record:
    """A match journal's answer about one score."""

    def __init__(self, crawford_at: tuple[int, int] | None) -> None:
        self.crawford_at = crawford_at
        self.asked: list[tuple] = []

    def crawford_game(self, opponent, length, score):
        self.asked.append((opponent, length, score))
        return None if self.crawford_at is None else score == self.crawford_at


def test_a_reload_that_unsets_the_crawford_flag_does_not_make_us_double():
    bot = Bot(FakeAgent(double=True))
    crawford_game_then_reload(bot)
    with capture_logs() as logs:
        sent = bot.feed(RELOADED + "\r\nIt's your turn. Please roll or double\r\n")
    assert sent == ["roll"]
    assert not any(isinstance(request, DoubleRequest) for request in bot.requests)
    assert [log["event"] for log in logs].count("crawford_flag_disagrees") == 1


def test_the_match_state_of_a_reloaded_crawford_game_says_crawford():
    bot = Bot()
    crawford_game_then_reload(bot)
    bot.feed(OUR_ROLL + "\r\n", answer=False)
    (request,) = bot.requests
    assert isinstance(request, MoveRequest) and request.state.crawford and request.state.score == (1, 4)


def test_an_opponents_double_in_the_crawford_game_is_answered_and_logged():
    bot = Bot(FakeAgent(take=True))
    crawford_game_then_reload(bot)
    bot.feed(THEIR_TURN + "\r\n")
    with capture_logs() as logs:
        sent = bot.feed("bob doubles. Type 'accept' or 'reject'.\r\n" + DOUBLED + "\r\n")
    assert sent == ["accept"]
    (request,) = bot.requests
    assert isinstance(request, TakeRequest) and request.state.crawford and request.state.doubled
    doubled = [log for log in logs if log["event"] == "double_in_crawford_game"]
    assert len(doubled) == 1 and doubled[0]["score"] == [1, 4] and doubled[0]["opponent"] == "bob"


def test_the_game_after_the_crawford_game_may_be_doubled_in():
    bot = Bot(FakeAgent(double=True))
    crawford_game_then_reload(bot)
    bot.feed(RELOADED + "\r\n")
    bot.feed("You win the game and get 1 point. Congratulations!\r\nStarting a new game with bob.\r\n")
    assert bot.feed(fields(RELOADED, f4=2) + "\r\n") == ["double"]  # 2-4, post-Crawford


def test_a_new_process_asks_the_match_record():
    record = Record(crawford_at=(1, 4))
    bot = Bot(FakeAgent(double=True), match_record=record)
    bot.feed(RELOAD)
    assert bot.feed(RELOADED + "\r\nIt's your turn. Please roll or double\r\n") == ["roll"]
    assert record.asked == [("bob", 5, (1, 4))]
    assert bot.feed(RELOADED + "\r\n") == [] and len(record.asked) == 1  # decided once per game


def test_without_a_record_the_board_decides_a_resumed_game():
    bot = Bot(FakeAgent(double=True), match_record=Record(crawford_at=None))
    bot.feed(RELOAD)
    assert bot.feed(RELOADED + "\r\n") == ["double"]  # nothing says otherwise: post-Crawford


def test_a_board_that_says_crawford_is_obeyed_even_after_it():
    bot = Bot(FakeAgent(double=True))
    crawford_game_then_reload(bot)
    bot.feed("You win the game and get 1 point. Congratulations!\r\nStarting a new game with bob.\r\n")
    assert bot.feed(fields(CRAWFORD, f4=2) + "\r\n") == []  # the server would refuse a double


@pytest.mark.parametrize(
    "length, score, previous, verdict",
    [
        (5, (0, 0), None, False),
        (5, (1, 4), (1, 3), True),
        (5, (4, 1), (3, 1), True),
        (5, (2, 4), (1, 4), False),
        (5, (1, 4), None, None),
        (5, (3, 3), (2, 3), False),
        (1, (0, 0), None, True),
        (0, (7, 4), (6, 4), False),
    ],
)
def test_reckoning_from_the_game_before(length, score, previous, verdict):
    assert reckon_crawford(length, score, previous) is verdict


def test_the_book_keeps_each_games_verdict_and_forgets_an_ended_match():
    book = CrawfordBook()
    assert book.is_crawford("bob", 5, (3, 1), board_says=False) is False
    assert book.is_crawford("bob", 5, (4, 1), board_says=False) is True  # the game before was 3-1
    assert book.is_crawford("bob", 5, (4, 1), board_says=False) is True
    assert book.is_crawford("bob", 5, (4, 2), board_says=True) is False
    book.forget("bob")
    assert book.is_crawford("bob", 5, (4, 1), board_says=False) is False  # nothing known: the board
