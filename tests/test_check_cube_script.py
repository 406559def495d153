"""scripts/cube_check/check_cube_vs_gnubg.py: gnubg's hint parsed, and a short live comparison."""

from __future__ import annotations

import json

import numpy as np
import pytest

from engine.cube.decision import DOUBLE_DROP, DOUBLE_TAKE, NO_DOUBLE, TOO_GOOD
from tests.gnubg_cli import require_gnubg
from tests.script_loader import load_script as load_script_named

HINT = """
Cube analysis
0-ply cubeless equity +0.067119
  0.521514 0.153921 0.007563 - 0.478486 0.129847 0.007546
Cubeful equities:
1. No double           +0.084376
2. Double, pass        +1.000000  (+0.915624)
3. Double, take        -0.191132  (-0.275509)
Proper cube action: No double, take (23.1%)
"""

REDOUBLE = """
Cube analysis
0-ply cubeless equity +0.268000 (Money: +0.067119)
  0.700000 0.200000 0.010000 - 0.300000 0.050000 0.000000
Cubeful equities:
1. Redouble, pass      +1.000000
2. Redouble, take      +1.012000  (+0.012000)
3. No redouble         +0.768000  (-0.232000)
Proper cube action: Redouble, pass
"""


def load_script():
    return load_script_named("cube_check.check_cube_vs_gnubg")


def test_hints_are_parsed_into_actions_probabilities_and_equities():
    script = load_script()
    cube = script.parse_hint(HINT)
    assert (cube.action, cube.take, cube.optional) == (NO_DOUBLE, True, False)
    assert cube.probs == pytest.approx(np.array([0.521514, 0.153921, 0.007563, 0.129847, 0.007546]))
    assert cube.equities == {"no_double": 0.084376, "double_drop": 1.0, "double_take": -0.191132}
    redouble = script.parse_hint(REDOUBLE)
    assert (redouble.action, redouble.take) == (DOUBLE_DROP, False)
    assert redouble.equities == {"double_drop": 1.0, "double_take": 1.012, "no_double": 0.768}
    assert script.parse_hint("You cannot double.\n").action == "unavailable"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Double, take", (DOUBLE_TAKE, True, False)),
        ("Redouble, pass", (DOUBLE_DROP, False, False)),
        ("Too good to double, pass", (TOO_GOOD, False, False)),
        ("Too good to redouble, take", (TOO_GOOD, True, False)),
        ("No redouble, beaver", (NO_DOUBLE, True, False)),
        ("Optional double, take", (DOUBLE_TAKE, True, True)),
    ],
)
def test_gnubg_action_names_map_to_ours(text, expected):
    assert load_script().gnubg_action(text) == expected


def test_unknown_actions_are_reported():
    with pytest.raises(ValueError, match="unknown gnubg cube action"):
        load_script().gnubg_action("Resign a gammon")


def test_a_short_live_comparison_covers_every_score(capsys):
    require_gnubg()
    pytest.importorskip("gnubg_nn", reason="gnubg-nn not installed: pip install -e '.[test]'")
    script = load_script()
    assert script.main(["--positions", "9", "--seed", "2", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["compared"] + result["unavailable"] == 9 and result["compared"] >= 8
    assert {row["scenario"] for row in result["rows"]} >= {s.label for s in script.SCENARIOS[1:]}
    for row in result["rows"]:
        assert set(row["ours"]) == {"net", "gnubg-nn", "gnubg-shown"}
        assert row["gnubg"]["action"] in (NO_DOUBLE, DOUBLE_TAKE, DOUBLE_DROP, TOO_GOOD)
    # from gnubg's own probabilities our cube theory is gnubg's 0-ply theory
    assert result["agreement"]["gnubg-shown"] >= 85.0
    assert 0.0 <= result["agreement"]["net"] <= 100.0
