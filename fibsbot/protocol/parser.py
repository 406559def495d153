"""Sans-IO parser for the FIBS client protocol (CLIP): text in, typed events out.

``ClipParser.feed(data)`` takes whatever text arrived and returns the events of
every line completed so far; it owns no socket and never raises for server input.
What it copes with (REFERENCE.md section 1, "Traps"):

* text the parser does not recognise before the first ``login: `` prompt is the
  server's banner (``Banner``), not an unknown line, and so is a frame of stars
  there (after the login it is a ``Notice``: neither is an error);
* prompts (``login: ``, ``password: ``, ``> ``) come without a line end, so they
  are recognised at the start of a line as soon as they are complete, and a
  prompt followed by more text on the same line yields the prompt and then the
  rest; either way the events do not depend on how the bytes were chunked;
* ``\\r`` and NUL bytes carry nothing (servers and gnubg sprinkle them), trailing
  spaces are dropped;
* an asynchronous line can be glued to a board line, a cube line or a game-end
  line: a board line ends after its 53rd field, a message with a definite end
  (see ``fibsbot.protocol.messages``) ends there, and a ``board:`` inside a non-chat line
  starts a new one; a server message glued to the echo of our own chat (a line end
  lost after it) starts where ``fibsbot.protocol.glue`` finds it; the pieces are parsed
  one after the other;
* a failed login is just a second ``login: `` prompt, reported as LoginFailed
  while ``expecting_login_result`` is set;
* the lines after a resumed match (``turn:``, ``match length:``, ``points for
  user``) are folded into its MatchResumed even when lobby lines (who info,
  logins, chat) arrive in between: those pass through, anything else ends the fold;
* the rows of a ``show saved`` listing are recognised only after its header.

The chat of others is never split: a kibitzer must not be able to forge a board line.
"""

from __future__ import annotations

import re

from fibsbot.protocol import events as _events
from fibsbot.protocol.board import BoardLineError, parse_board_line
from fibsbot.protocol.events import *  # noqa: F403 - the parser's users get the events with it
from fibsbot.protocol.events import (
    BadBoard,
    Banner,
    Board,
    Event,
    Kibitzes,
    Login,
    LoginFailed,
    LoginPrompt,
    Logout,
    MatchResumed,
    MessageDelivered,
    MessageSaved,
    MotdEnd,
    MotdLine,
    MotdStart,
    OwnInfo,
    PasswordPrompt,
    Prompt,
    SavedMatch,
    SavedMatchesHeader,
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
from fibsbot.protocol.glue import BOARD_PREFIX, glued_after_echo
from fibsbot.protocol.messages import FRAME, Parsed, ResumeLength, ResumePoints, ResumeTurn, match_message
from fibsbot.protocol.numbered import clip_code, parse_numbered

__all__ = ["ClipParser", *_events.__all__]

LOGIN_PROMPT = "login: "
PASSWORD_PROMPT = "password: "
COMMAND_PROMPT = "> "
_PROMPTS = (LOGIN_PROMPT, PASSWORD_PROMPT, COMMAND_PROMPT)

# FIBS writes two characters before the name: "  " (not logged in), " *" (logged in) or
# "**" (logged in and ready): "  GammonBot_VII           5                0 -  0",
# " *BlunderBot_VI ...", "**bonehead ...".  The leading spaces are stripped by then, and a
# server that writes the star left-aligned ("* alice", "** alice") is read the same way
_SAVED_ROW = re.compile(
    r"(?P<mark>\*{0,2}) *(?P<name>[A-Za-z0-9_]{1,32}) +(?P<length>[0-9]{1,4}|unlimited)"
    r" +(?P<ours>[0-9]{1,4}) +- +(?P<theirs>[0-9]{1,4})"
)
_FRAME = re.compile(FRAME)
# lobby lines that may come between a resume and its turn/length/points lines
_LOBBY = (
    Kibitzes,
    Login,
    Logout,
    MessageDelivered,
    MessageSaved,
    OwnInfo,
    Prompt,
    Says,
    Shouts,
    StoredMessage,
    Whispers,
    WhoEnd,
    WhoInfo,
    YouKibitz,
    YouSay,
    YouShout,
    YouWhisper,
)


class ClipParser:
    """Buffers partial input and turns complete lines into events."""

    def __init__(self, *, expecting_login_result: bool = False) -> None:
        # set by the client right after it sends "login ..."; cleared by the answer
        self.expecting_login_result = expecting_login_result
        self.login_prompts = 0
        self._buffer = ""
        self._in_motd = False
        self._in_saved_list = False
        self._resume: MatchResumed | None = None

    def expect_login_result(self) -> None:
        self.expecting_login_result = True

    def feed(self, data: str) -> list[Event]:
        """Events for every line (and complete prompt) that ``data`` finishes."""
        self._buffer += data.replace("\r", "").replace("\0", "")
        events: list[Event] = []
        while (end := self._buffer.find("\n")) >= 0:
            line, self._buffer = self._buffer[:end], self._buffer[end + 1 :]
            self._line(line, events)
        self._buffer = self._take_prompts(self._buffer, events)
        return events

    def flush(self) -> list[Event]:
        """At end of input: the unterminated rest as a line, and anything held back."""
        events: list[Event] = []
        rest, self._buffer = self._buffer, ""
        if rest:
            self._line(rest, events)
        if self._resume is not None:
            events.append(self._resume)
            self._resume = None
        return events

    # --- lines ---------------------------------------------------------------------

    def _take_prompts(self, text: str, events: list[Event]) -> str:
        while True:
            prompt = next((p for p in _PROMPTS if text.startswith(p)), None)
            if prompt is None:
                return text
            self._emit(self._prompt_event(prompt), events)
            text = text[len(prompt) :]

    def _prompt_event(self, prompt: str) -> Event:
        if prompt == PASSWORD_PROMPT:
            return PasswordPrompt()
        if prompt == COMMAND_PROMPT:
            return Prompt()
        self.login_prompts += 1
        if self.expecting_login_result:
            self.expecting_login_result = False
            return LoginFailed(attempt=self.login_prompts)
        return LoginPrompt(attempt=self.login_prompts)

    def _line(self, line: str, events: list[Event]) -> None:
        text = self._take_prompts(line, events).strip(" \t")
        # pieces of one physical line, parsed in order; a loop, not recursion,
        # because a hostile line may hold thousands of glued messages
        while text:
            try:
                parsed, text = self._piece(text)
            except Exception as exc:  # the parser must survive any input
                parsed, text = Unknown(text=text, reason=f"parser error: {exc!r}"), ""
            self._emit(parsed, events)
            text = text.strip(" \t")

    def _piece(self, text: str) -> tuple[Parsed, str]:
        """The first event in ``text`` and the glued text after it."""
        if text.startswith("board:"):
            return self._board(text)
        code = clip_code(text)
        if code is not None:
            glued = glued_after_echo(text)  # None but after an echo of our own chat
            rest = text[glued:] if glued is not None else ""
            event = parse_numbered(text[:glued])
            if isinstance(event, MotdStart):
                self._in_motd = True
            elif isinstance(event, MotdEnd):
                self._in_motd = False
            return event, rest
        if self._in_motd:
            return MotdLine(text=text), ""
        if self._in_saved_list:
            row = _SAVED_ROW.fullmatch(text)
            if row is not None:
                return _saved_match(row), ""
            self._in_saved_list = False
        glued_board = text.find("board:")
        if glued_board > 0:
            head, tail = text[:glued_board].rstrip(" "), text[glued_board:]
            parsed, rest = self._piece(head) if head else (None, "")
            if parsed is None:
                return self._board(tail)
            # the head contains no "board:", so its own rest is plain text
            return parsed, f"{rest} {tail}" if rest else tail
        if self.login_prompts == 0 and _FRAME.fullmatch(text):
            return Banner(text=text), ""  # the greeting's frame, as the rest of the greeting
        matched = match_message(text)
        if matched is None:
            return (Banner(text=text) if self.login_prompts == 0 else Unknown(text=text)), ""
        if isinstance(matched[0], SavedMatchesHeader):
            self._in_saved_list = True
        return matched

    def _board(self, text: str) -> tuple[Event, str]:
        match = BOARD_PREFIX.match(text)
        if match is None:
            try:
                parse_board_line(text)
                reason = "unrecognised board line"
            except BoardLineError as exc:
                reason = str(exc)
            return BadBoard(text=text, reason=reason), ""
        end = match.end()
        rest = text[end:]
        last = match["last"].lstrip("-")
        if rest.startswith(" ") and len(last) > 1:
            # "...:0" glued to "12 bob hi": the field ends after its first digit
            end = match.start("last") + (1 if match["last"][0] != "-" else 2)
            rest = text[end:]
        line = text[:end]
        try:
            return Board(board=parse_board_line(line), line=line), rest
        except BoardLineError as exc:
            return BadBoard(text=line, reason=str(exc)), rest

    # --- events that depend on the ones before -------------------------------------

    def _emit(self, parsed: Parsed, events: list[Event]) -> None:
        if isinstance(parsed, (ResumeTurn, ResumeLength, ResumePoints)):
            self._fold_resume(parsed, events)
            return
        if self._resume is not None and isinstance(parsed, _LOBBY):
            events.append(parsed)
            return
        if self._resume is not None:
            events.append(self._resume)
            self._resume = None
        if isinstance(parsed, MatchResumed):
            self._resume = parsed  # held until its turn/length/points lines are in
            return
        if isinstance(parsed, Welcome):
            self.expecting_login_result = False
        events.append(parsed)

    def _fold_resume(self, parsed: ResumeTurn | ResumeLength | ResumePoints, events: list[Event]) -> None:
        held = self._resume
        if held is None:
            events.append(Unknown(text=_resume_text(parsed), reason="not after a resumed match"))
            return
        if isinstance(parsed, ResumeTurn):
            self._resume = held.model_copy(update={"turn": parsed.player})
        elif isinstance(parsed, ResumeLength):
            self._resume = held.model_copy(update={"length": parsed.length})
        else:
            points = {**held.points, parsed.player: parsed.points}
            self._resume = held.model_copy(update={"points": points})
            if len(points) == 2:
                events.append(self._resume)
                self._resume = None


def _saved_match(row: re.Match[str]) -> SavedMatch:
    length = None if row["length"] == "unlimited" else int(row["length"])
    return SavedMatch(
        opponent=row["name"],
        length=length,
        scores=(int(row["ours"]), int(row["theirs"])),
        online=bool(row["mark"]),
        ready=row["mark"] == "**",
    )


def _resume_text(parsed: ResumeTurn | ResumeLength | ResumePoints) -> str:
    if isinstance(parsed, ResumeTurn):
        return f"turn: {parsed.player}"
    if isinstance(parsed, ResumeLength):
        return "unlimited match" if parsed.length is None else f"match length: {parsed.length}"
    return f"points for user {parsed.player}: {parsed.points}"
