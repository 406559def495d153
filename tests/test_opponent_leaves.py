"""An opponent who leaves a match, fed the exact lines of a FIBS clone that sends only its
logout line (``8 oppo oppo drops connection.``) and never ``The game was saved.``: the
console says the match was saved, and no ``join`` goes out after a logout in the same read."""

from __future__ import annotations

import io

import structlog

from fibsbot.console import Console
from tests.fibs_samples import MID_X_DOWN, with_fields
from tests.match_bot import Bot

USER = "fibsbot"
JOINED = "** Player oppo has joined you for a 5 point match.\r\n"
BOARD = with_fields(MID_X_DOWN, f2="oppo", f3=5, f4=0, f5=0) + "\r\n"
OPPO_WINS_A_GAME = (
    "oppo wins the game and gets 1 point. Sorry.\r\n"
    "score in 5 point match: fibsbot-0 oppo-1\r\n"
    "Type 'join' if you want to play the next game, type 'leave' if you don't.\r\n"
)
DROPS = "8 oppo oppo drops connection.\r\n"
LOGS_OUT = "8 oppo oppo logs out.\r\n"


class WatchedBot(Bot):
    """The driver with the console watching, as the client shows it each event of a read."""

    def __init__(self) -> None:
        super().__init__()
        self.out = io.StringIO()
        self.console = Console(USER, self.out, timestamps=False, colours=False)

    def feed(self, text: str, *, answer: bool = True) -> list[str]:
        sent: list[str] = []
        self.driver.begin_read()
        for event in self.parser.feed(text):
            sent += self._run(self.driver.handle(event), answer)
            self.console.on_event(event, self.driver.snapshot())
        return sent + self._run(self.driver.end_read(), answer)

    def said(self) -> list[str]:
        return [line.split("] ", 1)[1] for line in self.out.getvalue().splitlines()]


def in_a_match() -> WatchedBot:
    bot = WatchedBot()
    bot.feed(JOINED)
    bot.feed(BOARD, answer=False)
    assert bot.driver.in_match
    return bot


SAVED_DROPPED = "match with oppo saved (oppo dropped the connection): it goes on when both are back"


# --- the console --------------------------------------------------------------------------------


def test_an_opponent_who_drops_mid_match_is_told_without_a_saved_line():
    bot = in_a_match()
    bot.feed(OPPO_WINS_A_GAME)
    with structlog.testing.capture_logs() as logs:
        bot.feed(DROPS)
    assert [e["event"] for e in logs if e["event"] in ("opponent_logged_out", "match_left")] == [
        "opponent_logged_out",
        "match_left",
    ]
    assert bot.said() == [
        "match start: a 5-point match with oppo (they joined ours)",
        "score 0-1 against oppo; they won the game, 1 point",
        SAVED_DROPPED,
    ]
    bot.feed("oppo has joined you. Your running match was loaded.\r\nturn: oppo\r\nmatch length: 5\r\n")
    bot.feed("points for user fibsbot: 0\r\npoints for user oppo: 1\r\n")
    assert bot.said()[-2:] == [SAVED_DROPPED, "match resumed with oppo at 0-1 (a 5-point match)"]


def test_an_opponent_who_logs_out_mid_game_is_told():
    bot = in_a_match()
    bot.feed(LOGS_OUT)
    assert bot.said()[-1] == "match with oppo saved (oppo logged out): it goes on when both are back"


def test_a_server_that_sends_both_lines_is_told_once_in_either_order():
    for lines in (
        f"oppo drops connection. The game was saved.\r\n{DROPS}",
        f"{DROPS}oppo drops connection. The game was saved.\r\n",
    ):
        bot = in_a_match()
        bot.feed(lines)
        assert bot.said()[1:] == [SAVED_DROPPED], lines


def test_a_winner_who_logs_out_after_the_last_game_leaves_no_saved_match():
    bot = in_a_match()
    bot.feed(with_fields(BOARD, f4=0, f5=4))  # oppo at 4 of 5: the next game they win ends the match
    bot.feed("oppo wins the game and gets 1 point. Sorry.\r\n" + LOGS_OUT)  # no match-end line comes
    assert bot.driver.matches_finished == 1
    assert not any("saved" in line for line in bot.said())


def test_someone_else_logging_out_says_nothing():
    bot = in_a_match()
    bot.feed("8 carol carol drops connection.\r\n")
    assert bot.driver.in_match and bot.said() == ["match start: a 5-point match with oppo (they joined ours)"]


# --- no join after the opponent's logout in the same read ------------------------------------------


def test_no_join_when_the_winner_logs_out_in_the_same_read():
    for logout in (LOGS_OUT, DROPS):
        bot = in_a_match()
        with structlog.testing.capture_logs() as logs:
            assert bot.feed(OPPO_WINS_A_GAME + logout) == []
        assert not bot.driver.in_match and bot.driver.saved_opponent == "oppo"
        assert [e["opponent"] for e in logs if e["event"] == "join_withheld"] == ["oppo"]


def test_the_join_goes_out_at_the_end_of_a_read_without_a_logout():
    bot = in_a_match()
    assert bot.feed(OPPO_WINS_A_GAME + "8 carol carol logs out.\r\n12 carol bye\r\n") == ["join"]
    assert bot.driver.in_match


def test_a_logout_in_the_next_read_comes_too_late_to_hold_the_join():
    # one read is all the bot waits: a join already sent stays sent
    bot = in_a_match()
    assert bot.feed(OPPO_WINS_A_GAME) == ["join"]
    assert bot.feed(LOGS_OUT) == [] and not bot.driver.in_match


def test_a_match_resumed_between_games_joins_at_the_end_of_its_read_unless_the_opponent_left():
    resumed = (
        "oppo has joined you. Your running match was loaded.\r\nturn: oppo\r\nmatch length: 5\r\n"
        "points for user fibsbot: 1\r\npoints for user oppo: 0\r\n" + with_fields(BOARD, f4=1, f32=0, f33=0, f34=0)
    )
    assert WatchedBot().feed(resumed) == ["join"]
    assert WatchedBot().feed(resumed + DROPS) == []


def test_a_driver_fed_event_by_event_joins_at_once():
    # callers that do not hand over reads (the interruption harnesses) keep the join at the prompt
    bot = in_a_match()
    sent = []
    for event in bot.parser.feed(OPPO_WINS_A_GAME):
        sent += bot._run(bot.driver.handle(event), True)
    assert sent == ["join"]


# --- the local server taught the foreign lines, and the whole client on it ----------------------------


def test_the_local_server_can_send_only_the_logout_line():
    from fibsbot.protocol.parser import GameSaved, Logout
    from tests.server_harness import Harness

    for how in ("drop", "bye"):
        h = Harness(logout_line_only=True)
        h.start_match("alice", "bob", 3)
        bob = h.players["bob"]
        if how == "drop":
            h.drop("alice")
        else:
            h.send("alice", "bye")
        assert not [e for e in bob.events if isinstance(e, GameSaved)], how
        said = "drops connection" if how == "drop" else "logs out"
        assert Logout(name="alice", message=f"alice {said}.") in bob.events
        assert h.core.saved_match("alice", "bob") is not None
    h = Harness(logout_line_only=True)
    h.start_match("alice", "bob", 3)
    h.send("alice", "leave")  # leaving the match, not the server, still says it
    assert GameSaved(player="alice", reason="left") in h.players["bob"].events


async def test_the_console_of_a_bot_whose_opponent_drops_on_such_a_server():
    import asyncio

    from fibsbot.server.config import ServerConfig
    from fibsbot.server.testing import ClipTestClient, run_local_server
    from tests.fake_agent import FakeAgent
    from tests.test_client_local_server import CuttableProxy, Log, bot

    config = ServerConfig(idle_timeout=None, new_account_toggles={"ready": True}, logout_line_only=True)
    async with run_local_server(seed=5, config=config) as (host, port, core):
        async with CuttableProxy(port) as proxy:
            alice_log, bob_log = Log(), Log()
            alice = bot(port, "alice", FakeAgent(), alice_log, admins=frozenset({"root"}))
            out = io.StringIO()
            alice.observers.append(Console("alice", out, timestamps=False, colours=False))
            bob = bot(proxy.port, "bob", FakeAgent(), bob_log)
            tasks = [asyncio.create_task(alice.run()), asyncio.create_task(bob.run())]
            while not (alice.logged_in and bob.logged_in):
                await asyncio.sleep(0.02)
            root = await ClipTestClient.connect(host, port)
            assert await root.login("root", "pw-root")
            root.send("tell alice invite bob 5")
            while len([k for k, _ in bob_log.decisions if k == "move"]) < 2:
                await asyncio.sleep(0.005)
            proxy.cut()  # bob's connection drops mid-game
            saved = "match with bob saved (bob dropped the connection): it goes on when both are back"
            for _ in range(1000):
                if saved in out.getvalue():
                    break
                await asyncio.sleep(0.01)
            root.close()
            for client in (alice, bob):
                client.stop()
            await asyncio.wait(tasks, timeout=5)
    said = [line.split("] ", 1)[1] for line in out.getvalue().splitlines()]
    assert said.count(saved) == 1, said
