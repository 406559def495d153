"""What the server says when a setting changes: FIBS's answers to ``toggle NAME``.

Each toggle has one sentence for "now on" and one for "now off", sent as a
``** `` line like an error; known sentences become ``ToggleChanged`` events so
that a log of errors holds only real refusals.  The local server
(``fibsbot.server.lobby``) answers with these same texts.
"""

from __future__ import annotations

import re

# FIBS's answers to "toggle NAME": (now on, now off)
TOGGLE_TEXTS: dict[str, tuple[str, str]] = {
    "allowpip": (
        "You allow the use of the server's 'pip' command.",
        "You don't allow the use of the server's 'pip' command.",
    ),
    "autoboard": ("The board will be refreshed after every move.", "The board won't be refreshed after every move."),
    "autodouble": (
        "You agree that doublets during opening double the cube.",
        "You don't agree that doublets during opening double the cube.",
    ),
    "automove": ("Forced moves will be done automatically.", "Forced moves won't be done automatically."),
    "bell": (
        "Your terminal will ring the bell if someone talks to you or invites you.",
        "Your terminal won't ring the bell if someone talks to you or invites you.",
    ),
    "crawford": ("You would like to use the Crawford rule.", "You would not like to use the Crawford rule."),
    "double": ("You will be asked if you want to double.", "You won't be asked if you want to double."),
    "greedy": ("Will use automatic greedy bearoffs.", "Won't use automatic greedy bearoffs."),
    "moreboards": ("Will send rawboards after rolling.", "Won't send rawboards after rolling."),
    "moves": ("You want a list of moves after this game.", "You won't see a list of moves after this game."),
    "notify": ("You'll be notified when new users log in.", "You won't be notified when new users log in."),
    "ratings": (
        "You'll see how the rating changes are calculated.",
        "You won't see how the rating changes are calculated.",
    ),
    "ready": ("You're now ready to invite or join someone.", "You're now refusing to play with someone."),
    "report": (
        "You will be informed about starting and ending matches.",
        "You won't be informed about starting and ending matches.",
    ),
    "silent": ("You won't hear what other players shout.", "You will hear what other players shout."),
    "telnet": (
        "You use telnet and don't need extra 'newlines'.",
        "You use a client program and will receive extra 'newlines'.",
    ),
    "wrap": ("The server will wrap long lines.", "Your terminal knows how to wrap long lines."),
}

# sentence -> (toggle, its new value)
TOGGLE_BY_TEXT: dict[str, tuple[str, bool]] = {
    text: (name, value) for name, texts in TOGGLE_TEXTS.items() for text, value in zip(texts, (True, False))
}

# FIBS's answer to an invitation of a player who is not ready (a saved match's opponent too)
_REFUSING_GAMES = re.compile(r"(?P<name>\S+) is refusing games\.")


def refusing_games(message: str) -> str | None:
    """The player named by ``** NAME is refusing games.`` (``message`` without the ``** ``), else None."""
    found = _REFUSING_GAMES.fullmatch(message.strip())
    return None if found is None else found["name"]
