"""Where one message ends and the next begins when a server glues them on one line.

Two kinds of glue are found here; ``fibsbot.protocol.parser`` splits the line there:

* a board line ends after its 53rd field (``BOARD_PREFIX``), whatever follows it;
* the echo of our own chat (CLIP 16-19: what we told, shouted, whispered, kibitzed) may
  come without its line end, the next message following on the same line, as a foreign
  server sent ``16 oppo Hi, ... Commands: tell fibsbotx help.** You are now playing a 3
  point match with oppo``.  An echo holds only text we wrote ourselves, so a server message
  found at its end is the server's; the chat of others (CLIP 12-15) is never split, so that
  a player cannot forge a server line by telling us one.

A message glued to an echo starts right after the echo's last character, with no space
between, and the first place where the rest of the line is a server line the parser knows
is taken.  Where a sentence of the echo ended (``.``, ``!``, ``?``) any server line counts:
a board, a numbered line that parses, a message of ``fibsbot.protocol.messages``.  Anywhere
else only a line whose start cannot be part of a word counts: a board, a ``**`` message
(but not a bare ``** ...`` error, for ``**`` may be emphasis), a message that begins with a
fixed word (``Starting a new game``, ``You roll``), a numbered line not after a digit.  A
message that begins with a player's name (``oppo wants to play ...``) is found only after a
sentence's end: inside a word, where the name begins cannot be told.
"""

from __future__ import annotations

import re

from fibsbot.protocol.events import ServerError, Unknown
from fibsbot.protocol.messages import match_message
from fibsbot.protocol.numbered import clip_code, parse_numbered

# the 50 numeric fields after "board:player:opponent"; the last one is captured so
# that digits of a glued CLIP line ("...:0:012 bob hi") can be given back
BOARD_PREFIX = re.compile(r"board:[^:]*:[^:]*(?::-?[0-9]+){49}:(?P<last>-?[0-9]+)")

# the echoes of our own chat: you say (tell), shout, whisper, kibitz
OWN_ECHOES = frozenset({16, 17, 18, 19})

_ECHO_HEAD = {16: re.compile(r"16 \S+ "), 17: re.compile(r"17 "), 18: re.compile(r"18 "), 19: re.compile(r"19 ")}
_SENTENCE_ENDS = ".!?"


def glued_after_echo(line: str) -> int | None:
    """Where a server message glued to the end of an echo of our own chat begins, or None.

    ``line`` is a whole numbered line; anything but an echo (CLIP 16-19) gives None."""
    code = clip_code(line)
    if code not in OWN_ECHOES:
        return None
    head = _ECHO_HEAD[code].match(line)
    if head is None:
        return None
    for start in range(head.end() + 1, len(line)):
        before = line[start - 1]
        if before == " " or line[start] == " ":
            continue
        if _is_server_line(line[start:], before):
            return start
    return None


def _is_server_line(text: str, before: str) -> bool:
    """Whether ``text``, glued after the character ``before``, is a line of the server."""
    after_sentence = before in _SENTENCE_ENDS
    if text.startswith("board:"):
        return BOARD_PREFIX.match(text) is not None
    if clip_code(text) is not None:
        return (after_sentence or not before.isdigit()) and not isinstance(parse_numbered(text), Unknown)
    matched = match_message(text, name_first=after_sentence)
    if matched is None:
        return False
    return after_sentence or not isinstance(matched[0], ServerError)
