"""JSON event log: one event per line, timing of the wire, and the password never written."""

from __future__ import annotations

import json
import stat

import pytest
import structlog

from fibsbot.records.events import REDACTED, Redactor, WireLog, configure_logging, event_logger

PASSWORD = 's3cr:"et\\pw'  # a colon, a quote and a backslash: JSON escapes two of them


def read_events(path):
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_events_are_json_lines_with_timestamp_and_level(tmp_path):
    path = tmp_path / "log" / "events.jsonl"
    log = event_logger(path, match="m1")
    log.info("game_start", game=3, score=[1, 2])
    log.warning("odd_line", text="é ünïcode")
    events = read_events(path)
    assert [e["event"] for e in events] == ["game_start", "odd_line"]
    assert events[0]["game"] == 3 and events[0]["score"] == [1, 2] and events[0]["match"] == "m1"
    assert events[0]["level"] == "info" and events[1]["level"] == "warning"
    assert events[0]["timestamp"].endswith("Z") and events[0]["timestamp"][:2] == "20"
    assert events[1]["text"] == "é ünïcode"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_password_never_reaches_the_file(tmp_path):
    path = tmp_path / "events.jsonl"
    log = event_logger(path, secrets=[PASSWORD])
    wire = WireLog(log)
    wire.sent(f"login fibsbot 1008 mybot {PASSWORD}")
    wire.received(f"echo of {PASSWORD} from a server that repeats it")
    log.info("settings", password=PASSWORD, nested={"a": [PASSWORD, 1], "token": "abc"})
    log.info("bytes", raw=PASSWORD.encode() + b"\xff")
    log.info("object", thing=RuntimeError(PASSWORD))
    try:
        raise ValueError(f"bad login {PASSWORD}")
    except ValueError:
        log.exception("crash")
    log.info("tuple", pair=("x", f"pre{PASSWORD}post"))
    text = path.read_text(encoding="utf-8")
    escaped = json.dumps(PASSWORD)[1:-1]
    assert PASSWORD not in text and escaped not in text and "s3cr" not in text
    events = read_events(path)
    assert len(events) == 7
    assert events[0]["command"] == f"login fibsbot 1008 mybot {REDACTED}"
    assert events[2]["password"] == REDACTED and events[2]["nested"] == {"a": [REDACTED, 1], "token": REDACTED}
    assert REDACTED in events[5]["exception"] and "ValueError" in events[5]["exception"]
    assert events[6]["pair"] == ["x", f"pre{REDACTED}post"]


def test_redactor_learns_secrets_later_and_prefers_the_longest():
    redactor = Redactor(["abc"])
    redactor.add("xxabcxx")
    redactor.add("")  # an empty secret would match everywhere: ignored
    assert redactor.scrub("1 xxabcxx 2 abc") == f"1 {REDACTED} 2 {REDACTED}"
    assert redactor.scrub("nothing here") == "nothing here"


def test_wire_log_times_replies_with_the_given_clock(tmp_path):
    path = tmp_path / "events.jsonl"
    now = [100.0]
    wire = WireLog(event_logger(path), clock=lambda: now[0])
    wire.sent("set boardstyle 3")  # nothing received yet: no reply time
    wire.received("board:You:bob:3:0:0:...")
    now[0] += 0.25
    wire.received("You roll 3 and 1.")
    now[0] += 0.0125
    wire.sent("move 8-5 6-5")
    with wire.timed("decision", kind="move") as extra:
        now[0] += 0.5
        extra["ply"] = 2
    events = read_events(path)
    assert [e["event"] for e in events] == ["send", "recv", "recv", "send", "decision"]
    assert events[0]["reply_ms"] is None and events[1]["gap_ms"] is None
    assert events[2]["gap_ms"] == 250.0 and events[3]["reply_ms"] == 12.5
    assert events[4] == {**events[4], "elapsed_ms": 500.0, "kind": "move", "ply": 2}


def test_global_configuration_writes_get_logger_events(tmp_path):
    path = tmp_path / "daemon.jsonl"
    old = structlog.get_config()
    try:
        redactor = configure_logging(path)
        redactor.add(PASSWORD)  # known only once the settings are read
        structlog.get_logger().info("connected", host="fibs.com", note=f"pw={PASSWORD}")
    finally:
        structlog.configure(**old)
    (event,) = read_events(path)
    assert event["event"] == "connected" and event["note"] == f"pw={REDACTED}"


@pytest.mark.parametrize("value", [None, True, 3, 2.5])
def test_plain_values_pass_unchanged(tmp_path, value):
    path = tmp_path / "e.jsonl"
    event_logger(path, secrets=["zz"]).info("v", value=value)
    assert read_events(path)[0]["value"] == value


def test_secret_keys_and_numeric_secrets_are_removed(tmp_path):
    path = tmp_path / "e.jsonl"
    event_logger(path, secrets=["123456"]).info("odd", **{"user_123456": 1}, pin=123456)
    text = path.read_text()
    assert "123456" not in text
    assert read_events(path)[0]["pin"] == REDACTED
