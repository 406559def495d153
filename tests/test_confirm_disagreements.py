"""scripts/referee/confirm_disagreements.py: which decisions the referee's second look rolls out again."""

from __future__ import annotations

from scripts.referee import confirm_disagreements as script


def test_only_checker_decisions_where_both_players_chose_differently_are_looked_at_again():
    rows = [
        {"kind": "checker", "play": "match", "picks": {"a": 0, "b": 1}},  # a disagreement
        {"kind": "checker", "play": "match", "picks": {"a": 2, "b": 2}},  # the same move
        {"kind": "checker", "play": "money", "picks": {"a": 0, "b": 1}},  # another group
        {"kind": "checker", "play": "match", "picks": {"a": 0}},  # b did not answer
        {"kind": "cube", "play": "match", "picks": {"a": 0, "b": 1}},
    ]
    assert script.disagreements(rows, "a", "b", "match") == [rows[0]]
    assert script.disagreements(rows, "a", "b", "money") == [rows[2]]
