"""Our legal results equal GNU Backgammon's (gnubg-nn) on positions from self-play.

Hypothesis draws a player, a game seed, a number of turns and a roll; the position
is where that seeded self-play game stands after that many turns.  The deterministic
test below draws the same distribution with a fixed seed and checks that it really
covers bar entries, bear-offs and blocked rolls, so the property is not vacuous.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.rollout.selfplay_sample import (
    BAR_ENTRY,
    BEAR_OFF,
    CONTACT,
    NO_MOVE,
    RACE,
    SELFPLAY_PLAYERS,
    position_after,
    position_kinds,
)
from engine.rules.moves import MoveBuffers
from tests.strategies import boards

oracle = pytest.importorskip("engine.rules.gnubg_oracle", reason="gnubg-nn not installed: pip install -e '.[test]'")

# turns of both sides: pubeval games last about 60, random ones about 100, so
# draws past the end land on the last position of the game, a bear-off
MAX_TURNS = 150
_BUFFERS = MoveBuffers()


def _check(player: str, seed: int, turns: int, d1: int, d2: int) -> tuple[str, ...]:
    board = position_after(player, seed, turns)
    comparison = oracle.compare_moves(board, d1, d2, _BUFFERS)
    assert comparison.agree, (
        f"{player} seed {seed} turn {turns} dice {d1}{d2} board {board.tolist()}: {comparison.describe()}"
    )
    return position_kinds(board, comparison.no_move)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    player=st.sampled_from(SELFPLAY_PLAYERS),
    seed=st.integers(0, 2**63 - 1),
    turns=st.integers(0, MAX_TURNS),
    d1=st.integers(1, 6),
    d2=st.integers(1, 6),
)
def test_legal_results_equal_gnubg(player, seed, turns, d1, d2):
    _check(player, seed, turns, d1, d2)


def test_the_sampled_distribution_covers_every_kind_of_position():
    rng = np.random.default_rng(20240601)
    kinds = Counter()
    for i in range(300):
        player = SELFPLAY_PLAYERS[i % len(SELFPLAY_PLAYERS)]
        seed = int(rng.integers(0, 2**63 - 1))
        turns = int(rng.integers(0, MAX_TURNS + 1))
        d1, d2 = (int(d) for d in rng.integers(1, 7, size=2))
        kinds.update(_check(player, seed, turns, d1, d2))
    # counts out of 300; each kind is common enough that 300 draws find it many times
    for kind, at_least in ((CONTACT, 100), (RACE, 30), (BAR_ENTRY, 30), (BEAR_OFF, 30), (NO_MOVE, 10)):
        assert kinds[kind] >= at_least, kinds


def test_blocked_entry_and_doubles_bear_off_agree_with_gnubg():
    """Two corners the sample may hit rarely, pinned down explicitly."""
    from tests.board_builder import BAR_POINT, make_board, opponent_holds

    closed = make_board({BAR_POINT: 2, 13: 5}, opponent_holds(19, 20, 21, 22, 23, 24))
    partial = make_board({BAR_POINT: 3, 13: 5}, opponent_holds(19, 20, 22, 23, 24))
    bear_off = make_board({6: 1, 5: 2, 2: 3, 1: 1}, {BAR_POINT: 1, 1: 2})
    for board in (closed, partial, bear_off):
        for d1 in range(1, 7):
            for d2 in range(1, d1 + 1):
                comparison = oracle.compare_moves(board, d1, d2, _BUFFERS)
                assert comparison.agree, (board.tolist(), d1, d2, comparison.describe())


@settings(max_examples=200, deadline=None)
@given(board=boards(min_checkers=1), d1=st.integers(1, 6), d2=st.integers(1, 6))
def test_legal_results_equal_gnubg_on_arbitrary_boards(board, d1, d2):
    """Boards no game need reach (15 on the bar, stacks of 15): the rules still agree."""
    comparison = oracle.compare_moves(board, d1, d2, _BUFFERS)
    assert comparison.agree, (board.tolist(), d1, d2, comparison.describe())
