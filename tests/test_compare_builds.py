"""The build comparison's bookkeeping (scripts/checks/compare_builds.py): alternated
order, and ratios taken within a round, so that the machine's drift divides out."""

from __future__ import annotations

import pytest

from scripts.checks.compare_builds import figure, orders, summarise


def test_the_builds_change_places_every_round():
    assert orders(["a", "b"], 4) == [["a", "b"], ["b", "a"], ["a", "b"], ["b", "a"]]
    assert orders(["a", "b", "c"], 2) == [["a", "b", "c"], ["c", "b", "a"]]


def test_a_figure_is_read_by_its_dotted_path_and_only_when_it_is_a_number():
    result = {"ply2_decision_median_s": 0.05, "ply2": {"cache": {"lookups": 1367848}, "reference_gnubg": "skipped"}}
    assert figure(result, "ply2.cache.lookups") == 1367848.0
    assert figure(result, "ply2.reference_gnubg") is None
    assert figure(result, "ply2.ratio_vs_gnubg_2ply") is None


def test_a_ratio_is_taken_within_each_round_where_the_machine_drifted_between_them():
    # the machine is twice as slow in round 1; build b is 20% slower in both rounds
    runs = [
        {"round": 0, "build": "a", "result": {"ply2_decision_median_s": 0.050}},
        {"round": 0, "build": "b", "result": {"ply2_decision_median_s": 0.060}},
        {"round": 1, "build": "b", "result": {"ply2_decision_median_s": 0.120}},
        {"round": 1, "build": "a", "result": {"ply2_decision_median_s": 0.100}},
    ]
    out = summarise(runs, ["a", "b"], ("ply2_decision_median_s",))
    ratio = out["ratios_to_first"]["b"]["ply2_decision_median_s"]
    assert ratio["median"] == pytest.approx(1.2) and ratio["min"] == pytest.approx(1.2) and ratio["rounds"] == 2
    first = out["builds"]["a"]["ply2_decision_median_s"]
    assert (first["median"], first["min"], first["max"], first["runs"]) == (pytest.approx(0.075), 0.05, 0.1, 2)
