"""n-ply search: 0-ply sources, the lookahead recursion, filters and the cache."""

from __future__ import annotations

import numpy as np
import pytest

from engine.eval.bearoff import bearoff_probabilities
from engine.eval.evaluator import Evaluator
from engine.eval.net import Net
from engine.players.agent import Agent
from engine.rollout.selfplay_sample import sample_positions
from engine.rules.dice import DISTINCT_ROLLS as ROLLS
from engine.rules.dice import ROLL_WEIGHTS
from engine.rules.ids import position_key as id_position_key
from engine.rules.moves import MoveBuffers, generate_moves
from engine.rules.position import Position
from engine.search.context import clear_cache, position_key
from tests.board_builder import backgammon_in_one_roll


@pytest.fixture(scope="module")
def agent() -> Agent:
    contact = Net.create("gnubg5", "contact", 16, seed=5, scale=0.3)
    race = Net.create("gnubg5", "race", 8, seed=6, scale=0.3)
    return Agent(Evaluator(contact, race, name="tiny"), ply=2)


def contact_positions(count: int, seed: int = 11) -> list[np.ndarray]:
    return [s.board for s in sample_positions(count * 3, seed) if Position(s.board).has_contact()][:count]


def mover_value0(agent: Agent, cand: np.ndarray) -> np.ndarray:
    """Reference: probabilities for the mover of a post-move board, at 0-ply."""
    if cand[0].sum() == 0:
        pts = 1 if cand[1].sum() < 15 else (3 if cand[1, 18:].any() else 2)
        return np.array([1.0, pts >= 2, pts >= 3, 0, 0], dtype=float)
    opp = agent.probabilities(cand[::-1].copy(), ply=0)
    return np.array([1 - opp[0], opp[3], opp[4], opp[1], opp[2]])


def equity(p) -> float:
    return 2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4]


def reference_ply(agent: Agent, board: np.ndarray, ply: int) -> np.ndarray:
    """Plain-Python n-ply probabilities of ``board`` for its side on roll."""
    if ply == 0:
        return agent.probabilities(board, ply=0)
    buffers = MoveBuffers()
    acc = np.zeros(5)
    for (d1, d2), weight in zip(ROLLS, ROLL_WEIGHTS):
        n = generate_moves(board, int(d1), int(d2), *buffers.args())
        cands = buffers.boards[:n].copy()
        values = [mover_value0(agent, c) for c in cands]
        won = [i for i in range(n) if cands[i, 0].sum() == 0]
        best = won[0] if won else int(np.argmax([equity(v) for v in values]))
        if won or ply == 1:
            value = values[best]
        else:
            opp = reference_ply(agent, cands[best][::-1].copy(), ply - 1)
            value = np.array([1 - opp[0], opp[3], opp[4], opp[1], opp[2]])
        acc += weight * value
    return acc


def test_position_key_is_gnubgs_with_the_rows_in_our_order(agent):
    # gnubg writes the player not on roll first; the cache only needs an exact key
    boards = contact_positions(20) + [s.board for s in sample_positions(300, 9)]
    crowded = np.zeros((2, 25), np.int8)
    crowded[0, 20], crowded[1, 10] = 15, 15  # row 1's run starts at bit 50 and crosses into the high word
    for board in boards + [crowded, crowded[::-1].copy()]:
        lo, hi = position_key(board)
        assert (int(lo) | int(hi) << 64).to_bytes(10, "little") == id_position_key(board[::-1].copy())


def test_zero_ply_uses_the_net_with_contact_and_the_database_at_home(agent):
    for board in contact_positions(10):
        assert np.allclose(agent.probabilities(board, ply=0), agent.evaluator.probabilities(board), atol=1e-6)
    home = np.zeros((2, 25), np.int8)
    home[0, :6] = [2, 2, 2, 1, 0, 0]
    home[1, :6] = [0, 3, 2, 2, 1, 0]
    assert np.allclose(agent.probabilities(home, ply=0), bearoff_probabilities(home), atol=1e-6)


@pytest.mark.parametrize("ply", [1, 2])
def test_lookahead_equals_a_plain_python_recursion(agent, ply):
    boards = contact_positions(3 if ply == 1 else 1, seed=ply)
    for board in boards:
        agent.clear_cache()
        expected = reference_ply(agent, board, ply)
        assert np.allclose(agent.probabilities(board, ply=ply), expected, atol=2e-5)


def test_cache_returns_the_same_values_as_a_fresh_evaluation(agent):
    board = contact_positions(1, seed=3)[0]
    agent.clear_cache()
    cold = agent.probabilities(board, ply=1)
    warm = agent.probabilities(board, ply=1)
    assert np.array_equal(cold, warm)
    clear_cache(agent.ctx)
    assert np.array_equal(agent.probabilities(board, ply=1), cold)


def test_ranked_moves_are_complete_and_deepest_first(agent):
    board = Position.initial().board
    ranked = agent.rank_moves(board, 2, 1, ply=2)
    n = generate_moves(board, 2, 1, *MoveBuffers().args())
    assert len(ranked) == n == len({r.board.tobytes() for r in ranked})
    plies = [r.ply for r in ranked]
    assert plies == sorted(plies, reverse=True) and plies[0] == 2
    top = [r.equity for r in ranked if r.ply == 2]
    assert top == sorted(top, reverse=True)
    # the filter keeps at most 6 candidates for 2-ply and 12 for 1-ply
    assert plies.count(2) <= 6 and plies.count(2) + plies.count(1) <= 12


def test_the_two_ply_value_of_the_chosen_move_matches_the_recursion(agent):
    board = Position.initial().board
    best = agent.rank_moves(board, 4, 3, ply=2)[0]
    opp = reference_ply(agent, best.board[::-1].copy(), 2)
    mover = [1 - opp[0], opp[3], opp[4], opp[1], opp[2]]
    assert best.ply == 2 and np.allclose(best.probs, mover, atol=2e-5)


def test_a_winning_move_is_always_chosen(agent):
    choice = agent.choose_move(backgammon_in_one_roll(), 6, 1)
    assert choice.board[0].sum() == 0 and choice.equity == 3.0  # a backgammon, exact


def test_choose_move_reports_the_zero_ply_choice(agent):
    choice = agent.choose_move(Position.initial().board, 6, 2)
    assert choice.ply0_steps == agent.rank_moves(Position.initial().board, 6, 2, ply=0)[0].steps
    assert choice.disagrees == (choice.steps != choice.ply0_steps)


def test_a_pruning_net_equal_to_the_full_net_changes_nothing():
    # the replies the pruning net keeps always include the full net's best when they
    # are the same net, so the lookahead values must be identical
    contact = Net.create("gnubg5", "contact", 16, seed=5, scale=0.3)
    race = Net.create("gnubg5", "race", 8, seed=6, scale=0.3)
    full = Agent(Evaluator(contact, race, name="tiny"), ply=2, prune=False)
    pruned = Agent(Evaluator(contact, race, name="tiny", prune=contact), ply=2)
    assert pruned.ctx.prune_keep > 0 and full.ctx.prune_keep == 0
    for board in contact_positions(2, seed=8):
        assert np.allclose(full.probabilities(board, ply=1), pruned.probabilities(board, ply=1), atol=1e-6)
    first = full.rank_moves(Position.initial().board, 4, 2, ply=2)
    second = pruned.rank_moves(Position.initial().board, 4, 2, ply=2)
    assert [r.steps for r in first] == [r.steps for r in second]


def test_a_small_pruning_net_only_narrows_the_replies(tmp_path):
    from nets.train.pruning import train_pruning_net

    contact = Net.create("gnubg5", "contact", 16, seed=5, scale=0.3)
    race = Net.create("gnubg5", "race", 8, seed=6, scale=0.3)
    small, report = train_pruning_net(Agent(Evaluator(contact, race), ply=0, prune=False), games=4, hidden=4, epochs=2)
    assert small.encoding == "tesauro" and report.positions > 50
    contact.save(tmp_path / "pair.npz")
    race.save(tmp_path / "pair.race.npz")
    small.save(tmp_path / "pair.prune.npz")
    loaded = Evaluator.load(tmp_path / "pair.npz")
    assert loaded.prune is not None and loaded.prune.hidden == 4
    agent = Agent(loaded, ply=1)
    best = agent.rank_moves(Position.initial().board, 6, 5)[0]
    assert best.ply == 1 and 0.0 <= best.probs[0] <= 1.0


def test_the_cache_counts_its_lookups_and_hits(agent):
    """A second look at the same position finds every lookahead value in the cache."""
    board = contact_positions(1, seed=23)[0]
    agent.clear_cache()
    assert agent.cache_stats() == {"lookups": 0, "hits": 0, "hit_rate": 0.0}
    first = agent.probabilities(board, 1)
    once = agent.cache_stats()
    assert once["lookups"] > 0 and 0 <= once["hits"] < once["lookups"]
    again = agent.probabilities(board, 1)
    twice = agent.cache_stats()
    assert np.array_equal(first, again)
    assert twice["lookups"] == 2 * once["lookups"] and twice["hits"] == once["hits"] + once["lookups"]
    agent.clear_cache()
    assert agent.cache_stats()["lookups"] == 0
