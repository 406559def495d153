"""The ``show saved`` listing in FIBS's own format, and the resumption of a saved match whose
opponent is online but not ready (issue 36, defect 1).

FIBS marks each row with two characters before the name: two spaces (not logged in),
`` *`` (logged in) or ``**`` (logged in and ready), as in the rows Gibbon's CLIP parser
tests were fed and BaldLies's ``show saved`` writes.  The local server used to write
``* alice`` (the star left-aligned), which the parser did not read: after a restart the
daemon concluded the match's journal, left its game out and never invited alice.
"""

from __future__ import annotations

import pytest

from fibsbot.protocol.parser import ClipParser, NoSavedMatches, SavedMatch, SavedMatchesHeader
from fibsbot.server import messages as msg
from tests.interrupt_harness import BOT, SPARRING, InterruptedMatch
from tests.server_harness import Harness
from tests.test_match import Bot

HEADER = "  opponent          matchlength   score (your points first)"


@pytest.mark.parametrize(
    "row, expected",
    [
        (
            "  GammonBot_VII           5                0 -  0",
            SavedMatch(opponent="GammonBot_VII", length=5, scores=(0, 0), online=False, ready=False),
        ),
        (
            " *BlunderBot_VI           3                1 -  0",
            SavedMatch(opponent="BlunderBot_VI", length=3, scores=(1, 0), online=True, ready=False),
        ),
        (
            "**bonehead                3                1 -  2",
            SavedMatch(opponent="bonehead", length=3, scores=(1, 2), online=True, ready=True),
        ),
        (
            "  deadbeef                unlimited         1 -  2",
            SavedMatch(opponent="deadbeef", length=None, scores=(1, 2), online=False, ready=False),
        ),
        # what the local server wrote before it followed FIBS: the star left-aligned
        (
            "* alice                   3                0 -  1",
            SavedMatch(opponent="alice", length=3, scores=(0, 1), online=True, ready=False),
        ),
        (
            "** alice                  3                2 -  1",
            SavedMatch(opponent="alice", length=3, scores=(2, 1), online=True, ready=True),
        ),
        (
            "*alice                    3                0 -  0",
            SavedMatch(opponent="alice", length=3, scores=(0, 0), online=True, ready=False),
        ),
    ],
)
def test_every_form_of_a_saved_row_is_read(row, expected):
    events = ClipParser().feed(HEADER + "\r\n" + row + "\r\n")
    assert events == [SavedMatchesHeader(), expected]


def test_no_saved_games_is_its_own_event():
    assert ClipParser().feed("no saved games.\r\n") == [NoSavedMatches()]


def test_a_row_with_three_stars_is_not_a_saved_match():
    events = ClipParser().feed(HEADER + "\r\n***alice                  3                0 -  0\r\n")
    assert events[0] == SavedMatchesHeader() and not [e for e in events if isinstance(e, SavedMatch)]


@pytest.mark.parametrize(
    "mark, start",
    [("", "  alice   "), ("*", " *alice   "), ("**", "**alice   ")],
)
def test_the_local_server_writes_the_mark_as_fibs_does(mark, start):
    row = msg.saved_row(mark, "alice", 3, 0, 1)
    assert row.startswith(start)
    assert row == f"{start[:2]}alice                   3                0 -  1"


def test_the_local_server_lists_an_online_player_who_is_not_ready_with_one_star():
    h = Harness()
    h.start_match("alice", "bob", 3)
    h.send("bob", "leave")
    h.send("bob", "toggle ready")  # online, refusing games
    events = h.send("alice", "show saved")["alice"]
    assert events == [
        SavedMatchesHeader(),
        SavedMatch(opponent="bob", length=3, scores=(0, 0), online=True, ready=False),
    ]


# --- the driver: invite a saved match's opponent who can be invited --------------------------------------

WHO_ALICE_NOT_READY = "5 alice - - 0 0 1500.00 120 0 1700000000 127.0.0.1 - -"
WHO_ALICE_READY = "5 alice - - 1 0 1500.00 120 0 1700000000 127.0.0.1 - -"


def test_a_saved_match_whose_opponent_is_online_but_not_ready_is_resumed_once_they_are_ready():
    bot = Bot()  # a fresh driver: the daemon was restarted
    bot.driver.resume_commands()
    assert bot.feed(WHO_ALICE_NOT_READY + "\r\n6\r\n") == []
    # the listing the local server wrote: alice is online, not ready; a server may take the invitation
    assert bot.feed(HEADER + "\r\n* alice                   3                0 -  1\r\n") == ["invite alice"]
    assert bot.driver.memory.saved.confirmed == ["alice"]
    assert bot.feed("** alice is refusing games.\r\n") == []  # FIBS does not
    assert bot.feed(WHO_ALICE_NOT_READY + "\r\n") == []
    assert bot.feed(WHO_ALICE_READY + "\r\n") == ["invite alice"]
    assert bot.feed(WHO_ALICE_READY + "\r\n") == []  # once


def test_a_refused_invitation_is_not_repeated_while_the_opponent_stays_not_ready():
    bot = Bot()
    bot.driver.resume_commands()
    assert bot.feed(HEADER + "\r\n**alice                   3                0 -  1\r\n") == ["invite alice"]
    assert bot.feed("** alice is refusing games.\r\n") == []
    assert bot.feed("8 alice alice logs out.\r\n7 alice alice logs in.\r\n") == ["invite alice"]
    assert bot.feed("** alice is refusing games.\r\n") == []
    assert bot.feed(WHO_ALICE_NOT_READY + "\r\n" + WHO_ALICE_NOT_READY + "\r\n") == []
    assert bot.feed(WHO_ALICE_READY + "\r\n") == ["invite alice"]


# --- the daemon's parts on the local server: restarted, the opponent online but not ready -------------------


class NotReadyAtRestart(InterruptedMatch):
    """The opponent turns ``ready`` off while the bot is away and on again once the bot,
    restarted, has read the listing and gone idle (as a person at a telnet prompt might)."""

    def __init__(self, *args, **kwargs) -> None:
        self.listings: list[SavedMatch] = []
        self.refusing = False
        super().__init__(*args, **kwargs)

    def _start_bot(self, first: bool = False) -> None:
        if not first and self.match is not None and self.match not in self.harness.core.finished:
            if not self.refusing:
                self._sparring("toggle ready")
                self.refusing = True
        super()._start_bot(first)

    def _handle(self, event) -> None:
        if isinstance(event, SavedMatch):
            self.listings.append(event)
        super()._handle(event)

    def _sparring_acts(self) -> bool:
        if self.refusing and not self.dead and not self.inbox and not self.decisions:
            assert BOT not in self.harness.core.matches  # nobody could resume it yet
            self.refusing = False
            self._sparring("toggle ready")
            return True
        return super()._sparring_acts()


def test_the_restarted_bot_resumes_a_match_whose_opponent_was_online_but_not_ready(tmp_path):
    def after_the_first_game(im: InterruptedMatch) -> bool:
        match = im.match
        return match is not None and len(match.history) >= 2 and len(match.history[-1]["actions"]) >= 6

    im = NotReadyAtRestart(tmp_path, seed=3, length=5, double_rate=0.0, kill_when=after_the_first_game)
    im.play()
    assert im.kills == 1 and im.match.is_over
    row = SavedMatch(opponent=SPARRING, length=5, scores=im.listings[0].scores, online=True, ready=False)
    assert im.listings == [row]  # read, not lost as an unknown line
    audit = im.audit()
    assert audit.games_left_out == 0 and audit.moves_lost == 0 and audit.moves_wrong == 0, audit
    assert audit.games_played == len(im.match.history) >= 3
    mat = next((tmp_path / "matches").glob("*.mat")).read_text()
    assert mat.count(" Game ") == len(im.match.history)
