"""`fibsbot hint` and the search benchmarks, end to end on the shipped net."""

from __future__ import annotations

import json

import pytest

from engine.rules.ids import MatchState, match_id, position_id
from engine.rules.position import Position
from fibsbot.cli import main
from fibsbot.hint import HintError, as_player0, format_text, parse_batch_line, parse_request

OPENING = "4HPwATDgc/ABMA"


def test_hint_ranks_every_move_of_the_roll(capsys):
    assert main(["hint", "--position-id", OPENING, "--dice", "3", "1", "--ply", "1", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    moves = answer["moves"]
    assert len(moves) == 16 and len({m["position_id"] for m in moves}) == 16
    assert moves[0]["move"] == "8/5 6/5" and moves[0]["ply"] == 1
    for m in moves:
        assert len(m["probs"]) == 5 and 0 <= m["probs"][0] <= 1


def test_hint_text_and_cube_decision(capsys):
    assert main(["hint", "--position-id", OPENING, "--ply", "0"]) == 0
    text = capsys.readouterr().out
    assert "Proper cube action: no double" in text


def test_batch_answers_in_order_with_errors_in_place(tmp_path, capsys):
    mid = match_id(MatchState(match_length=5, score=(2, 3), dice=(6, 1)))
    batch = tmp_path / "req.txt"
    batch.write_text(f"{OPENING} 3 1\n{OPENING} {mid}\nnot-an-id 3 1\n{OPENING}\n")
    assert main(["hint", "--batch", str(batch), "--ply", "0"]) == 2  # every line answered, the bad one on stderr too
    captured = capsys.readouterr()
    assert "line 3: Position ID 'not-an-id'" in captured.err
    answers = [json.loads(line) for line in captured.out.splitlines()]
    assert len(answers) == 4
    assert answers[0]["moves"][0]["move"] == "8/5 6/5"
    assert answers[1]["dice"] == [6, 1]  # the Match ID's dice are used
    assert "error" in answers[2] and "line 3" in answers[2]["error"]
    assert answers[3]["action"] == "no double"


def test_a_missing_batch_file_is_one_line_naming_the_option(tmp_path):
    from tests.test_cli import assert_one_line_error, run_cli

    missing = tmp_path / "requests.txt"
    code, out, err = run_cli(["hint", "--batch", str(missing)])
    assert_one_line_error(code, err)
    assert err.strip() == f"fibsbot hint: error: --batch {missing}: no such file or directory"


def test_moves_the_filter_kept_from_the_depth_asked_for_are_explained(capsys):
    assert main(["hint", "--position-id", OPENING, "--dice", "3", "1", "--ply", "1", "--json"]) == 0
    plies = [m["ply"] for m in json.loads(capsys.readouterr().out)["moves"]]
    assert main(["hint", "--position-id", OPENING, "--dice", "3", "1", "--ply", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()[4:]  # after what was asked (3 lines) and the header
    assert 0 < plies.count(1) < len(plies)  # the filter stopped some moves at 0-ply
    assert (
        lines[len(plies)] == f"1-ply asked: {plies.count(1)} of the {len(plies)} moves listed reached it; "
        "each shows the ply it stopped at."
    )
    assert lines[len(plies) + 1].startswith(
        "The move filter: the best 12 within 0.240 of the best 0-ply equity go on to 1-ply;"
    )


def test_the_filter_note_names_both_passes_of_a_two_ply_search():
    answer = {
        "ply": 2,
        "filters": [12, 0.24, 6, 0.12],
        "dice": [3, 1],
        "moves": [
            {"move": m, "ply": p, "equity": 0.0, "probs": [0.5, 0.1, 0.0, 0.1, 0.0]}
            for m, p in (("8/5 6/5", 1), ("13/10 24/23", 1), ("13/9", 0))
        ],
    }
    note = format_text(answer).splitlines()[4:]  # after the header and the 3 moves
    assert note[0] == "2-ply asked: 0 of the 3 moves listed reached it; each shows the ply it stopped at."
    assert "and of those the best 6 within 0.120 of the best 1-ply equity go on to 2-ply" in note[1]
    assert "fewer than 2 moves is not run" in note[1]
    answer["moves"] = [dict(m, ply=2) for m in answer["moves"]]
    assert len(format_text(answer).splitlines()) == 4  # the header and the moves: nothing to explain


def test_bad_requests_are_clear_errors():
    with pytest.raises(HintError):
        parse_request()
    with pytest.raises(HintError):
        parse_request("4HPwATDgc/ABMA", dice=(7, 1))
    with pytest.raises(HintError):
        parse_batch_line("a b c d e")
    over = Position.initial().board.copy()
    over[0, :] = 0
    with pytest.raises(HintError, match="over"):
        parse_request(position_id(over))


def test_renaming_a_state_to_player0():
    state = MatchState(match_length=7, score=(1, 4), on_roll=1, cube=2, cube_owner=0)
    renamed = as_player0(state, 1)
    assert renamed.on_roll == 0 and renamed.score == (4, 1) and renamed.cube_owner == 1


def test_search_benchmarks_report_their_keys():
    from fibsbot.bench.search import bench_ply0, bench_ply2

    zero = bench_ply0(repeats=2)
    assert zero["ply0_decisions_per_s"] > 0 and zero["ply0"]["decisions"] > 1000
    reference = zero["ply0"]["reference_gnubg_nn"]
    if isinstance(reference, dict):  # gnubg-nn installed: timed in turn, the ratio of each repeat's pair
        low, high = zero["ply0"]["ratio_range"]
        assert low <= zero["ply0"]["ratio_vs_gnubg_nn"] <= high
    two = bench_ply2(decisions=4, reference_decisions=2, repeats=2)
    assert 0 < two["ply2_decision_median_s"] <= two["ply2_decision_p99_s"]
    assert two["ply2"]["decisions"] == 4 and "reference_gnubg" in two["ply2"]
    if isinstance(two["ply2"]["reference_gnubg"], dict):  # gnubg installed: the same, against its 2-ply
        assert two["ply2"]["reference_gnubg"]["repeats"] == 2
        low, high = two["ply2"]["ratio_range"]
        assert 0 < low <= two["ply2"]["ratio_vs_gnubg_2ply"] <= high


def test_search_benchmarks_time_a_second_net_in_turn(monkeypatch):
    """`fibsbot bench --versus`: the second net decides the same decisions, timed in turn
    with the first, and its time ratio is each repeat's own."""
    from fibsbot.bench import speed
    from fibsbot.bench.search import bench_ply0, bench_ply2

    monkeypatch.setattr(speed, "VERSUS_NET", "e400w")
    zero = bench_ply0(repeats=2)
    versus = zero["ply0"]["versus"]
    assert versus["net"] == "net e400w" and versus["repeats"] == 2 and versus["decisions_per_s"] > 0
    low, high = versus["time_ratio_range"]
    assert 0 < low <= versus["time_ratio_to_first"] <= high
    two = bench_ply2(decisions=4, reference_decisions=2, repeats=2)
    if isinstance(two["ply2"]["reference_gnubg"], dict):  # the 2-ply pair is timed beside gnubg's
        assert two["ply2"]["versus"]["repeats"] == 2 and two["ply2"]["versus"]["ratio_vs_gnubg_2ply"] > 0
    else:
        assert "versus" not in two["ply2"]
