"""The JSON event log: one JSON object per line, with a timestamp, level and key-values.

Every event passes a redaction step, just before rendering, that removes
secrets (the FIBS password) from keys and values, so that a secret cannot reach
the file however it was logged: as a value, inside a received line (``login
fibsbot 1008 user PASSWORD``), nested in a container, in an object's repr, or in
an exception's traceback (rendered to text before the redaction).

``event_logger(path, secrets)`` returns a logger writing to its own file without
touching structlog's global configuration (handy in tests and tools);
``configure_logging(path, secrets, max_bytes)`` makes the same pipeline structlog's default,
so ``structlog.get_logger()`` anywhere in the daemon writes there.  Both write through
``records.logfiles.RotatingLog``: rotated into compressed segments, ``max_bytes`` in all
(``[records] log_max_mb``), and a full disk never reaches the code that logs.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

import structlog

from fibsbot.records.logfiles import MB, RotatingLog

REDACTED = "[redacted]"
# keys whose values are never logged, whatever they hold
SECRET_KEYS = frozenset({"password", "passwd", "secret", "token", "credentials"})
# every level is written; .exception() attaches the traceback (rendered, then redacted)
_BOUND_LOGGER = structlog.make_filtering_bound_logger(logging.DEBUG)


class Redactor:
    """A structlog processor that removes secrets; ``add`` learns new ones at any time."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets: list[str] = []
        for secret in secrets:
            self.add(secret)

    def add(self, secret: str | None) -> None:
        if not secret:
            return  # an empty secret would match everywhere
        # the secret as written, and as repr() and JSON escape it (inside a logged repr)
        for form in (secret, repr(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1]):
            if form not in self._secrets:
                self._secrets.append(form)
        # longest first, so that a secret containing another is removed whole
        self._secrets.sort(key=len, reverse=True)

    def scrub(self, text: str) -> str:
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return text

    def _clean(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.scrub(value)
        if isinstance(value, dict):
            return {
                self.scrub(str(key)): REDACTED if str(key).lower() in SECRET_KEYS else self._clean(item)
                for key, item in value.items()
            }
        if isinstance(value, (list, tuple, set, frozenset)):
            return [self._clean(item) for item in value]
        if isinstance(value, (bytes, bytearray)):
            return self.scrub(value.decode("utf-8", "replace"))
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, (int, float)):
            return REDACTED if str(value) in self._secrets else value
        return self.scrub(str(value))  # other objects are logged as text, scrubbed

    def __call__(self, logger: Any, method: str, event_dict: dict) -> dict:
        return self._clean(event_dict)


def processors(redactor: Redactor) -> list:
    return [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True, key="timestamp"),
        structlog.processors.format_exc_info,
        redactor,  # last before rendering: nothing after it adds text
        structlog.processors.JSONRenderer(sort_keys=False, ensure_ascii=False),
    ]


def open_log_file(path: Path) -> TextIO:
    """Append to ``path`` (created 0600: logs hold chat and names), line-buffered."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    return os.fdopen(fd, "a", encoding="utf-8", buffering=1)


DEFAULT_MAX_BYTES = 256 * MB  # as [records] log_max_mb's default; callers with settings pass theirs


def event_logger(path: Path, secrets: Iterable[str] = (), max_bytes: int = DEFAULT_MAX_BYTES, **context: Any) -> Any:
    """A logger writing JSON lines to ``path``; independent of structlog's global setup."""
    redactor = Redactor(secrets)
    logger = structlog.wrap_logger(
        structlog.WriteLogger(RotatingLog(Path(path), max_bytes)),  # type: ignore[arg-type]
        processors=processors(redactor),
        wrapper_class=_BOUND_LOGGER,
    )
    return logger.bind(**context) if context else logger


def configure_logging(
    path: Path, secrets: Iterable[str] = (), max_bytes: int = DEFAULT_MAX_BYTES, *, log_folder: bool = True
) -> Redactor:
    """Make the JSON-lines file structlog's default output; returns the redactor to add secrets to.
    ``log_folder``: ``path``'s folder holds logs only (``DATA/log``: ``RotatingLog``'s ``adopt``)."""
    redactor = Redactor(secrets)
    rotating = RotatingLog(Path(path), max_bytes, adopt=log_folder)
    structlog.configure(
        processors=processors(redactor),
        logger_factory=structlog.WriteLoggerFactory(file=rotating),  # type: ignore[arg-type]
        wrapper_class=_BOUND_LOGGER,
        cache_logger_on_first_use=False,
    )
    return redactor


class WireLog:
    """Logs the conversation with the server: each received line and each sent command.

    ``recv`` events carry ``gap_ms``, the time since the previous received line;
    ``send`` events carry ``reply_ms``, the time since the last received line
    (how long the bot took to answer).  Times come from a monotonic clock.
    """

    def __init__(self, logger: Any, clock=time.monotonic) -> None:
        self._log = logger
        self._clock = clock
        self._last_received: float | None = None

    def received(self, line: str) -> None:
        now = self._clock()
        gap = None if self._last_received is None else round((now - self._last_received) * 1000, 1)
        self._last_received = now
        self._log.info("recv", line=line, gap_ms=gap)

    def sent(self, command: str) -> None:
        now = self._clock()
        reply = None if self._last_received is None else round((now - self._last_received) * 1000, 1)
        self._log.info("send", command=command, reply_ms=reply)

    @contextmanager
    def timed(self, event: str, **fields: Any) -> Iterator[dict]:
        """Log ``event`` with ``elapsed_ms`` once the block ends; the block may add fields."""
        start = self._clock()
        extra: dict = {}
        try:
            yield extra
        finally:
            elapsed = round((self._clock() - start) * 1000, 1)
            self._log.info(event, elapsed_ms=elapsed, **fields, **extra)
