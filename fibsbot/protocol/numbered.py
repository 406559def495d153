"""Numbered CLIP lines (first token 1..19): pure functions from a line to an Event.

Chat texts keep their own spacing (only the single separator after the name is
dropped); a line with the wrong number of fields becomes ``Unknown`` with a reason.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from fibsbot.protocol.events import (
    Event,
    Kibitzes,
    Login,
    Logout,
    MessageDelivered,
    MessageSaved,
    MotdEnd,
    MotdStart,
    OwnInfo,
    Says,
    Shouts,
    StoredMessage,
    Unknown,
    Welcome,
    Whispers,
    WhoEnd,
    WhoInfo,
    YouKibitz,
    YouSay,
    YouShout,
    YouWhisper,
)

NUMBERED = re.compile(r"(?P<code>[0-9]{1,2})(?: (?P<rest>.*))?")
_NUMBER = re.compile(r"-?[0-9]{1,12}")
_DECIMAL = re.compile(r"-?[0-9]{1,9}(?:\.[0-9]{1,9})?")


class _FieldError(ValueError):
    pass


def _int(text: str) -> int:
    if not _NUMBER.fullmatch(text):
        raise _FieldError(f"not an integer: {text!r}")
    return int(text)


def _float(text: str) -> float:
    if not _DECIMAL.fullmatch(text):
        raise _FieldError(f"not a number: {text!r}")
    return float(text)


def _flag(text: str) -> bool:
    if text not in ("0", "1"):
        raise _FieldError(f"not a 0/1 flag: {text!r}")
    return text == "1"


def _optional(text: str) -> str | None:
    return None if text == "-" else text


def _redoubles(text: str) -> int | None:
    if text == "unlimited":
        return None
    if text == "none":
        return 0
    return _int(text)


def _fields(rest: str, count: int) -> list[str]:
    parts = rest.split()
    if len(parts) != count:
        raise _FieldError(f"expected {count} fields, got {len(parts)}")
    return parts


def _name_and_text(rest: str) -> tuple[str, str]:
    name, _, text = rest.partition(" ")
    if not name:
        raise _FieldError("missing name")
    return name, text


def _welcome(rest: str) -> Event:
    name, last_login, last_host = _fields(rest, 3)
    return Welcome(name=name, last_login=_int(last_login), last_host=last_host)


_OWN_INFO_FLAGS = (
    "allowpip",
    "autoboard",
    "autodouble",
    "automove",
    "away",
    "bell",
    "crawford",
    "double",
)


def _own_info(rest: str) -> Event:
    f = _fields(rest, 21)
    values: dict[str, Any] = {"name": f[0]}
    values.update({key: _flag(value) for key, value in zip(_OWN_INFO_FLAGS, f[1:9])})
    return OwnInfo(
        **values,
        experience=_int(f[9]),
        greedy=_flag(f[10]),
        moreboards=_flag(f[11]),
        moves=_flag(f[12]),
        notify=_flag(f[13]),
        rating=_float(f[14]),
        ratings=_flag(f[15]),
        ready=_flag(f[16]),
        redoubles=_redoubles(f[17]),
        report=_flag(f[18]),
        silent=_flag(f[19]),
        timezone=f[20],
    )


def _who_info(rest: str) -> Event:
    f = _fields(rest, 12)
    return WhoInfo(
        name=f[0],
        opponent=_optional(f[1]),
        watching=_optional(f[2]),
        ready=_flag(f[3]),
        away=_flag(f[4]),
        rating=_float(f[5]),
        experience=_int(f[6]),
        idle=_int(f[7]),
        login=_int(f[8]),
        hostname=f[9],
        client=_optional(f[10]),
        email=_optional(f[11]),
    )


def _bare(event: Event) -> Callable[[str], Event]:
    def build(rest: str) -> Event:
        if rest:
            raise _FieldError("unexpected text after the number")
        return event

    return build


def _single_name(cls: Callable[..., Event]) -> Callable[[str], Event]:
    def build(rest: str) -> Event:
        (name,) = _fields(rest, 1)
        return cls(name=name)

    return build


def _named_text(cls: Callable[..., Event], field: str = "text") -> Callable[[str], Event]:
    def build(rest: str) -> Event:
        name, text = _name_and_text(rest)
        return cls(name=name, **{field: text})

    return build


def _stored_message(rest: str) -> Event:
    sender, _, after = rest.partition(" ")
    time, _, text = after.partition(" ")
    if not sender:
        raise _FieldError("missing sender")
    return StoredMessage(sender=sender, time=_int(time), text=text)


_BUILDERS: dict[int, Callable[[str], Event]] = {
    1: _welcome,
    2: _own_info,
    3: _bare(MotdStart()),
    4: _bare(MotdEnd()),
    5: _who_info,
    6: _bare(WhoEnd()),
    7: _named_text(Login, "message"),
    8: _named_text(Logout, "message"),
    9: _stored_message,
    10: _single_name(MessageDelivered),
    11: _single_name(MessageSaved),
    12: _named_text(Says),
    13: _named_text(Shouts),
    14: _named_text(Whispers),
    15: _named_text(Kibitzes),
    16: _named_text(YouSay),
    17: lambda rest: YouShout(text=rest),
    18: lambda rest: YouWhisper(text=rest),
    19: lambda rest: YouKibitz(text=rest),
}


def clip_code(line: str) -> int | None:
    """The CLIP number a line starts with, or None if it is not a numbered line."""
    match = NUMBERED.fullmatch(line)
    if match is None:
        return None
    code = int(match["code"])
    return code if code in _BUILDERS else None


def parse_numbered(line: str) -> Event:
    """An event for a numbered CLIP line (``clip_code(line)`` must not be None)."""
    match = NUMBERED.fullmatch(line)
    if match is None or int(match["code"]) not in _BUILDERS:
        return Unknown(text=line, reason="not a numbered CLIP line")
    code = int(match["code"])
    try:
        return _BUILDERS[code](match["rest"] or "")
    except (_FieldError, ValueError) as exc:
        return Unknown(text=line, reason=f"CLIP {code}: {exc}")
