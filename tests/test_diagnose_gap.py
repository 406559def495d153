"""scripts/diagnosis/diagnose_gap.py: the class tags, the resumable chunks, the table's arithmetic."""

from __future__ import annotations

import gzip
import json
import math
from types import SimpleNamespace

import numpy as np
import pytest

from scripts.diagnosis import diagnose_gap, tags
from scripts.diagnosis import judge as judging
from scripts.diagnosis.looks import looks_rows
from scripts.diagnosis.summary import table
from tests.board_builder import make_board

OPENING = {6: 5, 8: 3, 13: 5, 24: 2}


# ---------------------------------------------------------------- tags


def test_the_opening_is_early_contact_with_no_structure():
    board = make_board(OPENING, OPENING)
    assert tags.position_tags(board) == {"class": "contact", "tags": [], "phase": "early (260+ pips)"}


def test_two_points_in_the_opponents_home_board_make_a_back_game_for_the_side_on_roll():
    # the side on roll holds its 20 and 22 points (the opponent's 5 and 3) and is on roll
    board = make_board({20: 2, 22: 2, 6: 4, 8: 4, 13: 3}, {6: 4, 8: 4, 13: 3, 4: 2, 2: 2})
    found = tags.structures(board)
    assert tags.BACK_GAME in found and tags.AGAINST_BACK_GAME not in found
    # seen from the other side it is a back game against the side on roll
    assert tags.AGAINST_BACK_GAME in tags.structures(board[::-1].copy())
    # one anchor and a blot: no back game
    one = make_board({20: 2, 22: 1, 6: 5, 8: 4, 13: 3}, {6: 4, 8: 4, 13: 3, 4: 2, 2: 2})
    assert tags.BACK_GAME not in tags.structures(one)


def test_four_consecutive_made_points_of_either_side_are_a_prime():
    four = make_board({4: 2, 5: 2, 6: 2, 7: 2, 13: 5, 24: 2}, OPENING)
    three_and_gap = make_board({4: 2, 5: 2, 6: 2, 8: 2, 13: 5, 24: 2}, OPENING)
    assert tags.PRIME in tags.structures(four)
    assert tags.PRIME in tags.structures(four[::-1].copy())  # the opponent's prime counts too
    assert tags.PRIME not in tags.structures(three_and_gap)
    assert tags.longest_run(four[0]) == 4 and tags.longest_run(three_and_gap[0]) == 3


def test_bear_in_against_contact_needs_every_checker_home_or_in_the_outfield_and_contact():
    # the opponent still has two checkers on its 24 point (our 1 point): contact
    bear_in = make_board({12: 3, 9: 4, 6: 4, 5: 4}, {24: 2, 6: 5, 8: 3, 13: 5})
    assert tags.BEAR_IN in tags.structures(bear_in)
    assert tags.position_class(bear_in) == "contact"
    straggler = make_board({13: 1, 12: 2, 9: 4, 6: 4, 5: 4}, {24: 2, 6: 5, 8: 3, 13: 5})
    assert tags.BEAR_IN not in tags.structures(straggler)
    race = make_board({12: 3, 9: 4, 6: 4, 5: 4}, {6: 5, 8: 5, 10: 5})
    assert tags.BEAR_IN not in tags.structures(race) and tags.position_class(race) == "race"


def test_phases_and_closeness_buckets():
    late = make_board({1: 5, 2: 5, 3: 5}, {1: 5, 2: 5, 3: 5})  # 60 pips together
    assert tags.phase(late) == "late (<180 pips)" and tags.position_class(late) == "race"
    assert tags.phase(make_board(OPENING, OPENING)) == "early (260+ pips)"  # 334 pips
    assert [tags.closeness(g) for g in (0.0, -0.005, 0.01, 0.039, 0.04, 0.099, 0.1, 0.5)] == [
        "close <0.01",
        "close <0.01",
        "0.01-0.04",
        "0.01-0.04",
        "0.04-0.1",
        "0.04-0.1",
        "clear >=0.1",
        "clear >=0.1",
    ]


# ---------------------------------------------------------------- the table's arithmetic


def _row(key, loss, stderr, count=1, cls="contact", gap=0.02):
    return {
        "key": key,
        "count": count,
        "class": cls,
        "tags": [],
        "phase": "middle (180-259 pips)",
        "ours": {"equity0": 0.1 + gap},
        "theirs": {"equity0": 0.1},
        "loss": loss,
        "loss_stderr": stderr,
    }


def test_the_table_weighs_each_decision_by_its_count_and_combines_both_errors():
    # 10 decisions (8 contact, 2 race); 3 distinct differing contact ones, one met twice
    counts = {"all": 10, "contact": 8, "race": 2, "middle (180-259 pips)": 10}
    rows = [_row("a", 0.03, 0.01, count=2), _row("b", -0.01, 0.02), _row("c", 0.05, 0.01, gap=0.2)]
    result = table(counts, rows, rows, games=4)
    by = {r["label"]: r for r in result["rows"]}
    whole = by["all"]
    total = 2 * 0.03 - 0.01 + 0.05  # 0.10 over 10 decisions
    assert (whole["decisions"], whole["differing"], whole["judged"]) == (10, 4, 4)
    assert whole["loss_x1000"] == pytest.approx(1000 * total / 10)
    assert whole["per_differing_x1000"] == pytest.approx(1000 * total / 4)
    # the spread over the 10 decisions (six of them zero), with n - 1
    values = [0.03, 0.03, -0.01, 0.05] + [0.0] * 6
    spread = np.var(values, ddof=1) / 10
    rollout = (2 * 0.01) ** 2 + 0.02**2 + 0.01**2
    assert whole["rollout_stderr_x1000"] == pytest.approx(1000 * math.sqrt(rollout) / 10)
    assert whole["stderr_x1000"] == pytest.approx(1000 * math.sqrt(spread + rollout / 100))
    assert by["contact"]["loss_x1000"] == pytest.approx(1000 * total / 8)
    assert by["contact"]["share"] == pytest.approx(1.0) and by["race"]["loss_x1000"] == 0.0
    # closeness rows count over all decisions: "c" alone is clear
    assert by["clear >=0.1"]["loss_x1000"] == pytest.approx(1000 * 0.05 / 10)
    assert by["clear >=0.1"]["share"] == pytest.approx(0.05 / total)
    assert by["0.01-0.04"]["share"] == pytest.approx(0.05 / total)
    assert result["loss_per_game"] == pytest.approx(total / 4)
    assert result["loss_per_game_one_side"] == pytest.approx(total / 8)


def test_a_partly_judged_class_is_scaled_up_from_its_judged_decisions():
    counts = {"all": 20, "contact": 20}
    differing = [_row("a", 0, 0), _row("b", 0, 0), _row("c", 0, 0), _row("d", 0, 0)]
    judged = [_row("a", 0.04, 0.01), _row("b", 0.02, 0.01)]  # half of the differing ones
    whole = table(counts, differing, judged)["rows"][0]
    assert whole["loss_x1000"] == pytest.approx(1000 * (4 / 20) * 0.03)
    # the rollouts' part: (D / (N J))^2 * sum(s^2)
    assert whole["rollout_stderr_x1000"] == pytest.approx(1000 * (4 / 40) * math.sqrt(2e-4))


# ---------------------------------------------------------------- chunks and resume


class Fault(RuntimeError):
    pass


def _fake_rollouts(monkeypatch, fail_after: int | None = None) -> list:
    """Rollouts whose per-game equities follow from the rolled-out position and the seed."""
    calls = []

    def rollout_position(board, games, *, agent, seed, varredn, prune):
        if fail_after is not None and len(calls) >= fail_after:
            raise Fault("killed")
        calls.append(board.tobytes())
        rng = np.random.default_rng([seed, int(np.dot(board.ravel(), np.arange(50)))])
        return SimpleNamespace(equities=rng.normal(0.1, 1.0, games))

    monkeypatch.setattr(judging, "rollout_position", rollout_position)
    monkeypatch.setattr(judging, "rollout_agent", lambda spec: None)
    return calls


def _collected(n: int) -> list[dict]:
    from engine.rules.position import position_id

    rows = []
    for i in range(n):
        ours = make_board({6: 5, 8: 3, 13: 5, 24: 2}, {6: 5, 8: 3, 13: 5, 24 - i: 2})
        theirs = make_board({6: 5, 8: 3, 13: 5, 24: 2}, {6: 4, 8: 4, 13: 5, 24 - i: 2})
        row = _row(f"k{i}", 0, 0)
        del row["loss"], row["loss_stderr"]
        row["ours"] = {"after": position_id(ours), "equity0": 0.1}
        row["theirs"] = {"after": position_id(theirs), "equity0": 0.09}
        rows.append(row)
    return rows


SETTINGS = {"net": "net:default", "seed": 4101, "games": 50, "varredn": True, "prune": 8, "chunk": 2}


def test_a_rerun_judges_only_the_chunks_a_kill_left_unwritten(tmp_path, monkeypatch):
    rows = _collected(5)  # chunks of 2, 2 and 1
    _fake_rollouts(monkeypatch, fail_after=6)  # dies inside the second decision of chunk 1
    with pytest.raises(Fault):
        judging.judge(tmp_path, rows, SETTINGS, workers=1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chunk-0000.jsonl.gz", "judge.json"]  # no partial file
    first = (tmp_path / "chunk-0000.jsonl.gz").read_bytes()

    calls = _fake_rollouts(monkeypatch)
    assert judging.judge(tmp_path, rows, SETTINGS, workers=1) == 2
    assert len(calls) == 2 * 3  # the three decisions of chunks 1 and 2, two rollouts each
    assert (tmp_path / "chunk-0000.jsonl.gz").read_bytes() == first
    judged = judging.judged_rows(tmp_path)
    assert [r["key"] for r in judged] == [f"k{i}" for i in range(5)]
    for r in judged:
        assert r["loss"] == pytest.approx(r["theirs"]["rollout"] - r["ours"]["rollout"])
        assert r["games"] == 50 and r["loss_stderr"] > 0

    again = _fake_rollouts(monkeypatch)
    assert judging.judge(tmp_path, rows, SETTINGS, workers=1) == 0 and again == []


def test_a_decisions_figures_do_not_depend_on_its_chunk(tmp_path, monkeypatch):
    rows = _collected(3)
    _fake_rollouts(monkeypatch)
    judging.judge(tmp_path / "a", rows, SETTINGS, workers=1)
    judging.judge(tmp_path / "b", rows[1:], SETTINGS | {"chunk": 1}, workers=1)
    a = {r["key"]: r["loss"] for r in judging.judged_rows(tmp_path / "a")}
    b = {r["key"]: r["loss"] for r in judging.judged_rows(tmp_path / "b")}
    assert a["k1"] == b["k1"] and a["k2"] == b["k2"]


def test_a_rerun_with_other_settings_is_refused(tmp_path, monkeypatch):
    _fake_rollouts(monkeypatch)
    judging.judge(tmp_path, _collected(1), SETTINGS, workers=1)
    with pytest.raises(judging.DiagnosisError, match="games 50 \\(now 99\\)"):
        judging.judge(tmp_path, _collected(1), SETTINGS | {"games": 99}, workers=1)


# ---------------------------------------------------------------- match scores


class FixedZeroPly:
    def equities(self, board, dice, moves):
        return [0.30, 0.25][: len(moves)]


def test_looks_rows_charge_gnubgs_pick_minus_the_table_levels(tmp_path):
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:7:10"  # the opening with 52 to play
    agreed = {"index": 0, "seed": 1, "xgid": xgid, "dice": [5, 2], "candidates": ["13/11 13/8"], "games": 0}
    agreed |= {"picks": {"net:default@table": 0, "gnubg-1.07@2": 0}, "means": [0.0], "covariance": [[0.0]]}
    differ = {
        "index": 1,
        "seed": 1,
        "xgid": xgid,
        "dice": [5, 2],
        "candidates": ["13/11 13/8", "13/8 6/4"],
        "picks": {"net:default@table": 0, "gnubg-1.07@2": 1},
        "games": 100,
        "means": [0.10, 0.13],
        "covariance": [[4e-4, 3e-4], [3e-4, 5e-4]],
    }
    path = tmp_path / "looks.jsonl.gz"
    path.write_bytes(gzip.compress((json.dumps(agreed) + "\n" + json.dumps(differ) + "\n").encode()))
    counts, rows = looks_rows(path, FixedZeroPly())
    assert counts == {"all": 2, "contact": 2, "early (260+ pips)": 2}
    (row,) = rows
    assert row["loss"] == pytest.approx(0.03)  # gnubg's pick rolled out 0.03 better
    assert row["loss_stderr"] == pytest.approx(math.sqrt(5e-4 + 4e-4 - 2 * 3e-4))
    assert row["ours"]["move"] == "13/11 13/8" and row["theirs"]["equity0"] == 0.25


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--out", "x", "--games", "0"], "--games must be 1 or more"),
        (["--from-looks", "no/such/file.jsonl.gz"], "no file"),
        (["--summary", "no/such/dir"], "no directory"),
        (["--agreement", "no/such/dir"], "no directory"),
        (["--out", "x", "--judge", "xg"], "invalid choice"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        diagnose_gap.main(argv)
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_a_corrupt_looks_file_or_an_empty_directory_exits_2_with_one_line(tmp_path, capsys):
    bad = tmp_path / "looks.jsonl.gz"
    bad.write_bytes(b"not gzip")
    assert diagnose_gap.main(["--from-looks", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "not a readable gzip file" in err and len(err.strip().splitlines()) == 1
    assert diagnose_gap.main(["--summary", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "no decisions.json.gz" in err and len(err.strip().splitlines()) == 1


def test_a_decision_left_out_leaves_every_row_it_was_in():
    from scripts.diagnosis.summary import without

    counts = {"all": 10, "contact": 8, "race": 2, "middle (180-259 pips)": 10}
    rows = [_row("a", 0.03, 0.01, count=2), _row("b", -0.01, 0.02), _row("c", 0.05, 0.01, gap=0.2)]
    counts_b, differing, judged = without(["a"], counts, rows, rows)
    assert counts_b == {"all": 8, "contact": 6, "race": 2, "middle (180-259 pips)": 8} and counts["all"] == 10
    assert [r["key"] for r in differing] == ["b", "c"] == [r["key"] for r in judged]
    whole = table(counts_b, differing, judged)["rows"][0]
    assert whole["loss_x1000"] == pytest.approx(1000 * 0.04 / 8)
    with pytest.raises(KeyError, match="no differing decision 'z'"):
        without(["z"], counts, rows, rows)


def test_one_duplicate_pair_is_collected_counted_and_deduplicated():
    pytest.importorskip("gnubg_nn")
    import nets.player  # noqa: F401  registers net:NAME
    from scripts.diagnosis.collect import collect

    found = collect("default", seed=4101, pairs=1, workers=1)
    assert found["games"] == 2 and found["counts"]["all"] == found["choice_decisions"] > 0
    rows = found["decisions"]
    assert sum(r["count"] for r in rows) == found["differing_decisions"] > 0
    assert len({r["key"] for r in rows}) == len(rows)
    for r in rows:
        assert r["ours"]["move"] != r["theirs"]["move"] and r["ours"]["after"] != r["theirs"]["after"]
        assert r["ours"]["equity0"] >= r["theirs"]["equity0"]  # our 0-ply chose its best
    assert sum(found["counts"][c] for c in tags.CLASSES) == found["counts"]["all"]
