"""Settings of the local server (one pydantic model, validated once)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

# FIBS's toggles with the values a new FIBS account starts with; "away" is set by
# the away/back commands and is not a toggle
DEFAULT_TOGGLES: dict[str, bool] = {
    "allowpip": True,
    "autoboard": True,
    "autodouble": False,
    "automove": False,
    "bell": False,
    "crawford": True,
    "double": True,
    "greedy": False,
    "moreboards": False,
    "moves": False,
    "notify": True,
    "ratings": False,
    "ready": False,
    "report": False,
    "silent": False,
    "telnet": True,
    "wrap": False,
}


class ServerConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    # local mode: the first "login" of an unknown name creates the account
    create_accounts: bool = True
    # seconds without input before "Connection timed out."; None: never
    idle_timeout: float | None = Field(default=3600.0, gt=0)
    banner: tuple[str, ...] = (
        "",
        "   fibsbot local backgammon server (FIBS client protocol, CLIP 1008)",
        "",
    )
    motd: tuple[str, ...] = (
        "+--------------------------------------+",
        "| Welcome to the fibsbot test server.  |",
        "+--------------------------------------+",
    )
    # toggles of new accounts, over FIBS's defaults (e.g. {"ready": True})
    new_account_toggles: dict[str, bool] = {}
    rating: float = 1500.0  # every new account's rating; finished matches move it (server.ratings)
    # commands answered "** Unknown command: 'NAME'" as some servers do (e.g. {"board"})
    unknown_commands: frozenset[str] = frozenset()
    # seconds between a match's last game-end line and its match-end line; a player
    # who leaves within them takes the match-end line with them, as seen on a real
    # server when the winner logged out at once (0: both in the same breath)
    match_end_delay: float = Field(default=0.0, ge=0)
    # a saved match reloaded at or inside its Crawford game forgets it: its board says
    # post-Crawford at the same score and doubles are accepted, as seen on a real server
    crawford_lost_on_reload: bool = False
    # the echo of a player's own tell (CLIP 16) goes without its line end, so the next line
    # the player gets follows on the same line, as a foreign server sent it
    glue_tell_echo: bool = False
    # a player who leaves the server mid-match: the opponent reads only the logout line
    # ("8 U U drops connection."), no "U drops connection. The game was saved.", as a foreign
    # server sent it ("leave" still says "The game was saved.")
    logout_line_only: bool = False

    @field_validator("new_account_toggles")
    @classmethod
    def _known_toggles(cls, value: dict[str, bool]) -> dict[str, bool]:
        unknown = sorted(set(value) - set(DEFAULT_TOGGLES))
        if unknown:
            raise ValueError(f"unknown toggles {unknown}; known: {sorted(DEFAULT_TOGGLES)}")
        return value

    def initial_toggles(self) -> dict[str, bool]:
        return {**DEFAULT_TOGGLES, **self.new_account_toggles}
