"""Events of the session around the games: login, the CLIP lines about players and
messages, chat, the server's answers to settings, and the saved-match listing."""

from __future__ import annotations

from fibsbot.protocol.events.base import Event

# --- login and prompts -------------------------------------------------------------


class LoginPrompt(Event):
    attempt: int  # how many login prompts this connection has seen, this one included


class LoginFailed(Event):
    """A login prompt right after we sent credentials: they were refused."""

    attempt: int


class PasswordPrompt(Event):
    pass


class Banner(Event):
    """A line of the server's greeting: the text before its first ``login: `` prompt."""

    text: str


class Prompt(Event):
    """The ``> `` command prompt."""


class Welcome(Event):  # CLIP 1
    name: str
    last_login: int
    last_host: str


class OwnInfo(Event):  # CLIP 2
    name: str
    allowpip: bool
    autoboard: bool
    autodouble: bool
    automove: bool
    away: bool
    bell: bool
    crawford: bool
    double: bool
    experience: int
    greedy: bool
    moreboards: bool
    moves: bool
    notify: bool
    rating: float
    ratings: bool
    ready: bool
    redoubles: int | None  # None = unlimited; FIBS writes "none" for 0
    report: bool
    silent: bool
    timezone: str

    def toggles(self) -> dict[str, bool]:
        """Current values by their ``toggle`` command names (toggles flip, so compare first)."""
        return {name: value for name, value in self.model_dump().items() if isinstance(value, bool)}


class MotdStart(Event):  # CLIP 3
    pass


class MotdLine(Event):
    text: str


class MotdEnd(Event):  # CLIP 4
    pass


class WhoInfo(Event):  # CLIP 5; "-" fields become None
    name: str
    opponent: str | None
    watching: str | None
    ready: bool
    away: bool
    rating: float
    experience: int
    idle: int
    login: int
    hostname: str
    client: str | None
    email: str | None


class WhoEnd(Event):  # CLIP 6
    pass


class Login(Event):  # CLIP 7
    name: str
    message: str


class Logout(Event):  # CLIP 8
    name: str
    message: str


class StoredMessage(Event):  # CLIP 9
    sender: str
    time: int
    text: str


class MessageDelivered(Event):  # CLIP 10
    name: str


class MessageSaved(Event):  # CLIP 11
    name: str


# --- chat (CLIP 12-19) ---------------------------------------------------------------


class Says(Event):
    name: str
    text: str


class Shouts(Event):
    name: str
    text: str


class Whispers(Event):
    name: str
    text: str


class Kibitzes(Event):
    name: str
    text: str


class YouSay(Event):
    name: str  # the player we told
    text: str


class YouShout(Event):
    text: str


class YouWhisper(Event):
    text: str


class YouKibitz(Event):
    text: str


# --- the saved matches (``show saved``) ------------------------------------------------------


class SavedMatchesHeader(Event):
    """``  opponent          matchlength   score (your points first)``: a listing begins."""


class SavedMatch(Event):
    """One row of the listing; a listing is complete, so earlier rows are forgotten at its header."""

    opponent: str
    length: int | None  # None: unlimited
    scores: tuple[int, int]  # ours first
    online: bool  # the row starts with "*" (logged in) or "**" (logged in and ready)
    ready: bool


class NoSavedMatches(Event):
    """``no saved games.``"""


class ServerError(Event):
    """A ``** ...`` line not recognised as anything more specific."""

    message: str


class Notice(Event):
    """A server line that informs and refuses nothing, though it may look like an error: a
    frame of stars around a greeting, ``** Please wait for U to join too.`` (``text`` without
    the ``** ``)."""

    text: str


class ToggleChanged(Event):
    """The answer to ``toggle NAME`` (``** You will hear what other players shout.``)."""

    name: str
    value: bool


class SettingChanged(Event):
    """The answer to ``set NAME VALUE`` (``Value of 'boardstyle' set to 3.``)."""

    name: str
    value: str
