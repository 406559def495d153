"""scripts/ensemble_duel.py (the mean of nets' 0-ply as a player) and
scripts/candidate_positions.py (every result a self-play decision ranks)."""

from __future__ import annotations

import numpy as np
import pytest

from engine.eval.evaluator import Evaluator
from engine.players.registry import NetPlayer
from engine.rules.moves import MoveBuffers, generate_moves
from engine.rules.position import has_contact
from fibsbot.bench.speed import real_game_positions
from nets.player import resolve_net_path
from tests.script_loader import load_script


@pytest.fixture(scope="module")
def decisions():
    """Positions of real games with a roll each, and their candidates."""
    boards, _ = real_game_positions(games=3, seed=12)
    rng = np.random.default_rng(12)
    buffers = MoveBuffers()
    out = []
    for board in boards[:60]:
        d1, d2 = (int(v) for v in rng.integers(1, 7, 2))
        n = generate_moves(board, d1, d2, *buffers.args())
        out.append((board, d1, d2, buffers.boards[:n].copy()))
    return out


def test_an_ensemble_of_one_net_chooses_as_the_net_does(decisions):
    module = load_script("ensemble_duel")
    evaluator = Evaluator.load(resolve_net_path("default"))
    alone, mean_of_one = NetPlayer(evaluator), module.EnsemblePlayer([evaluator], "plain:default")
    for board, d1, d2, candidates in decisions:
        assert mean_of_one.choose(board, d1, d2, candidates) == alone.choose(board, d1, d2, candidates)


def test_an_ensemble_chooses_the_highest_mean_equity(decisions):
    module = load_script("ensemble_duel")
    nets = [Evaluator.load(resolve_net_path(n)) for n in ("default", "td900k")]
    player = module.EnsemblePlayer(nets, "mean")
    for board, d1, d2, candidates in decisions:
        if len(candidates) < 2 or any(c[0].sum() == 0 for c in candidates):
            continue
        mean = np.mean([e.move_equities(candidates)[0] for e in nets], axis=0)
        assert player.choose(board, d1, d2, candidates) == int(np.argmax(mean))


def test_candidate_positions_are_the_distinct_flipped_contact_results(tmp_path):
    module = load_script("candidate_positions")
    boards, decisions = module.candidate_boards("default", games=2, seed=3)
    assert decisions > 20 and len(boards) > decisions
    assert len({b.tobytes() for b in boards}) == len(boards)
    assert all(has_contact(b) for b in boards)
    assert boards.dtype == np.int8 and boards.shape[1:] == (2, 25)
    assert (boards.sum(axis=2) <= 15).all()
    again, _ = module.candidate_boards("default", games=2, seed=3)
    np.testing.assert_array_equal(again, boards)  # the same seed plays the same games
    module.main(["default", "--games", "1", "--seed", "3", "--out", str(tmp_path / "c.npz")])
    with np.load(tmp_path / "c.npz") as data:
        assert len(data["boards"]) > 0 and "candidates" in str(data["sources"][0])
