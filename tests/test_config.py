"""Settings: TOML file, FIBSBOT_* environment, password sources, policy and derived paths."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fibsbot.config import ConfigError, Settings, default_data_dir, load_settings

EXAMPLE = Path(__file__).resolve().parent.parent / "systemd" / "fibsbot.toml.example"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch, tmp_path):
    for name in list(os.environ):
        if name.upper().startswith("FIBSBOT_"):
            monkeypatch.delenv(name)
    monkeypatch.delenv("CREDENTIALS_DIRECTORY", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "fibsbot.toml"
    path.write_text(text)
    return path


def test_defaults_and_derived_paths(tmp_path):
    settings = load_settings()
    assert settings.server.host == "fibs.com" and settings.server.port == 4321
    assert settings.play.agent_spec == "net:default@table"  # the table level unless ply or level says otherwise
    assert settings.data_dir == tmp_path / "xdg" / "fibsbot" == default_data_dir()
    assert settings.matches_dir == settings.data_dir / "matches"
    assert settings.log_dir == settings.data_dir / "log"
    assert settings.queue_path == settings.data_dir / "queue.sqlite"
    assert settings.invitations.max_matches == 1 and not settings.invitations.allow_unlimited


def test_home_fallback_without_xdg(monkeypatch):
    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_data_dir() == Path.home() / ".local" / "share" / "fibsbot"


def test_environment_overrides_the_file_field_by_field(tmp_path, monkeypatch):
    path = write(
        tmp_path,
        """
        admins = ["boss"]
        data_dir = "/srv/fibsbot"
        [server]
        host = "localhost"
        port = 4000
        user = "mybot"
        [play]
        ply = 1
        [invitations]
        max_length = 7
        deny = ["troll"]
    """,
    )
    monkeypatch.setenv("FIBSBOT_SERVER__PORT", "4321")
    monkeypatch.setenv("FIBSBOT_DATA_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("FIBSBOT_INVITATIONS__ALLOW_UNLIMITED", "true")
    settings = load_settings(path)
    assert settings.server.host == "localhost" and settings.server.port == 4321  # env wins, file keeps the rest
    assert settings.server.user == "mybot" and settings.admins == ["boss"]
    assert settings.play.agent_spec == "net:default@1"
    assert settings.data_dir == tmp_path / "state" and settings.queue_path == tmp_path / "state" / "queue.sqlite"
    assert settings.invitations.max_length == 7 and settings.invitations.allow_unlimited
    assert settings.invitations.deny == ["troll"]


def test_password_from_the_environment_is_hidden(tmp_path, monkeypatch):
    monkeypatch.setenv("FIBSBOT_PASSWORD", "hunter2")
    monkeypatch.setenv("FIBSBOT_SERVER__USER", "mybot")
    settings = load_settings()
    user, password = settings.fibs_login()
    assert (user, password.get_secret_value()) == ("mybot", "hunter2")
    for shown in (repr(settings), str(settings), settings.model_dump_json(), repr(settings.model_dump())):
        assert "hunter2" not in shown


def test_password_file_then_systemd_credential(tmp_path, monkeypatch):
    secret_file = tmp_path / "pw"
    secret_file.write_text("from-file\n")
    credentials = tmp_path / "creds"
    credentials.mkdir()
    (credentials / "fibs-password").write_text("from-systemd\n")
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(credentials))
    assert load_settings().fibs_password().get_secret_value() == "from-systemd"
    monkeypatch.setenv("FIBSBOT_PASSWORD_FILE", str(secret_file))
    assert load_settings().fibs_password().get_secret_value() == "from-file"
    monkeypatch.setenv("FIBSBOT_PASSWORD", "from-env")
    assert load_settings().fibs_password().get_secret_value() == "from-env"


@pytest.mark.parametrize(
    "setup, message",
    [
        ("nothing", "no password"),
        ("missing_file", "does not exist"),
        ("empty_file", "is empty"),
    ],
)
def test_password_problems_are_explained(tmp_path, monkeypatch, setup, message):
    if setup == "missing_file":
        monkeypatch.setenv("FIBSBOT_PASSWORD_FILE", str(tmp_path / "absent"))
    elif setup == "empty_file":
        (tmp_path / "pw").write_text("\n")
        monkeypatch.setenv("FIBSBOT_PASSWORD_FILE", str(tmp_path / "pw"))
    with pytest.raises(ConfigError, match=message):
        load_settings().fibs_password()


def test_login_needs_a_user(monkeypatch):
    monkeypatch.setenv("FIBSBOT_PASSWORD", "x")
    with pytest.raises(ConfigError, match="no FIBS user"):
        load_settings().fibs_login()


@pytest.mark.parametrize(
    "text, message",
    [
        ('[server]\npassword = "oops"\n', "does not belong"),
        ('password = "oops"\n', "does not belong"),
        ("[server\nhost = 1\n", "not valid TOML"),
        ('[server]\nhots = "typo"\n', "server.hots"),
        ("[server]\nport = 70000\n", "server.port"),
        ('[server]\nuser = "bad name"\n', "FIBS user name"),
        ("[invitations]\nmin_length = 9\nmax_length = 3\n", "exceeds max_length"),
        ("[invitations]\nmax_matches = 2\n", "max_matches"),
        ('admins = ["ok", "not ok"]\n', "not FIBS user names"),
        ("[play]\nply = 7\n", "play.ply"),
        ('[play]\nlevel = "3"\n', "play.level"),
        ("[play]\nworkers = 0\n", "play.workers"),
        ("[server]\nreconnect_backoff_base = 10.0\nreconnect_backoff_max = 1.0\n", "reconnect_backoff_max"),
    ],
)
def test_bad_files_give_one_line_reasons(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError, match=message) as info:
        load_settings(path)
    assert "\n" not in str(info.value) or "TOML" in str(info.value)
    assert "oops" not in str(info.value)


def test_the_table_level_is_named_in_the_player_spec(tmp_path):
    settings = load_settings(write(tmp_path, '[play]\nlevel = "table"\nply = 1\n'))
    assert settings.play.agent_spec == "net:default@table"  # the level wins over ply


@pytest.mark.parametrize("value", ["1.0", "10.0"])
def test_the_time_budget_of_earlier_releases_is_refused_with_what_to_do_instead(tmp_path, monkeypatch, value):
    """``think = 1.0`` was the table level's seconds a decision in earlier releases' examples;
    accepted, it would cut the deeper look by the clock, so the same position would play
    differently on another machine: it is refused in one line that says what to do."""
    path = write(tmp_path, f'[play]\nlevel = "table"\nthink = {value}\n')
    with pytest.raises(ConfigError) as info:
        load_settings(path)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{path}")
    assert "think is no longer a setting" in message and "bounded by work" in message and "remove the line" in message
    monkeypatch.setenv("FIBSBOT_PLAY__THINK", value)  # the environment's way to say it, too
    with pytest.raises(ConfigError, match="think is no longer a setting"):
        load_settings(None)


def test_the_example_settings_set_no_time_budget():
    """The shipped example and the docs name no setting of seconds a decision."""
    for line in EXAMPLE.read_text(encoding="utf-8").splitlines():
        assert not line.lstrip("# ").startswith("think"), line


def test_the_lookahead_uses_every_core_unless_told(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 5}, raising=False)
    assert load_settings(write(tmp_path, "")).play.threads == 3
    assert load_settings(write(tmp_path, "[play]\nworkers = 1\n")).play.threads == 1


def test_missing_config_file(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_settings(tmp_path / "nope.toml")


def test_bad_environment_value_is_reported(monkeypatch):
    monkeypatch.setenv("FIBSBOT_SERVER__PORT", "many")
    with pytest.raises(ConfigError, match="FIBSBOT_.*server.port"):
        load_settings()


def test_invitation_lists(tmp_path):
    path = write(
        tmp_path,
        """
        [invitations]
        max_length = 7
        allow_unlimited = true
        allow = ["alice", "troll"]
        deny = ["troll"]
        auto_invite = ["bob"]
    """,
    )
    policy = load_settings(path).invitations
    assert policy.allow == ["alice", "troll"] and policy.deny == ["troll"] and policy.auto_invite == ["bob"]
    assert (policy.min_length, policy.max_length, policy.allow_unlimited) == (1, 7, True)


def test_the_shipped_example_loads(monkeypatch, tmp_path):
    monkeypatch.setenv("FIBSBOT_DATA_DIR", str(tmp_path / "state"))
    settings = load_settings(EXAMPLE)
    assert isinstance(settings, Settings)
    assert settings.server.user and settings.data_dir == tmp_path / "state"
    assert settings.password is None  # the example holds no password
