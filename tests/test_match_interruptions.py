"""Interrupted matches, fed the exact server lines of a real server: the parser and the driver."""

from __future__ import annotations

import structlog

from fibsbot.client.policy import Policy, PolicySettings
from fibsbot.protocol.match.outputs import Send
from fibsbot.protocol.parser import ClipParser, Invitation, MatchResumed, SavedMatch
from tests.fibs_samples import MID_X_DOWN, with_fields
from tests.test_match import Bot

WHO_OPPO = "5 oppo - - 1 0 1500.00 120 0 1700000000 127.0.0.1 - -"
SAVED_HEADER = "  opponent          matchlength   score (your points first)"


# --- item 3: the match length survives lobby lines between the resume lines -----------------------


def test_resume_lines_are_folded_across_who_lines():
    lines = [
        "You are now playing with oppo. Your running match was loaded.",
        "turn: oppo",
        WHO_OPPO,
        "6",
        "match length: 5",
        "points for user fibsbot: 0",
        "points for user oppo: 3",
    ]
    events = ClipParser().feed("\r\n".join(lines) + "\r\n")
    resumed = [e for e in events if isinstance(e, MatchResumed)]
    assert [type(e).__name__ for e in events if type(e).__name__ == "Unknown"] == []
    assert len(resumed) == 1 and resumed[0].length == 5
    assert resumed[0].turn == "oppo" and resumed[0].points == {"fibsbot": 0, "oppo": 3}


def test_resumed_match_takes_its_length_from_the_board_when_the_lines_lack_it():
    bot = Bot()
    bot.feed("You are now playing with bob. Your running match was loaded.\r\n")
    bot.feed(MID_X_DOWN + "\r\n")
    assert bot.driver.snapshot().match_length == 7


# --- item 4: never stuck "busy" --------------------------------------------------------------------------


def busy_bot_at(score: tuple[int, int], length: int = 3) -> Bot:
    bot = Bot()
    bot.feed(f"** Player oppo has joined you for a {length} point match.\r\n")
    board = with_fields(
        MID_X_DOWN, f2="oppo", f3=length, f4=score[0], f5=score[1], f32=1, f33=0, f34=0, f37=1, f38=1, f39=1
    )
    bot.feed(board + "\r\n")
    assert bot.driver.in_match
    return bot


def test_a_score_that_reaches_the_length_ends_the_match_without_a_match_end_line():
    bot = busy_bot_at((0, 2))
    assert bot.feed("oppo wins the game and gets 1 point. Sorry.\r\n") == []
    assert not bot.driver.in_match and bot.driver.matches_finished == 1
    verdict = Policy(PolicySettings(user="fibsbot")).on_invitation(
        Invitation(player="carol", length=3, resume=False), busy=bot.driver.in_match, now=0.0
    )
    assert verdict.accept and verdict.commands == [Send("join carol")]
    assert bot.feed("oppo wins the 3 point match 3-0 .\r\n") == []  # a late line counts once
    assert bot.driver.matches_finished == 1


def test_a_late_match_end_line_of_the_last_match_does_not_end_the_next_one():
    # the lines of a fault run: the last game brought us to 4-0 and the next match began before
    # the server's "You win the 3 point match 4-0 ." arrived; the new match must go on
    bot = busy_bot_at((0, 0))
    bot.feed("You win the game and get 4 points. Congratulations!\r\n")
    assert not bot.driver.in_match and bot.driver.matches_finished == 1
    bot.feed("** You are now playing a 3 point match with oppo\r\n")
    bot.feed("Starting a new game with oppo.\r\n")
    bot.feed(with_fields(MID_X_DOWN, f2="oppo", f3=3, f4=0, f5=0) + "\r\n")
    assert bot.driver.in_match
    bot.feed("You win the 3 point match 4-0 .\r\n")
    assert bot.driver.in_match and bot.driver.matches_finished == 1


def test_a_game_end_below_the_length_keeps_the_match():
    bot = busy_bot_at((0, 0))
    bot.feed("oppo wins the game and gets 1 point. Sorry.\r\n")
    assert bot.driver.in_match and bot.driver.matches_finished == 0


def test_an_opponent_who_logs_out_during_a_match_leaves_it_saved():
    bot = busy_bot_at((0, 0))
    bot.feed("8 oppo oppo logs out.\r\n")
    assert not bot.driver.in_match and bot.driver.saved_opponent == "oppo"


def test_a_match_without_activity_is_dropped_to_idle_with_a_log_line():
    bot = Bot(inactivity_timeout=120.0)
    with structlog.testing.capture_logs() as logs:
        bot.feed("** Player oppo has joined you for a 3 point match.\r\n")
        assert [w.seconds for w in bot.waits if w.timer.purpose == "inactive"] == [120.0]
        assert bot.fire("inactive") == []
    assert not bot.driver.in_match
    assert [entry["event"] for entry in logs if entry["event"] == "match_inactive"] == ["match_inactive"]


def test_activity_rearms_the_inactivity_timer_instead_of_dropping():
    bot = Bot(inactivity_timeout=120.0)
    bot.feed("** Player oppo has joined you for a 3 point match.\r\n")
    bot.feed("oppo rolls 3 and 1.\r\n")
    (wait,) = [w for w in bot.waits if w.timer.purpose == "inactive"]
    rearmed = bot.driver.timer_expired(wait.timer)
    assert bot.driver.in_match and [o.timer.purpose for o in rearmed] == ["inactive"]


# --- item 5: a refused re-sync --------------------------------------------------------------------------


def test_a_refused_board_command_is_logged_once_and_never_sent_again():
    bot = Bot(board_delay=3.0)
    with structlog.testing.capture_logs() as logs:
        bot.feed("** Player oppo has joined you for a 3 point match.\r\n")
        assert bot.fire("board") == ["board"]
        assert bot.feed("** Unknown command: 'board'\r\n") == []
        bad = MID_X_DOWN.replace(":-2:0:1:", ":-9:0:1:")
        assert bot.feed(bad + "\r\n") == []  # unsure again: wait for the next board line
        assert bot.feed("** Unknown command: 'board'\r\n") == []
    assert [e["command"] for e in logs if e["event"] == "command_refused"] == ["board"]
    assert len(bot.feed(MID_X_DOWN + "\r\n")) == 1  # the next board line drives play again


# --- item 6: resume only saved matches, after a restart too ------------------------------------------------


def test_after_a_login_only_matches_the_server_lists_are_resumed():
    bot = Bot()  # a fresh driver: the daemon was restarted
    assert bot.driver.resume_commands() == [Send("show saved")]
    listing = [
        SAVED_HEADER,
        "**oppo                    5                0 -  3",
        "  dave                    3                1 -  1",
    ]
    assert bot.feed("\r\n".join(listing) + "\r\n") == ["invite oppo"]  # online; dave is not
    assert bot.feed("7 carol carol logs in.\r\n") == []
    assert bot.feed("7 dave dave logs in.\r\n") == []  # one invitation at a time
    assert bot.feed("oppo wants to resume a saved match with you.\r\n") == []


def test_no_invite_for_a_match_the_server_does_not_have():
    bot = Bot()
    bot.feed("** Player oppo has joined you for a 3 point match.\r\n")
    bot.driver.connection_lost()
    assert bot.driver.resume_commands() == [Send("show saved")]
    assert bot.feed(WHO_OPPO + "\r\n6\r\n") == []  # no invite before the listing
    assert bot.feed("no saved games.\r\n") == []
    assert bot.feed("7 oppo oppo logs in.\r\n") == []
    assert bot.driver.saved_opponent is None


def test_the_servers_no_saved_match_answer_corrects_the_bot():
    bot = Bot()
    bot.feed("** Player oppo has joined you for a 3 point match.\r\n")
    bot.driver.connection_lost()
    bot.driver.resume_commands()
    bot.feed("** Unknown command: 'show'\r\n")  # a server without the listing: own memory it is
    assert bot.feed("7 oppo oppo logs in.\r\n") == ["invite oppo"]
    bot.feed("** There is no saved match with oppo. Please give a match length.\r\n")
    assert bot.driver.saved_opponent is None
    assert bot.feed("8 oppo oppo logs out.\r\n7 oppo oppo logs in.\r\n") == []


def test_saved_rows_are_parsed_only_after_their_header():
    rows = "  GammonBot_VII           5                0 -  0\r\n"
    assert not [e for e in ClipParser().feed(rows) if isinstance(e, SavedMatch)]
    (row,) = [e for e in ClipParser().feed(SAVED_HEADER + "\r\n" + rows) if isinstance(e, SavedMatch)]
    assert row == SavedMatch(opponent="GammonBot_VII", length=5, scores=(0, 0), online=False, ready=False)
