"""scripts/labels/candidate_positions.py: every result a self-play decision ranks."""

from __future__ import annotations

import numpy as np

from engine.rules.position import has_contact
from tests.script_loader import load_script


def test_candidate_positions_are_the_distinct_flipped_contact_results(tmp_path):
    module = load_script("labels.candidate_positions")
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
