"""Records of interrupted matches: the journal, a resumed record, observer failures, log fields."""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3

import numpy as np

from engine.players.agent import CubeChoice
from fibsbot.arena.audit import Audit, audit_match, gnubg_matches
from fibsbot.arena.sparring import PubevalSparring
from fibsbot.client.connection import BotClient
from fibsbot.client.options import Backoff, ClientOptions
from fibsbot.client.policy import Policy, PolicySettings
from fibsbot.protocol.board import FibsBoard, parse_board_line
from fibsbot.protocol.match.driver import MatchDriver
from fibsbot.protocol.match.outputs import MoveRequest
from fibsbot.protocol.match.state import make_request
from fibsbot.protocol.parser import ClipParser
from fibsbot.records.events import event_logger
from fibsbot.records.journal import MatchJournal
from fibsbot.records.observer import MatchRecords
from fibsbot.records.queue import TrainingQueue
from fibsbot.records.resync import reconcile
from fibsbot.server.config import ServerConfig
from fibsbot.server.core import ServerCore
from fibsbot.server.net import start_server
from fibsbot.server.testing import ClipTestClient
from nets.player import load_agent
from tests.fibs_samples import MID_X_DOWN, with_fields
from tests.gnubg_cli import require_gnubg

OPENING = np.array([0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0], dtype=np.int8)


def feed(records: MatchRecords, driver: MatchDriver, text: str) -> None:
    for event in ClipParser().feed(text):
        driver.handle(event)
        records.on_event(event, driver.snapshot())


def log_lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


# --- item 2: an observer failure is caught, logged once with its traceback -------------------------------


def test_an_observer_failure_is_logged_once_with_its_traceback(tmp_path, monkeypatch):
    log_path = tmp_path / "events.jsonl"
    records = MatchRecords(
        tmp_path / "matches", None, user="fibsbot", net_version="n", event_log=event_logger(log_path)
    )  # structlog's own logger: 'event' is its key
    driver = MatchDriver()
    feed(
        records,
        driver,
        "** Player oppo has joined you for a 3 point match.\r\nStarting a new game with oppo.\r\n"
        "You rolled 6, oppo rolled 2\r\nIt's your turn to move.\r\n"
        + with_fields(MID_X_DOWN.replace("bob", "oppo"), f3=3, f4=0, f5=0)
        + "\r\n",
    )
    assert records.journal.game_in_progress
    real_record, calls = records.journal.record, []

    def failing_once(*action):
        calls.append(action)
        if len(calls) == 1:
            raise OSError("No space left on device")
        return real_record(*action)

    monkeypatch.setattr(records.journal, "record", failing_once)
    feed(records, driver, "oppo rolls 3 and 1.\r\noppo moves 1-4 3-4 .\r\noppo rolls 5 and 5.\r\n")  # raises nothing
    lines = log_lines(log_path)
    skipped = [line for line in lines if line["event"] == "record_skipped"]
    assert len(skipped) == 1 and "OSError: No space left on device" in skipped[0]["exception"]
    assert "Traceback" in skipped[0]["exception"]
    assert [line["event"] for line in lines].count("game_left_out") == 1  # the rest of the game is not followed


# --- item 7: names and actions in the log -----------------------------------------------------------------


def test_match_end_names_the_winner_and_a_take_is_logged_as_take(tmp_path):
    log_path = tmp_path / "events.jsonl"
    records = MatchRecords(
        tmp_path / "matches", None, user="fibsbot", net_version="n", event_log=event_logger(log_path)
    )
    driver = MatchDriver()
    feed(records, driver, "** Player oppo has joined you for a 3 point match.\r\n")
    request = make_request("take", parse_board_line(with_fields(MID_X_DOWN, f38=0, f39=0, f40=1)), 1)
    answer = CubeChoice("no double", double=False, take=True, equities={"no_double": 0.2})
    records.on_decision(request, answer, [])
    # The server ends a match only after the game that ends it; a match-end line alone is a late line of an
    # earlier match (tests/test_match_interruptions.py) and ends nothing.
    feed(records, driver, "You win the game and get 2 points.\r\nYou win the 3 point match 3-1 .\r\n")
    lines = {line["event"]: line for line in log_lines(log_path)}
    assert lines["decision"]["action"] == "take" and lines["decision"]["verdict"] == "no double"
    assert lines["match_end"]["winner"] == "fibsbot"


# --- item 1: a journal that a kill cannot shorten; a resumed match continues its record ----------------------


def test_a_reloaded_journal_has_every_action_and_renders_its_mat_again(tmp_path):
    journal = MatchJournal.create(tmp_path, "fibsbot", "oppo", 5)
    journal.record("game", 0, 0, False)
    journal.record("opening", 0, 3, 1)
    journal.record("move", 0, 3, 1, [[8, 5], [6, 5]])
    journal.record("roll", 1, 6, 4)
    journal.mat_path.unlink()  # as if killed between the two writes
    again = MatchJournal.load(journal.path)
    assert again.actions == journal.actions and again.state.dice == {1: (6, 4)}
    assert "31: 8/5 6/5" in journal.mat_path.read_text() and " 5 point match" in journal.mat_path.read_text()


def board_for(rows_ours, rows_theirs, *, on_roll, dice=(0, 0), their_dice=(0, 0)) -> FibsBoard:
    return FibsBoard.from_rows(
        rows_ours,
        rows_theirs,
        on_roll=on_roll,
        opponent="oppo",
        match_length=5,
        player_dice=dice,
        opponent_dice=their_dice,
    )


def test_resync_takes_back_our_unsent_move_and_infers_their_lost_one(tmp_path):
    journal = MatchJournal.create(tmp_path, "fibsbot", "oppo", 5)
    for action in (["game", 0, 0, False], ["opening", 0, 3, 1], ["move", 0, 3, 1, [[8, 5], [6, 5]]], ["roll", 1, 6, 4]):
        journal.record(*action)
    ours = journal.recorder.current_game.board[0].copy()
    # their 64 (24/18 13/9) reached the server, then the bot died: the board shows our turn
    theirs = OPENING.copy()
    theirs[23] -= 1
    theirs[17] += 1
    theirs[12] -= 1
    theirs[8] += 1
    actions, note = reconcile(journal, board_for(ours, theirs, on_roll="us", dice=(2, 2)))
    assert note == "inferred" and actions[4][:4] == ["move", 1, 6, 4] and actions[-1] == ["roll", 0, 2, 2]
    # our next move journaled, never sent: the server still shows the position before it
    journal.rewrite(actions)
    journal.record("move", 0, 2, 2, [[13, 11], [13, 11], [11, 9], [11, 9]])
    actions, note = reconcile(journal, board_for(ours, theirs, on_roll="us", dice=(2, 2)))
    assert note == "inferred" and actions[-1] == ["roll", 0, 2, 2]
    assert not any(a[0] == "move" and a[2:4] == [2, 2] for a in actions)


class DiesAtDecision:
    """Ends the bot at its Nth move: journaled, never received by the server (a kill between the two)."""

    def __init__(self, moves: int) -> None:
        self.left = moves
        self.kill = None

    def on_decision(self, request, answer, commands) -> None:
        if isinstance(request, MoveRequest) and commands and self.kill is not None:
            self.left -= 1
            if self.left == 0:
                self.kill()  # the process is gone: the command that follows reaches nobody
                self.kill = None


async def test_a_resumed_match_continues_the_same_record_after_a_restart(tmp_path):
    require_gnubg()
    core = ServerCore(ServerConfig(idle_timeout=None, new_account_toggles={"ready": True}), seed=21)
    server = await start_server(core, "127.0.0.1", 0)
    options = ClientOptions(backoff=Backoff(initial_s=0.05, max_s=0.3), roll_delay_s=0.3)
    queue = TrainingQueue(tmp_path / "queue.sqlite")
    ours = load_agent("net:default@1")
    dies = DiesAtDecision(moves=12)

    def bot(max_matches=None, extra=()) -> tuple[BotClient, asyncio.Task]:
        records = MatchRecords(
            tmp_path / "matches",
            queue,
            user="fibsbot",
            net_version="n",
            event_log=event_logger(tmp_path / "events.jsonl"),
        )
        client = BotClient(
            "127.0.0.1",
            server.port,
            "fibsbot",
            "pw",
            ours,
            Policy(PolicySettings(user="fibsbot")),
            [records, *extra],
            options=ClientOptions(**{**options.__dict__, "max_matches": max_matches}),
        )
        return client, asyncio.create_task(client.run())

    sparring = BotClient(
        "127.0.0.1",
        server.port,
        "sparring",
        "pw",
        PubevalSparring(load_agent("net:default@0")),
        Policy(PolicySettings(user="sparring", admins=frozenset({"referee"}))),
        [],
        options=options,
        rng=random.Random(3),
    )
    tasks = [asyncio.create_task(sparring.run())]
    died = asyncio.Event()
    try:
        first, task = bot(extra=[dies])

        def kill() -> None:
            task.cancel()  # nothing more is handled or written by this process
            server.drop("fibsbot")  # and the server hears nothing more from it
            died.set()

        dies.kill = kill
        referee = await ClipTestClient.connect(server.host, server.port)
        await referee.login("referee", "pw")
        while not ("fibsbot" in core.online and "sparring" in core.online):
            await asyncio.sleep(0.05)
        referee.send("tell sparring invite fibsbot 5")
        await asyncio.wait_for(died.wait(), 120)
        match = core.matches.get("fibsbot") or next(iter(core.saved.values()))
        second, task = bot(max_matches=1)  # a new process: records from disk only
        tasks.append(task)
        await asyncio.wait_for(task, 120)
        referee.close()
    finally:
        sparring.stop()
        await asyncio.wait(tasks, timeout=10)
        await server.close()
        queue.close()
    assert match in core.finished and len(match.history) >= 1
    mats = sorted((tmp_path / "matches").glob("*.mat"))
    assert len(mats) == 1 and " 5 point match" in mats[0].read_text()
    audit = Audit()
    audit_match(match, match.seat_of("fibsbot"), gnubg_matches(mats)[str(mats[0])], audit, mats[0].name)
    assert audit.moves_played > 30 and audit.moves_lost == 0 and audit.moves_wrong == 0, audit.problems
    assert audit.games_left_out == 0
    lines = log_lines(tmp_path / "events.jsonl")
    events = [line["event"] for line in lines]
    assert "record_skipped" not in events and "game_left_out" not in events
    # the move journaled before the kill never reached the server: the resumed record took it back
    assert [line["state"] for line in lines if line["event"] == "record_resumed"][0] == "inferred"
    with sqlite3.connect(tmp_path / "queue.sqlite") as db:
        rows = db.execute("SELECT match_ref, game_number, move_number FROM disagreements").fetchall()
    assert rows and all(ref == mats[0].name and game >= 1 and move >= 1 for ref, game, move in rows)


def test_a_game_never_seen_from_its_beginning_is_left_out_with_a_log_line(tmp_path):
    log_path = tmp_path / "events.jsonl"
    records = MatchRecords(
        tmp_path / "matches", None, user="fibsbot", net_version="n", event_log=event_logger(log_path)
    )
    driver = MatchDriver()
    feed(
        records,
        driver,
        "You are now playing with bob. Your running match was loaded.\r\nturn: fibsbot\r\n"
        "match length: 7\r\npoints for user fibsbot: 2\r\npoints for user bob: 3\r\n" + MID_X_DOWN + "\r\n",
    )
    events = [line for line in log_lines(log_path) if line["event"] == "game_left_out"]
    assert len(events) == 1 and "beginning" in events[0]["reason"]
    assert records.recorder.games == [] and " 7 point match" in records.journal.mat_path.read_text()
