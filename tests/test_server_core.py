"""The sans-IO server core: logging in, the lobby, invitations (scripted sessions)."""

from __future__ import annotations

import pytest

from fibsbot.protocol.parser import (
    Banner,
    ConnectionTimedOut,
    Invitation,
    InviteSent,
    JoinInstructions,
    Login,
    LoginFailed,
    LoginPrompt,
    Logout,
    MatchStart,
    MessageDelivered,
    MessageSaved,
    MotdEnd,
    MotdLine,
    MotdStart,
    OwnInfo,
    Says,
    ServerError,
    SettingChanged,
    Shouts,
    StoredMessage,
    ToggleChanged,
    Welcome,
    WhoEnd,
    WhoInfo,
    YouSay,
    YouShout,
)
from fibsbot.server import ServerCore
from fibsbot.server.outputs import Close, Send, SetEcho
from tests.server_harness import START, Harness


def kinds(events) -> list[type]:
    return [type(event) for event in events]


# --- logging in ----------------------------------------------------------------------------


def test_banner_then_login_prompt_without_line_end():
    core = ServerCore()
    outputs = core.connect(1, START)
    assert outputs[-1] == Send(1, "login: ")
    assert all(isinstance(o, Send) for o in outputs)


def test_login_burst_in_fibs_order():
    h = Harness()
    h.login("bob")
    alice = h.login("alice")
    assert kinds(alice.events) == [
        Banner,
        LoginPrompt,
        Welcome,
        OwnInfo,
        MotdStart,
        MotdLine,
        MotdLine,
        MotdLine,
        MotdEnd,
        WhoInfo,
        WhoInfo,
        WhoEnd,
    ]
    welcome, info = alice.of(Welcome)[0], alice.of(OwnInfo)[0]
    assert (welcome.name, welcome.last_login, info.name) == ("alice", int(START), "alice")
    assert {w.name for w in alice.of(WhoInfo)} == {"alice", "bob"}
    assert alice.of(Banner) == [Banner(text="fibsbot local backgammon server (FIBS client protocol, CLIP 1008)")]
    assert alice.unknown() == []


def test_others_hear_logins_and_logouts():
    h = Harness()
    bob = h.login("bob")
    h.login("alice")
    assert Login(name="alice", message="alice logs in.") in bob.events
    assert [w.name for w in bob.of(WhoInfo)][-1] == "alice"
    h.send("alice", "bye")
    assert h.players["alice"].closed
    assert bob.events[-1] == Logout(name="alice", message="alice logs out.")
    h.login("carol")
    h.drop("carol")
    assert bob.events[-1] == Logout(name="carol", message="carol drops connection.")


def test_wrong_password_gives_the_login_prompt_again_then_a_retry_works():
    h = Harness()
    h.login("alice", "right")
    h.send("alice", "bye")
    again = h.login("alice", "wrong")
    assert isinstance(again.events[-1], LoginFailed)
    assert again.text.endswith("\r\nlogin: ") and not again.closed
    again.parser.expect_login_result()
    h.send("alice", "login test_client 1008 alice right")
    assert isinstance(again.events[-1], WhoEnd) and again.of(Welcome)


@pytest.mark.parametrize("line", ["login x 1008 alice", "hello there", "login a b c d e f"])
def test_malformed_login_lines_are_refused(line):
    h = Harness()
    player = h.connect("alice")
    player.parser.expect_login_result()
    h.send("alice", line)
    assert isinstance(player.events[-1], LoginFailed)


def test_without_local_mode_unknown_names_are_refused():
    h = Harness(create_accounts=False)
    player = h.login("alice")
    assert isinstance(player.events[-1], LoginFailed)
    h.core.accounts.create("alice", "pw")
    player.parser.expect_login_result()
    h.send("alice", "login test_client 1008 alice pw")
    assert isinstance(player.events[-1], WhoEnd)


def test_bare_name_then_password_with_echo_off():
    h = Harness()
    h.core.accounts.create("alice", "secret")
    player = h.connect("alice")
    h.send("alice", "alice")
    assert player.echo_off and player.text.endswith("password: ")
    h.send("alice", "secret")
    assert not player.echo_off and player.of(WhoEnd)


def test_guest_registration_then_login():
    h = Harness()
    guest = h.connect("guest")
    h.send("guest", "guest")
    h.send("guest", "name You")  # refused: it would read as the player themself
    assert isinstance(guest.events[-1], ServerError) and not guest.echo_off
    h.send("guest", "name carol")
    assert guest.echo_off and guest.text.endswith("password: ")
    h.send("guest", "one")
    h.send("guest", "two")  # mismatch: asked again
    assert "not identical" in guest.text and guest.echo_off
    h.send("guest", "pass1")
    h.send("guest", "pass1")
    assert not guest.echo_off and "You are registered as carol." in guest.text
    h.send("guest", "bye")
    assert guest.closed
    assert "pass1" not in guest.text  # never echoed
    assert h.core.accounts.get("carol").password_matches("pass1")
    player = h.login("carol", "pass1")
    assert player.of(Welcome)[0].name == "carol"


def test_guest_name_already_taken():
    h = Harness()
    h.core.accounts.create("alice", "pw")
    guest = h.connect("guest")
    h.send("guest", "guest")
    h.send("guest", "name alice")
    assert "already used" in guest.events[-1].message


def test_second_login_replaces_the_first_connection():
    h = Harness()
    h.login("alice")
    first = h.players["alice"]
    second = h.login("alice")
    assert first.closed and not second.closed
    assert second.of(ServerError)[0].message == "Warning: You are already logged in."
    assert list(h.core.online) == ["alice"]


def test_idle_connections_time_out():
    h = Harness(idle_timeout=60)
    alice, bob = h.login("alice"), h.login("bob")
    h.advance(30)
    h.send("bob", "rawwho")
    h.advance(31)
    assert alice.closed and alice.events[-1] == ConnectionTimedOut()
    assert not bob.closed and bob.events[-1] == Logout(name="alice", message="alice drops connection.")
    waiting = h.connect("carol")  # also at the login prompt
    h.advance(61)
    assert waiting.closed and bob.closed


# --- the lobby -----------------------------------------------------------------------------


def test_toggles_flip_and_show_in_own_info():
    h = Harness(new_account_toggles={})
    h.login("alice")
    assert h.players["alice"].of(OwnInfo)[0].ready is False
    h.send("alice", "toggle ready")
    assert h.players["alice"].of(ToggleChanged)[-1] == ToggleChanged(name="ready", value=True)
    assert h.players["alice"].events[-1].ready  # everyone, alice too, sees the new who line
    h.send("alice", "toggle double")
    assert h.players["alice"].events[-1] == ToggleChanged(name="double", value=False)
    h.send("alice", "toggle ready")
    h.send("alice", "toggle ready")
    h.send("alice", "toggle nonsense")
    assert "nonsense" in h.players["alice"].events[-1].message
    h.send("alice", "bye")
    info = h.login("alice").of(OwnInfo)[0]
    assert (info.ready, info.double, info.notify, info.autoboard) == (True, False, True, True)


def test_set_boardstyle_and_unknown_commands():
    h = Harness()
    alice = h.login("alice")
    h.send("alice", "set boardstyle 3")
    assert alice.text.endswith("Value of 'boardstyle' set to 3.\r\n")
    assert alice.events[-1] == SettingChanged(name="boardstyle", value="3")
    h.send("alice", "frobnicate now")
    assert alice.events[-1] == ServerError(message="Unknown command: 'frobnicate'")
    h.send("alice", "time")  # the bots' keepalive: answered with the clock, not refused
    assert "UTC" in alice.text.splitlines()[-1] and not isinstance(alice.events[-1], ServerError)


def test_rawwho_tell_shout_and_messages():
    h = Harness()
    alice, bob = h.login("alice"), h.login("bob")
    h.send("alice", "rawwho")
    assert kinds(alice.events[-3:]) == [WhoInfo, WhoInfo, WhoEnd]
    h.send("alice", "tell bob hello  there")
    assert bob.events[-1] == Says(name="alice", text="hello  there")
    assert alice.events[-1] == YouSay(name="bob", text="hello  there")
    h.send("alice", "tell nobody hi")
    assert alice.events[-1] == ServerError(message="There is no one called nobody.")
    h.send("bob", "shout anyone?")
    assert alice.events[-1] == Shouts(name="bob", text="anyone?") and bob.events[-1] == YouShout(text="anyone?")
    h.send("alice", "message bob see you")
    assert alice.events[-1] == MessageDelivered(name="bob")
    assert bob.events[-1] == StoredMessage(sender="alice", time=int(START), text="see you")
    h.send("bob", "bye")
    h.send("alice", "message bob later")
    assert alice.events[-1] == MessageSaved(name="bob")
    bob = h.login("bob")
    assert StoredMessage(sender="alice", time=int(START), text="later") in bob.events
    assert bob.events.index(bob.of(StoredMessage)[0]) < bob.events.index(bob.of(WhoEnd)[0])


def test_away_and_back_update_who():
    h = Harness()
    alice, bob = h.login("alice"), h.login("bob")
    h.send("alice", "away lunch")
    assert bob.of(WhoInfo)[-1].away and bob.of(WhoInfo)[-1].name == "alice"
    h.send("alice", "back")
    assert not bob.of(WhoInfo)[-1].away
    h.send("alice", "back")
    assert alice.events[-1] == ServerError(message="You're not away.")


# --- invitations ---------------------------------------------------------------------------


def test_invitation_and_join_texts():
    h = Harness()
    alice, bob = h.login("alice"), h.login("bob")
    h.send("alice", "invite bob 5")
    assert alice.events[-1] == InviteSent(player="bob", length=5, resume=False)
    assert bob.events[-2:] == [Invitation(player="alice", length=5, resume=False), JoinInstructions(player="alice")]
    h.send("alice", "invite bob unlimited")
    assert bob.events[-2] == Invitation(player="alice", length=None, resume=False)
    h.send("bob", "join alice")
    assert MatchStart(opponent="alice", length=None, we_joined=True) in bob.events
    assert MatchStart(opponent="bob", length=None, we_joined=False) in alice.events
    assert h.core.match_of("alice") is h.core.match_of("bob") is not None
    assert bob.of(WhoInfo)[-1].opponent in ("alice", "bob")


@pytest.mark.parametrize(
    "command, problem",
    [
        ("invite alice 3", "You can't invite yourself."),
        ("invite nobody 3", "There is no one called nobody."),
        ("invite bob 0", "The match length must be 1 to 99 or 'unlimited'."),
        ("invite bob", "There's no saved match with bob. Please give a match length."),
        ("join bob", "bob didn't invite you."),
        ("join", "Error: No one to join."),
        ("roll", "You're not playing."),
        ("leave", "You're not playing, so you can't leave."),
    ],
)
def test_invitation_mistakes(command, problem):
    h = Harness()
    alice = h.login("alice")
    h.login("bob")
    h.send("alice", command)
    assert alice.events[-1] == ServerError(message=problem)


def test_players_not_ready_refuse_games():
    h = Harness(new_account_toggles={})
    alice = h.login("alice")
    h.login("bob")
    h.send("alice", "invite bob 1")
    assert alice.events[-1] == ServerError(message="bob is refusing games.")
    h.send("bob", "toggle ready")
    h.send("alice", "invite bob 1")
    assert alice.events[-1] == InviteSent(player="bob", length=1, resume=False)


def test_an_invitation_lapses_when_the_inviter_leaves():
    h = Harness()
    h.login("alice")
    bob = h.login("bob")
    h.send("alice", "invite bob 3")
    h.send("alice", "bye")
    h.send("bob", "join alice")
    assert bob.events[-1] == ServerError(message="alice didn't invite you.")


def test_outputs_are_sends_echoes_and_closes_only():
    core = ServerCore()
    seen = core.connect(1, START) + core.receive(1, "alice", START) + core.receive(1, "pw", START)
    seen += core.receive(1, "bye", START)
    assert {type(o) for o in seen} == {Send, SetEcho, Close}
    assert core.receive(1, "anything", START) == [] and core.disconnect(1, START) == []
