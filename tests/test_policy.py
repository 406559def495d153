"""Invitation policy and chat replies."""

from __future__ import annotations

import pytest

from fibsbot.client.policy import Policy, PolicySettings
from fibsbot.protocol.events import Invitation, Says
from fibsbot.protocol.match.outputs import Send


def policy(**options) -> Policy:
    return Policy(PolicySettings(user="gammonbot", **options))


def invite(player: str = "bob", length: int | None = 5, resume: bool = False) -> Invitation:
    return Invitation(player=player, length=length, resume=resume)


@pytest.mark.parametrize("length, accept", [(1, False), (3, True), (5, True), (7, True), (9, False)])
def test_match_lengths_inside_the_range_are_accepted(length, accept):
    verdict = policy(min_length=3, max_length=7).on_invitation(invite(length=length), busy=False, now=0)
    assert verdict.accept is accept
    if accept:
        assert verdict.commands == [Send("join bob")]
    else:
        assert verdict.commands == [Send("tell bob Sorry, I play 3 to 7 point matches.")]


def test_unlimited_matches_follow_the_switch():
    assert not policy().on_invitation(invite(length=None), busy=False, now=0).accept
    verdict = policy(allow_unlimited=True).on_invitation(invite(length=None), busy=False, now=0)
    assert verdict.accept and verdict.commands == [Send("join bob")]


def test_resume_is_always_accepted_unless_busy():
    strict = policy(allow=frozenset({"alice"}), deny=frozenset({"bob"}), max_length=1)
    assert strict.on_invitation(invite(length=None, resume=True), busy=False, now=0).commands == [Send("join bob")]
    assert not strict.on_invitation(invite(length=None, resume=True), busy=True, now=0).accept


def test_deny_and_allow_lists():
    p = policy(allow=frozenset({"alice", "bob"}), deny=frozenset({"bob"}))
    denied = p.on_invitation(invite("bob"), busy=False, now=0)
    assert not denied.accept and denied.commands == []  # denied players get no reply
    assert p.on_invitation(invite("alice"), busy=False, now=0).accept
    stranger = p.on_invitation(invite("carol"), busy=False, now=0)
    assert not stranger.accept and stranger.reason == "not on the allow list"
    assert stranger.commands and stranger.commands[0].text.startswith("tell carol Sorry")


def test_one_match_at_a_time():
    verdict = policy().on_invitation(invite(), busy=True, now=0)
    assert not verdict.accept and verdict.reason == "busy"
    assert verdict.commands == [Send("tell bob Sorry, I am playing a match right now. Please try later.")]


def test_own_invitation_is_ignored():
    verdict = policy().on_invitation(invite("gammonbot"), busy=False, now=0)
    assert not verdict.accept and verdict.commands == []


def test_refusal_explanations_are_rate_limited():
    p = policy(max_length=3, reply_interval_s=60)
    assert p.on_invitation(invite(length=9), busy=False, now=0).commands
    assert p.on_invitation(invite(length=9), busy=False, now=30).commands == []
    assert p.on_invitation(invite(length=9), busy=False, now=61).commands


def test_a_tell_gets_a_polite_bot_reply_listing_the_commands():
    (reply,) = policy(min_length=1, max_length=5).on_tell(
        Says(name="bob", text="hi there"), now=0, status=lambda: "idle"
    )
    assert reply.text.startswith("tell bob Hi, I am gammonbot, a backgammon bot")
    assert "1 to 5 point matches" in reply.text and "invite gammonbot 5" in reply.text
    assert "help" in reply.text and "Admin" not in reply.text


def test_replies_are_rate_limited_per_player_and_overall():
    p = policy(reply_interval_s=60, replies_per_minute=3)
    says = lambda name: Says(name=name, text="hello")  # noqa: E731
    assert p.on_tell(says("bob"), now=0, status=str)
    assert p.on_tell(says("bob"), now=10, status=str) == []  # per player
    assert p.on_tell(says("carol"), now=11, status=str)
    assert p.on_tell(says("dave"), now=12, status=str)
    assert p.on_tell(says("erin"), now=13, status=str) == []  # 3 replies in the last minute
    assert p.on_tell(says("erin"), now=61, status=str)
    assert p.on_tell(says("bob"), now=70, status=str) == []  # the window still holds 3
    assert p.on_tell(says("bob"), now=72, status=str)


def test_admin_commands_only_from_admins():
    p = policy(admins=frozenset({"root"}))
    assert p.on_tell(Says(name="root", text="invite alice 5"), now=0, status=str) == [
        Send("invite alice 5"),
        Send("tell root Inviting alice to a 5 point match."),
    ]
    assert p.on_tell(Says(name="root", text="invite alice"), now=0, status=str)[0] == Send("invite alice")
    assert p.on_tell(Says(name="root", text="status"), now=0, status=lambda: "playing bob\r\nmore") == [
        Send("tell root playing bob more")
    ]  # one line, whatever the status says
    stranger = p.on_tell(Says(name="mallory", text="invite alice 5"), now=0, status=str)
    assert all(not c.text.startswith("invite") for c in stranger)
    assert stranger and stranger[0].text.startswith("tell mallory Hi, I am gammonbot")


@pytest.mark.parametrize(
    "text", ["invite alice 0", "invite alice 500", "invite al;ice 5", "invite alice 5 extra", "invite"]
)
def test_bad_admin_invites_get_usage_not_commands(text):
    replies = policy(admins=frozenset({"root"})).on_tell(Says(name="root", text=text), now=0, status=str)
    assert len(replies) == 1 and replies[0].text.startswith("tell root Usage: invite NAME")


def test_replies_never_echo_the_players_text():
    (reply,) = policy().on_tell(Says(name="bob", text="say ** You win"), now=0, status=str)
    assert "You win" not in reply.text


def test_settings_are_checked():
    with pytest.raises(ValueError, match="min_length"):
        PolicySettings(user="x", min_length=5, max_length=3)


def who(name: str, *, ready: bool = True, away: bool = False, opponent: str | None = None):
    from fibsbot.protocol.events import WhoInfo

    return WhoInfo(
        name=name,
        opponent=opponent,
        watching=None,
        ready=ready,
        away=away,
        rating=1500.0,
        experience=100,
        idle=0,
        login=0,
        hostname="h",
        client=None,
        email=None,
    )


def test_auto_invite_listed_players_when_free_and_we_are_idle():
    p = policy(auto_invite=frozenset({"alice"}), auto_invite_length=3, auto_invite_interval_s=600)
    assert p.on_who(who("alice"), busy=False, now=0) == [Send("invite alice 3")]
    assert p.on_who(who("alice"), busy=False, now=100) == []  # not again so soon
    assert p.on_who(who("alice"), busy=False, now=700) == [Send("invite alice 3")]
    assert p.on_who(who("bob"), busy=False, now=0) == []  # not on the list
    fresh = policy(auto_invite=frozenset({"alice"}))
    assert fresh.on_who(who("alice", ready=False), busy=False, now=0) == []
    assert fresh.on_who(who("alice", away=True), busy=False, now=0) == []
    assert fresh.on_who(who("alice", opponent="carol"), busy=False, now=0) == []
    assert fresh.on_who(who("alice"), busy=True, now=0) == []
