"""Requests recorded from the programs that ask the bot, with the state each stands for.

``GNUBG_REQUESTS``: lines GNU Backgammon 1.07 sent to an external player (``set player N
external 127.0.0.1:PORT``), captured verbatim at a state set up by the commands quoted
with each (after ``set player 0 human``, ``set player 1 human``; gnubg's players then
``gnubg``/``external``; ``set score A B`` gives player 0 A points and player 1 B).
``position_id`` and ``match_id`` are what gnubg itself showed for that state (for a
take, after the double).  ``XGIDS``: XGIDs that gnubg's ``set xgid`` reads back as the
Position and Match ID of the named request.  ``CLIP_LINES``: board lines as the local
FIBS-style server writes them to us ("bot", against "bob").

Expected values are seen from our side: score ours first, cube owner 0 = us, 1 = them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.rules.ids import CENTRED, MatchState
from engine.rules.moves import legal_moves
from engine.rules.position import Position

US, THEM = 0, 1
# the middle-game position of most requests, the side on roll first; and a race
MIDDLE = "4O3gwQDgc/ABMA"
RACE = "dncPAAB3dwcAAA"


@dataclass(frozen=True)
class Expected:
    kind: str  # move, double, take
    score: tuple[int, int]
    length: int
    cube: int
    owner: int
    crawford: bool = False
    post_crawford: bool = False
    dice: tuple[int, int] | None = None


@dataclass(frozen=True)
class GnubgRequest:
    line: str
    seat: int  # our player in gnubg
    position_id: str
    match_id: str
    expected: Expected


GNUBG_REQUESTS = {
    # new match 7; set score 4 6; set crawford on; set turn 1; set board MIDDLE; set dice 5 2
    "crawford, we lead": GnubgRequest(
        "board:gnubg:root:7:4:6:0:0:0:0:0:0:5:-2:3:0:0:0:-4:5:0:0:0:-3:-2:-4:0:0:0:0:2:0:"
        "1:5:2:5:2:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:0",
        1,
        MIDDLE,
        "8InqAEAAMAAE",
        Expected("move", (6, 4), 7, 1, CENTRED, crawford=True, dice=(5, 2)),
    ),
    # new match 7; set score 6 4; set crawford on; set turn 1; set board MIDDLE; set dice 6 3
    "crawford, we trail": GnubgRequest(
        "board:gnubg:root:7:6:4:0:0:0:0:0:0:5:-2:3:0:0:0:-4:5:0:0:0:-3:-2:-4:0:0:0:0:2:0:"
        "1:6:3:6:3:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:0",
        1,
        MIDDLE,
        "8AnvAGAAIAAE",
        Expected("move", (4, 6), 7, 1, CENTRED, crawford=True, dice=(6, 3)),
    ),
    # new match 7; set score 6 3; set postcrawford on; set turn 1; set board MIDDLE
    "post-Crawford, we trail, before rolling": GnubgRequest(
        "board:gnubg:root:7:6:3:0:0:0:0:0:0:5:-2:3:0:0:0:-4:5:0:0:0:-3:-2:-4:0:0:0:0:2:0:"
        "1:0:0:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:1:1",
        1,
        MIDDLE,
        "cAngAGAAGAAE",
        Expected("double", (3, 6), 7, 1, CENTRED, post_crawford=True),
    ),
    # new match 7; set score 3 6; set postcrawford on; set turn 1; set board MIDDLE; set dice 4 1
    "post-Crawford, we lead": GnubgRequest(
        "board:gnubg:root:7:3:6:0:0:0:0:0:0:5:-2:3:0:0:0:-4:5:0:0:0:-3:-2:-4:0:0:0:0:2:0:"
        "1:4:1:4:1:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:1:1",
        1,
        MIDDLE,
        "cAnmADAAMAAE",
        Expected("move", (6, 3), 7, 1, CENTRED, post_crawford=True, dice=(4, 1)),
    ),
    # new match 7; set score 3 2; set cube value 2; set cube owner 1; set turn 1; set board MIDDLE
    "our cube, we trail, before rolling": GnubgRequest(
        "board:gnubg:root:7:3:2:0:0:0:0:0:0:5:-2:3:0:0:0:-4:5:0:0:0:-3:-2:-4:0:0:0:0:2:0:"
        "1:0:0:0:0:2:1:0:0:1:-1:0:25:0:0:0:0:0:0:0:1",
        1,
        MIDDLE,
        "UQngADAAEAAE",
        Expected("double", (2, 3), 7, 2, US),
    ),
    # the same, gnubg having rolled 52 for us after our "roll"
    "our cube, we trail, rolled": GnubgRequest(
        "board:gnubg:root:7:3:2:0:0:0:0:0:0:5:-2:3:0:0:0:-4:5:0:0:0:-3:-2:-4:0:0:0:0:2:0:"
        "1:5:2:5:2:2:1:0:0:1:-1:0:25:0:0:0:0:0:0:0:1",
        1,
        MIDDLE,
        "UQngADAAEAAE",
        Expected("move", (2, 3), 7, 2, US, dice=(5, 2)),
    ),
    # new match 7; set score 2 4; set cube value 2; set cube owner 0; set turn 1; set board MIDDLE
    # (we may not double: gnubg rolled 52 for us without asking)
    "their cube, we lead": GnubgRequest(
        "board:gnubg:root:7:2:4:0:0:0:0:0:0:5:-2:3:0:0:0:-4:5:0:0:0:-3:-2:-4:0:0:0:0:2:0:"
        "1:5:2:5:2:2:0:1:0:1:-1:0:25:0:0:0:0:0:0:0:1",
        1,
        MIDDLE,
        "QQngACAAIAAE",
        Expected("move", (4, 2), 7, 2, THEM, dice=(5, 2)),
    ),
    # new match 7; set score 1 2; set turn 0; set board RACE: gnubg doubles
    "doubled from the centre": GnubgRequest(
        "board:root:gnubg:7:2:1:0:0:2:3:3:3:4:0:0:0:0:0:0:0:0:0:0:0:0:0:-3:-3:-3:-3:-3:0:"
        "-1:0:0:0:0:1:1:1:1:1:-1:0:25:0:0:0:0:0:0:0:1",
        1,
        RACE,
        "MBngABAAEAAE",
        Expected("take", (2, 1), 7, 1, CENTRED),
    ),
    # new match 7; set score 0 3; set cube value 2; set cube owner 0; set turn 0; set board RACE
    "redoubled, we lead": GnubgRequest(
        "board:root:gnubg:7:3:0:0:0:2:3:3:3:4:0:0:0:0:0:0:0:0:0:0:0:0:0:-3:-3:-3:-3:-3:0:"
        "-1:0:0:0:0:2:0:1:1:1:-1:0:25:0:0:0:0:0:0:0:1",
        1,
        RACE,
        "ARngAAAAGAAE",
        Expected("take", (3, 0), 7, 2, THEM),
    ),
    # new session; set score 3 5; set cube value 4; set cube owner 1; set turn 1; set board MIDDLE; set dice 3 1
    "money, our cube": GnubgRequest(
        "board:gnubg:root:0:3:5:0:0:0:0:0:0:5:-2:3:0:0:0:-4:5:0:0:0:-3:-2:-4:0:0:0:0:2:0:"
        "1:3:1:3:1:4:1:0:0:1:-1:0:25:0:0:0:0:0:0:0:1",
        1,
        MIDDLE,
        "UokFADAAKAAA",
        Expected("move", (5, 3), 0, 4, US, dice=(3, 1)),
    ),
    # new session; set turn 0; set board RACE: gnubg doubles
    "money, doubled": GnubgRequest(
        "board:root:gnubg:0:0:0:0:0:2:3:3:3:4:0:0:0:0:0:0:0:0:0:0:0:0:0:-3:-3:-3:-3:-3:0:"
        "-1:0:0:0:0:1:1:1:1:1:-1:0:25:0:0:0:0:0:0:0:1",
        1,
        RACE,
        "MBkAAAAAAAAA",
        Expected("take", (0, 0), 0, 1, CENTRED),
    ),
    # we are gnubg's player 0 from here: new match 7; set score 3 6; set crawford on;
    # set turn 0; set board MIDDLE; set dice 5 2
    "seat 0, crawford, we trail": GnubgRequest(
        "board:gnubg:root:7:3:6:0:-2:0:0:0:0:4:2:3:0:0:0:-5:4:0:0:0:-3:2:-5:0:0:0:0:0:0:"
        "-1:5:2:5:2:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:0",
        0,
        MIDDLE,
        "sIHqADAAMAAE",
        Expected("move", (3, 6), 7, 1, CENTRED, crawford=True, dice=(5, 2)),
    ),
    # new match 7; set score 1 2; set cube value 4; set cube owner 0; set turn 0; set board MIDDLE
    "seat 0, our cube, before rolling": GnubgRequest(
        "board:gnubg:root:7:1:2:0:-2:0:0:0:0:4:2:3:0:0:0:-5:4:0:0:0:-3:2:-5:0:0:0:0:0:0:"
        "-1:0:0:0:0:4:0:1:0:1:-1:0:25:0:0:0:0:0:0:0:1",
        0,
        MIDDLE,
        "AgHgABAAEAAE",
        Expected("double", (1, 2), 7, 4, US),
    ),
    # new match 7; set score 2 6; set postcrawford on; set cube value 2; set cube owner 1;
    # set turn 0; set board MIDDLE (gnubg rolled 52 for us)
    "seat 0, their cube, post-Crawford, we trail": GnubgRequest(
        "board:gnubg:root:7:2:6:0:-2:0:0:0:0:4:2:3:0:0:0:-5:4:0:0:0:-3:2:-5:0:0:0:0:0:0:"
        "-1:5:2:5:2:2:1:0:0:1:-1:0:25:0:0:0:0:0:0:1:1",
        0,
        MIDDLE,
        "EQHgACAAMAAE",
        Expected("move", (2, 6), 7, 2, THEM, post_crawford=True, dice=(5, 2)),
    ),
    # new match 7; set score 4 1; set turn 1; set board RACE: gnubg doubles
    "seat 0, doubled from the centre": GnubgRequest(
        "board:root:gnubg:7:1:4:0:3:3:3:3:3:0:0:0:0:0:0:0:0:0:0:0:0:0:-4:-3:-3:-3:-2:0:0:"
        "1:0:0:0:0:1:1:1:1:1:-1:0:25:0:0:0:0:0:0:0:1",
        0,
        RACE,
        "cBHgAEAACAAE",
        Expected("take", (4, 1), 7, 1, CENTRED),
    ),
    # new session; set cube value 2; set cube owner 1; set turn 1; set board RACE: gnubg redoubles
    "seat 0, money, redoubled": GnubgRequest(
        "board:root:gnubg:0:0:0:0:3:3:3:3:3:0:0:0:0:0:0:0:0:0:0:0:0:0:-4:-3:-3:-3:-2:0:0:"
        "1:0:0:0:0:2:1:0:1:1:-1:0:25:0:0:0:0:0:0:0:1",
        0,
        RACE,
        "UREAAAAAAAAA",
        Expected("take", (0, 0), 0, 2, THEM),
    ),
}

# new match 7; set score 1 2; set cube owner 1 (the cube left at 1); set turn 1; set board
# MIDDLE; set dice 5 2: an owned 1-cube, which gnubg allows and writes as a one-sided flag
OWNED_ONE_CUBE = GnubgRequest(
    "board:gnubg:root:7:1:2:0:0:0:0:0:0:5:-2:3:0:0:0:-4:5:0:0:0:-3:-2:-4:0:0:0:0:2:0:"
    "1:5:2:5:2:1:1:0:0:1:-1:0:25:0:0:0:0:0:0:0:1",
    1,
    MIDDLE,
    "UInqABAAEAAE",
    Expected("move", (2, 1), 7, 1, US, dice=(5, 2)),
)

# XGIDs of requests above, each read back by gnubg's `set xgid` as that request's Position
# and Match ID (gnubg steps back to before the double on a "D" XGID, so none of those)
XGIDS = {
    "crawford, we lead": "XGID=------EbC---dE---cbd----B-:0:0:1:52:6:4:1:7:10",
    "post-Crawford, we trail, before rolling": "XGID=------EbC---dE---cbd----B-:0:0:1:00:3:6:0:7:10",
    "post-Crawford, we lead": "XGID=------EbC---dE---cbd----B-:0:0:1:41:6:3:0:7:10",
    "our cube, we trail, before rolling": "XGID=------EbC---dE---cbd----B-:1:1:1:00:2:3:0:7:10",
    "money, our cube": "XGID=------EbC---dE---cbd----B-:2:1:1:31:5:3:1:0:10",
    "seat 0, our cube, before rolling": "XGID=-b----DBC---eD---cBe------:2:-1:-1:00:2:1:0:7:10",
    "seat 0, their cube, post-Crawford, we trail": "XGID=-b----DBC---eD---cBe------:1:1:-1:00:6:2:0:7:10",
}

# Board lines the local server writes to "bot" (playing "bob"), MIDDLE with us first.
# Seat 0 plays X moving 1 -> 24, seat 1 O moving 24 -> 1, so both colours and directions occur.
CLIP_LINES = {
    "crawford, we lead": (  # X, 6-4 in 7, Crawford game, we rolled 52
        "board:You:bob:7:6:4:0:-2:0:0:0:0:4:2:3:0:0:0:-5:4:0:0:0:-3:2:-5:0:0:0:0:0:0:"
        "-1:5:2:0:0:1:1:1:0:-1:1:25:0:0:0:0:0:2:0:0:0",
        Expected("move", (6, 4), 7, 1, CENTRED, crawford=True, dice=(5, 2)),
    ),
    "crawford, we trail": (  # O, 3-6 in 7, Crawford game, we rolled 63
        "board:You:bob:7:3:6:0:0:0:0:0:0:5:-2:3:0:0:0:-4:5:0:0:0:-3:-2:-4:0:0:0:0:2:0:"
        "1:6:3:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0",
        Expected("move", (3, 6), 7, 1, CENTRED, crawford=True, dice=(6, 3)),
    ),
    "post-Crawford, we trail, before rolling": (  # X, 3-6, post-Crawford flag (field 51)
        "board:You:bob:7:3:6:0:-2:0:0:0:0:4:2:3:0:0:0:-5:4:0:0:0:-3:2:-5:0:0:0:0:0:0:"
        "-1:0:0:0:0:1:1:1:0:-1:1:25:0:0:0:0:0:0:0:1:0",
        Expected("double", (3, 6), 7, 1, CENTRED, post_crawford=True),
    ),
    "post-Crawford, we lead": (  # O, 6-2, we rolled 41
        "board:You:bob:7:6:2:0:0:0:0:0:0:5:-2:3:0:0:0:-4:5:0:0:0:-3:-2:-4:0:0:0:0:2:0:"
        "1:4:1:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:1:0",
        Expected("move", (6, 2), 7, 1, CENTRED, post_crawford=True, dice=(4, 1)),
    ),
    "our cube, we trail, before rolling": (  # O, 2-3, cube 2 ours
        "board:You:bob:7:2:3:0:0:0:0:0:0:5:-2:3:0:0:0:-4:5:0:0:0:-3:-2:-4:0:0:0:0:2:0:"
        "1:0:0:0:0:2:1:0:0:1:-1:0:25:0:0:0:0:0:0:0:0",
        Expected("double", (2, 3), 7, 2, US),
    ),
    "their cube, we lead": (  # X, 4-2, cube 4 theirs, we rolled 52
        "board:You:bob:7:4:2:0:-2:0:0:0:0:4:2:3:0:0:0:-5:4:0:0:0:-3:2:-5:0:0:0:0:0:0:"
        "-1:5:2:0:0:4:0:1:0:-1:1:25:0:0:0:0:0:2:0:0:0",
        Expected("move", (4, 2), 7, 4, THEM, dice=(5, 2)),
    ),
    "doubled from the centre": (  # X, 2-1, bob doubled: turn shows our colour, flags 0
        "board:You:bob:7:2:1:0:-2:0:0:0:0:4:2:3:0:0:0:-5:4:0:0:0:-3:2:-5:0:0:0:0:0:0:"
        "-1:0:0:0:0:1:0:0:1:-1:1:25:0:0:0:0:0:0:0:0:0",
        Expected("take", (2, 1), 7, 1, CENTRED),
    ),
    "redoubled, we lead": (  # O, 3-0, bob owns the 2-cube and redoubles
        "board:You:bob:7:3:0:0:0:0:0:0:0:5:-2:3:0:0:0:-4:5:0:0:0:-3:-2:-4:0:0:0:0:2:0:"
        "1:0:0:0:0:2:0:0:1:1:-1:0:25:0:0:0:0:0:0:0:0",
        Expected("take", (3, 0), 7, 2, THEM),
    ),
    "unlimited, our cube": (  # X, an unlimited match, 5-3, cube 4 ours, we rolled 31
        "board:You:bob:9999:5:3:0:-2:0:0:0:0:4:2:3:0:0:0:-5:4:0:0:0:-3:2:-5:0:0:0:0:0:0:"
        "-1:3:1:0:0:4:1:0:0:-1:1:25:0:0:0:0:0:2:0:0:0",
        Expected("move", (5, 3), 0, 4, US, dice=(3, 1)),
    ),
    "unlimited, doubled": (  # O, an unlimited match, bob doubled
        "board:You:bob:9999:0:0:0:0:0:0:0:0:5:-2:3:0:0:0:-4:5:0:0:0:-3:-2:-4:0:0:0:0:2:0:"
        "1:0:0:0:0:1:0:0:1:1:-1:0:25:0:0:0:0:0:0:0:0",
        Expected("take", (0, 0), 0, 1, CENTRED),
    ),
}

# O, 2-3 in 7, our 2-cube, bob to roll (he then resigns)
CLIP_THEIR_TURN = (
    "board:You:bob:7:2:3:0:0:0:0:0:0:5:-2:3:0:0:0:-4:5:0:0:0:-3:-2:-4:0:0:0:0:2:0:"
    "-1:0:0:0:0:2:1:0:0:1:-1:0:25:0:0:0:0:0:0:0:0"
)


def is_post_crawford(state: MatchState) -> bool:
    """The engine's reading: someone is 1-away and this is not the Crawford game."""
    return bool(state.match_length) and not state.crawford and state.match_length - 1 in state.score


def assert_state(state: MatchState, expected: Expected) -> None:
    """``state`` (us as player 0) stands for ``expected``."""
    seen = (
        state.score,
        state.match_length,
        state.cube,
        state.cube_owner,
        state.crawford,
        is_post_crawford(state),
        state.is_money,
    )
    wanted = (
        expected.score,
        expected.length,
        expected.cube,
        expected.owner,
        expected.crawford,
        expected.post_crawford,
        expected.length == 0,
    )
    assert seen == wanted, f"handed {seen}, expected {wanted}"


@dataclass
class RecordingAgent:
    """Stands in for ``engine.players.agent.Agent``: records what each decision was handed."""

    calls: list[tuple] = field(default_factory=list)
    ply: int = 0
    name: str = "recording"
    think: float = 0.0  # no deeper look, as a plain search's agent
    look: object = None

    def choose_move(self, board, d1: int, d2: int, state: MatchState):
        self.calls.append(("move", np.array(board), state, (d1, d2)))
        steps, after = legal_moves(Position(board), d1, d2)[0]
        return _Choice(steps, after.board)

    def double_decision(self, board, state: MatchState):
        self.calls.append(("double", np.array(board), state, None))
        return _Cube(double=False)

    def take_decision(self, board, state: MatchState):
        self.calls.append(("take", np.array(board), state, None))
        return _Cube(take=True)

    def resignation_offer(self, board, state: MatchState, we_are_on_roll: bool) -> int:
        self.calls.append(("offer", np.array(board), state, we_are_on_roll))
        return 0

    def accept_resignation(self, board, state: MatchState, offered_level: int, we_are_on_roll: bool) -> bool:
        self.calls.append(("resign", np.array(board), state, (offered_level, we_are_on_roll)))
        return False


@dataclass(frozen=True)
class _Choice:
    steps: tuple = ()
    board: np.ndarray | None = None
    ranked: tuple = ()


@dataclass(frozen=True)
class _Cube:
    double: bool = False
    take: bool = True
    action: str = "no double"
    equities: dict = field(default_factory=dict)
    probs: tuple = ()
    ply: int = 0  # as CubeChoice: the depth of the equities
