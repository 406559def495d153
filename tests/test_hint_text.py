"""`fibsbot hint`'s text: what was asked (IDs, score, cube, dice, who at what level), a
header over the probabilities, and the level named as asked (``table``, not "2-ply")."""

from __future__ import annotations

import pytest

from engine.rules.ids import match_state_from_id
from fibsbot.cli import main
from fibsbot.hint import PROBABILITY_COLUMNS, HintError, describe_request, format_text, parse_batch_line, parse_request

OPENING = "4HPwATDgc/ABMA"


def two_moves(level: str) -> dict:
    return {
        "player": f"net:default@{level}",
        "level": level,
        "ply": 2,
        "filters": [12, 0.24, 6, 0.12],
        "dice": [3, 1],
        "moves": [
            {"move": "8/5 6/5", "ply": 2, "equity": 0.16, "probs": [0.55, 0.17, 0.01, 0.12, 0.01]},
            {"move": "13/10 24/23", "ply": 1, "equity": -0.01, "probs": [0.5, 0.14, 0.01, 0.14, 0.01]},
        ],
    }


def test_the_text_says_what_was_asked_and_heads_the_probabilities(capsys):
    assert main(["hint", "--position-id", OPENING, "--match-id", "cAkAAAAAAAAA", "--dice", "3", "1", "--ply", "0"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"Position ID {OPENING}   Match ID cIkFAAAAAAAA"
    assert match_state_from_id("cIkFAAAAAAAA").dice == (3, 1)  # the Match ID with the roll, as gnubg shows it
    assert lines[1] == "money game, cube 1 centred, dice 3-1"
    assert lines[2] == "asked: net:default@0 (0-ply)"
    header, first = lines[3], lines[4]
    assert header.split() == ["ply", "move", "equity", *PROBABILITY_COLUMNS]
    assert first.startswith("  1. 0-ply  8/5 6/5")
    # each probability stands right-aligned under its name: five columns of five, the rows as long
    assert len(header) == len(first) and header[-29:].split() == list(PROBABILITY_COLUMNS)


def test_a_match_score_and_a_cube_decision_are_echoed():
    request = parse_request(xgid="XGID=-b----E-C---eE---c-e----B-:1:1:1:00:3:2:0:7:10")
    lines = describe_request(request, {"player": "net:default@2", "ply": 2, "level": "2"})
    assert lines[1] == (
        "7-point match, score 3-2 (the player on roll first), cube 2 owned by the player on roll, "
        "before rolling: the cube decision"
    )
    assert lines[2] == "asked: net:default@2 (2-ply)"


def test_the_table_level_is_named_table_not_two_ply():
    text = format_text(two_moves("table"))
    assert "2-ply asked" not in text
    assert "the table level searches 2 plies: 1 of the 2 moves listed reached it" in text
    cube = {"player": "net:default@table", "level": "table", "ply": 2, "action": "no double"}
    cube |= {"equities": {"no_double": 0.1}, "probs": [0.5, 0.1, 0.0, 0.1, 0.0]}
    assert "table-level cubeful equities: no double: +0.100" in format_text(cube)
    assert "0-ply cubeless probabilities (Win  W(g) W(bg)  L(g) L(bg)): 0.500" in format_text(cube)


def test_the_table_level_is_echoed_as_table(capsys):
    assert main(["hint", "--position-id", OPENING, "--player", "net:default@table"]) == 0
    out = capsys.readouterr().out
    assert "asked: net:default@table (table level: cubeful 2-ply" in out and "2-ply asked" not in out
    assert "table-level cubeful equities" in out


def test_plain_plies_keep_their_note():
    assert "2-ply asked: 1 of the 2 moves listed reached it" in format_text(two_moves("2"))


def test_a_batch_line_with_one_die_says_so():
    with pytest.raises(HintError, match=r"one die \(3\): a roll is two numbers"):
        parse_batch_line(f"{OPENING} 3")
    with pytest.raises(HintError, match="fields that do not fit"):
        parse_batch_line(f"{OPENING} 3 1 2")
    assert parse_batch_line(f"{OPENING} cAkAAAAAAAAA 3 1").dice == (3, 1)
