"""The local server rates finished matches by FIBS's published formula."""

from __future__ import annotations

import math

import pytest

from fibsbot.protocol.parser import WhoInfo
from fibsbot.server.ratings import RatingChange, experience_factor, rating_change, winners_upset_chance
from fibsbot.server.testing import ClipTestClient
from tests.server_harness import Harness
from tests.test_server_match import match_with, play_to_resignation


@pytest.mark.parametrize(
    ("difference", "length", "favourite_needs"),
    # the "batting average" a favourite needs to hold its rating, from the FIBS ratings table
    [(100, 1, 0.529), (100, 3, 0.550), (200, 5, 0.626), (400, 7, 0.772), (700, 11, 0.935)],
)
def test_the_upset_chance_gives_the_published_table(difference, length, favourite_needs):
    upset = winners_upset_chance(1500 + difference, 1500, length)  # the favourite won
    assert 1 - upset == pytest.approx(favourite_needs, abs=0.0006)
    assert winners_upset_chance(1500, 1500 + difference, length) == pytest.approx(1 - upset)  # the underdog won


def test_experience_speeds_new_players_up_to_400():
    factors = [experience_factor(e) for e in (0, 50, 100, 250, 399, 400, 5000)]
    assert factors == pytest.approx([5, 4.5, 4, 2.5, 1.01, 1, 1])


def test_a_favourites_win_moves_little_an_underdogs_win_much():
    favourite = rating_change(1800, 1000, 1600, 1000, 5)
    underdog = rating_change(1600, 1000, 1800, 1000, 5)
    upset = 1 / (10 ** (200 * math.sqrt(5) / 2000) + 1)
    assert favourite.gained == pytest.approx(4 * math.sqrt(5) * upset) == pytest.approx(favourite.lost)
    assert underdog.gained == pytest.approx(4 * math.sqrt(5) * (1 - upset))
    # each side's own experience: a new loser loses five times what an old winner gains
    assert rating_change(1500, 1000, 1500, 0, 3).lost == pytest.approx(5 * rating_change(1500, 1000, 1500, 0, 3).gained)
    assert rating_change(1500, 0, 1500, 0, 0) == RatingChange(0.0, 0.0)  # unlimited: unrated


def test_a_finished_match_moves_both_ratings_and_the_who_lines_show_it():
    h = match_with([(3, 1)], length=3)
    play_to_resignation(h, "bob", "b")  # alice wins 3-0
    alice, bob = h.core.accounts.get("alice"), h.core.accounts.get("bob")
    stake = 4 * 5 * math.sqrt(3) * 0.5  # two new players at 1500: K = 5, P = 1/2
    assert alice.rating == pytest.approx(1500 + stake) and bob.rating == pytest.approx(1500 - stake)
    assert alice.experience == bob.experience == 3
    seen = [w for w in h.players["bob"].of(WhoInfo) if w.name == "alice"][-1]
    assert (seen.rating, seen.experience) == (round(1500 + stake, 2), 3)


def test_the_next_match_starts_from_the_new_figures():
    h = match_with([(3, 1)], length=1)
    h.core.accounts.get("alice").experience = 1000  # an old hand: K = 1
    play_to_resignation(h, "alice", "n")  # bob, new, wins 1-0
    alice, bob = h.core.accounts.get("alice"), h.core.accounts.get("bob")
    assert bob.rating == pytest.approx(1510.0) and alice.rating == pytest.approx(1498.0)  # 4*1*0.5 * K
    h.start_match("alice", "bob", 1)
    play_to_resignation(h, "bob", "n")  # alice wins, rated below bob now
    change = rating_change(1498.0, 1001, 1510.0, 1, 1)
    assert h.core.accounts.get("alice").rating == pytest.approx(1498.0 + change.gained)
    assert h.core.accounts.get("bob").rating == pytest.approx(1510.0 - change.lost)


def test_unlimited_matches_are_not_rated():
    h = Harness()
    assert h.core.accounts.record_match("nobody", "either", 5).gained == 0.0
    for name in ("alice", "bob"):
        h.login(name)
    assert h.core.accounts.record_match("alice", "bob", 0).gained == 0.0
    assert h.core.accounts.get("alice").rating == 1500.0 and h.core.accounts.get("alice").experience == 0


async def test_ratings_reach_a_tcp_client():
    from fibsbot.server.testing import run_local_server

    async with run_local_server(seed=3) as (host, port, core):
        client = await ClipTestClient.connect(host, port)
        assert await client.login("carol", "pw")
        core.accounts.get("carol").rating = 1612.5
        client.send("who carol")
        info = await client.expect(WhoInfo)
        assert info.rating == 1612.5
        client.close()
