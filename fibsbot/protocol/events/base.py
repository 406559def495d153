"""The base of every event, and the events of lines the bot does not understand."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Event(BaseModel):
    model_config = ConfigDict(frozen=True)


# --- unrecognised --------------------------------------------------------------------------


class Unknown(Event):
    text: str
    reason: str | None = None


class BadBoard(Unknown):
    """A ``board:`` line that failed to parse; ``reason`` says why."""
