"""Our cubeful rollouts against GNU Backgammon 1.07's own, the referee, on a few fixed
positions of scripts/checks/check_cubeful_rollout.py (the whole check, 36 positions, is in
docs/strength.md): money with the cube centred and the other side's, a match score
with the cube centred and owned, a Crawford and a post-Crawford game.  Both sides'
dice are seeded, so the comparison is the same on every run."""

from __future__ import annotations

from scripts.checks import check_cubeful_rollout as script
from tests.gnubg_cli import require_gnubg


def test_cubeful_rollouts_agree_with_gnubgs_within_two_standard_errors():
    require_gnubg()
    every = script.cases(per_state=1, seed=35)
    wanted = {
        "money, centred",
        "money, 2-cube other's",
        "7pt 4-2, centred",
        "7pt 3-3, 2-cube on roll's",
        "7pt 3-6, Crawford, trailer on roll",
        "7pt 4-6, post-Crawford, trailer on roll",
    }
    chosen = [case for case in every if case["situation"] in wanted]
    assert len(chosen) == len(wanted)
    report = script.compare(chosen, games=648, seed=35)
    beyond = [row for row in report["rows"] if not row["within_2se"]]
    assert not beyond, beyond
