"""Hand-made FIBS board lines (from the field table of REFERENCE.md section 1) for tests."""

from __future__ import annotations

from fibsbot.protocol.board import O, X
from fibsbot.protocol.events import LoginPrompt
from fibsbot.protocol.parser import ClipParser

# Hand-made from the field table (REFERENCE.md section 1).  Opening position, we on
# roll with 6-2.  X moving 24->1 has its back checkers on cell 24 (negative); O
# moving 1->24 has them on cell 1.  Cells are the same for X/-1 and O/+1.
OPENING_X_DOWN = (
    "board:You:bob:5:0:0:0:2:0:0:0:0:-5:0:-3:0:0:0:5:-5:0:0:0:3:0:5:0:0:0:0:-2:0"
    ":-1:6:2:0:0:1:1:1:0:-1:-1:0:25:0:0:0:0:2:0:0:0"
)
OPENING_O_UP = (
    "board:You:bob:5:0:0:0:2:0:0:0:0:-5:0:-3:0:0:0:5:-5:0:0:0:3:0:5:0:0:0:0:-2:0"
    ":1:6:2:0:0:1:1:1:0:1:1:25:0:0:0:0:0:2:0:0:0"
)
OPENING_X_UP = (
    "board:You:bob:5:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0"
    ":-1:6:2:0:0:1:1:1:0:-1:1:25:0:0:0:0:0:2:0:0:0"
)
OPENING_O_DOWN = (
    "board:You:bob:5:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0"
    ":1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0"
)

# One middle-game position in all four seats, 7-point match at 2-3, cube 2 owned
# by bob, we on roll with 5-3.  In our numbering: 2 on our 1, 2 on 4, 3 on 5, 4 on
# 6, 1 on the bar, 3 off.  In bob's numbering: 4 on his 1, 4 on 2, 3 on 3, 1 on
# his 22 (our 3), 2 on the bar, 1 off.
MID_X_DOWN = (  # we are X moving 24->1: our point p is cell p, our bar cell 25
    "board:You:bob:7:2:3:2:-2:0:1:-2:-3:-4:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:3:4:4:-1"
    ":-1:5:3:0:0:2:0:1:0:-1:-1:0:25:3:1:1:2:2:0:0:0"
)
MID_O_UP = (  # we are O moving 1->24: our point p is cell 25-p, our bar cell 0
    "board:You:bob:7:2:3:1:-4:-4:-3:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:4:3:2:-1:0:2:-2"
    ":1:5:3:0:0:2:0:1:0:1:1:25:0:3:1:1:2:2:0:0:0"
)
MID_X_UP = (
    "board:You:bob:7:2:3:-1:4:4:3:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:-4:-3:-2:1:0:-2:2"
    ":-1:5:3:0:0:2:0:1:0:-1:1:25:0:3:1:1:2:2:0:0:0"
)
MID_O_DOWN = (
    "board:You:bob:7:2:3:-2:2:0:-1:2:3:4:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:-3:-4:-4:1"
    ":1:5:3:0:0:2:0:1:0:1:-1:0:25:3:1:1:2:2:0:0:0"
)
SEATS = {  # line: (colour, direction)
    MID_X_DOWN: (X, -1),
    MID_O_UP: (O, 1),
    MID_X_UP: (X, 1),
    MID_O_DOWN: (O, -1),
}


def with_fields(line: str, **changes: int | str) -> str:
    """``line`` with some fields replaced, given as f<index>=value."""
    fields = line.split(":")
    for key, value in changes.items():
        fields[int(key[1:])] = str(value)
    return ":".join(fields)


# A login and the start of a match as the server sends it: \r\n line ends, prompts
# without line ends, trailing spaces, a roll glued to a board line.
SESSION = (
    "\r\n FIBS banner text \r\n\r\nlogin: "
    "** Warning: You are already logged in.\r\n"
    "1 bot 1306865048 host.example.com\r\n"
    "2 bot 1 1 0 0 0 0 1 1 2396 0 1 0 1 1500.25 0 1 0 0 0 UTC\r\n"
    "3\r\n+--------------------+\r\n| Welcome to the bot test bed |\r\n4\r\n"
    "5 bob - - 1 0 1612.40 3000 12 1306865000 10.0.0.2 fibsbot_0.1 -\r\n6\r\n"
    "bob wants to play a 5 point match with you.\r\nType 'join bob' to accept.\r\n> "
    "** You are now playing a 5 point match with bob\r\n"
    "Starting a new game with bob.\r\nYou rolled 6, bob rolled 2\r\nIt's your turn to move.   \r\n"
    + OPENING_X_DOWN
    + "\r\n"
    "bob rolls 4 and 2.\r\nbob moves 1-5 12-14 .\r\n" + MID_X_DOWN + "You roll 5 and 3.\r\nPlease move 2 pieces.\r\n"
    "12 bob gl hf\r\nbob doubles. Type 'accept' or 'reject'.\r\n"
    "You accept the double.  The cube shows 2.\r\n> "
    "bob wins the game and gets 2 points. Sorry.\r\nscore in 5 point match: bot-0 bob-2\r\n"
    "Type 'join' if you want to play the next game, type 'leave' if you don't.\r\n"
)

SESSION_LINES = [line for line in SESSION.replace("> ", "\n").split("\r\n") if line.strip()]


def parse(text: str, **options) -> list:
    parser = ClipParser(**options)
    return parser.feed(text) + parser.flush()


def logged_in(text: str) -> list:
    """The events of ``text`` on a connection past its login prompt (before it, text is the banner)."""
    events = parse("login: " + text)
    assert events[0] == LoginPrompt(attempt=1)
    return events[1:]


def only(text: str):
    events = logged_in(text + "\r\n")
    assert len(events) == 1, events
    return events[0]
