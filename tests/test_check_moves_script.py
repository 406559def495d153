"""scripts/checks/check_moves_vs_gnubg.py: a short run passes, and a mismatch fails it."""

from __future__ import annotations

import pytest

from tests.script_loader import load_script as load_script_named

oracle = pytest.importorskip("engine.rules.gnubg_oracle", reason="gnubg-nn not installed: pip install -e '.[test]'")


def load_script():
    return load_script_named("checks.check_moves_vs_gnubg")


def test_a_short_check_passes_and_counts_every_kind(capsys):
    assert load_script().main(["--positions", "3000", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert "checked 3,000 positions" in out
    assert "mismatches: 0" in out
    for kind in ("contact", "race", "bar entry", "bear-off", "no move", "blocked entry"):
        line = next(line for line in out.splitlines() if line.strip().startswith(kind))
        assert int(line.split()[-2].replace(",", "")) > 0, line


def test_a_mismatch_makes_the_check_fail(capsys, monkeypatch):
    real = oracle.compare_moves

    def lose_one_result(board, d1, d2, buffers=None):
        comparison = real(board, d1, d2, buffers)
        if len(comparison.ours) > 1:
            comparison.ours = comparison.ours[1:]
        return comparison

    monkeypatch.setattr(oracle, "compare_moves", lose_one_result)
    assert load_script().main(["--positions", "200", "--seed", "5"]) == 1
    out = capsys.readouterr().out
    assert "missing" in out and "mismatches: 0" not in out
