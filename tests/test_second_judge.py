"""The diagnosis's second judge (gnubg's cubeless rollouts) and the capacity-or-labels
measure (scripts/training/fit_or_labels.py)."""

from __future__ import annotations

import numpy as np
import pytest

from engine.eval.net import Net
from engine.rules.position import position_id
from fibsbot.bench import gnubg_rollout
from fibsbot.bench.gnubg_rollout import GnubgCubelessRollout, gnubg_available, parse_cubeless
from nets.train.distill import fresh_net
from nets.train.supervised import fit
from scripts.diagnosis import gnubg_judge
from scripts.diagnosis import judge as judging
from scripts.training import fit_or_labels
from tests.board_builder import make_board
from tests.strategies import random_board

OPENING = {6: 5, 8: 3, 13: 5, 24: 2}

# what gnubg prints on a terminal for one cubeless rollout: running figures, then the result
ONE_ROLLOUT = """
ROLLOUT-START 0
Current Position:
  0.2989 0.0628 0.0036 - 0.7011 0.4762 0.0061 CL -0.8181
 [0.0062 0.0041 0.0015 - 0.0062 0.0068 0.0015 CL  0.0170] 1r
Full cubeless rollout (truncated at one-sided bearoff) with variance reduction
105 games, Mersenne Twister dice gen. with seed 77 and quasi-random dice
Rollout done. Printing final results.
Current Position:
  0.2913 0.0658 0.0047 - 0.7087 0.4687 0.0054 CL -0.8211

 [0.0035 0.0022 0.0007 - 0.0035 0.0036 0.0007 CL  0.0094] 1r
ROLLOUT-END 0 13.2808
"""


def test_the_last_figures_of_each_rollout_are_its_result():
    text = ONE_ROLLOUT + ONE_ROLLOUT.replace("START 0", "START 1").replace("END 0", "END 1").replace("-0.8211", "0.125")
    first, second = parse_cubeless(text, 2)
    assert first == GnubgCubelessRollout(-0.8211, 0.0094, 13.2808)
    assert second.equity == 0.125
    assert parse_cubeless(ONE_ROLLOUT, 2) is None  # the second rollout never ended
    assert parse_cubeless(ONE_ROLLOUT.replace("CL  0.0094]", "]").replace("CL  0.0170]", "]"), 1) is None


def test_a_cubeful_rollout_reads_its_means_then_their_errors():
    text = (
        "ROLLOUT-START 0\n  0.5 0.1 0.0 - 0.5 0.1 0.0 CL  0.0100 CF  0.0200\n"
        " [0.01 0.01 0.0 - 0.01 0.01 0.0 CL  0.0030 CF  0.0040]\nROLLOUT-END 0 2.5\n"
    )
    (result,) = gnubg_rollout._parse(text, 1)
    assert (result.equity, result.equity_stderr, result.cubeless, result.cubeless_stderr, result.cpu_s) == (
        0.02,
        0.004,
        0.01,
        0.003,
        2.5,
    )
    assert gnubg_rollout._parse(text.replace("ROLLOUT-END 0", "ROLLOUT-END 1"), 1) is None


def _row(key: str, ours: np.ndarray, theirs: np.ndarray, count: int = 1) -> dict:
    return {
        "key": key,
        "position": position_id(make_board(OPENING, OPENING)),
        "dice": [6, 5],
        "count": count,
        "class": "contact",
        "tags": [],
        "phase": "early (260+ pips)",
        "ours": {"move": "24/13", "after": position_id(ours), "equity0": 0.1},
        "theirs": {"move": "13/2", "after": position_id(theirs), "equity0": 0.05},
    }


SETTINGS = {"judge": gnubg_judge.JUDGE, "seed": 4101, "games": 36, "varredn": True, "plies": 0, "chunk": 2}


def test_the_mover_gets_minus_the_opponents_rollout_and_a_rerun_skips_written_chunks(tmp_path, monkeypatch):
    calls = []

    def fake(items, games, *, varredn, plies, timeout):
        calls.append(items)
        # the opponent on roll after our choice does worse than after gnubg's
        return [GnubgCubelessRollout(0.2 if k % 2 == 0 else 0.1, 0.01, 1.0) for k in range(len(items))]

    monkeypatch.setattr(gnubg_judge, "gnubg_cubeless_rollouts", fake)
    monkeypatch.setattr(gnubg_judge, "gnubg_available", lambda: True)
    a, b = make_board(OPENING, {6: 5, 8: 3, 13: 5, 23: 2}), make_board(OPENING, {6: 5, 8: 3, 13: 5, 22: 2})
    rows = [_row(f"k{i}", a, b) for i in range(3)]
    assert gnubg_judge.judge(tmp_path, rows, SETTINGS, workers=1) == 2
    judged = judging.judged_rows(tmp_path, gnubg_judge.PREFIX)
    assert [r["key"] for r in judged] == ["k0", "k1", "k2"]
    for r in judged:
        assert r["ours"]["rollout"] == -0.2 and r["theirs"]["rollout"] == -0.1
        assert r["loss"] == pytest.approx(0.1)  # gnubg's choice was better
        assert r["loss_stderr"] == pytest.approx(0.01 * 2**0.5)
    seeds = {seed for items in calls for _, _, seed in items}
    assert all(items[0][2] == items[1][2] for items in calls)  # both choices of a decision share the dice
    assert len(seeds) == 3 and judging.judged_rows(tmp_path) == []  # a seed a decision; the first judge apart
    assert gnubg_judge.judge(tmp_path, rows, SETTINGS, workers=1) == 0 and len(calls) == 2
    with pytest.raises(judging.DiagnosisError, match="games 36"):
        gnubg_judge.judge(tmp_path, rows, SETTINGS | {"games": 72}, workers=1)


def test_agreement_compares_the_judges_on_the_decisions_both_judged():
    def judged(key, loss, se=0.001, count=1):
        return {"key": key, "loss": loss, "loss_stderr": se, "count": count}

    first = [judged("a", 0.02), judged("b", -0.03, count=3), judged("c", 0.01), judged("only-first", 5.0)]
    second = [judged("a", 0.01), judged("b", -0.02, count=3), judged("c", -0.01)]
    result = gnubg_judge.agreement(first, second)
    assert result["decisions"] == 3
    assert result["first_x1000"] == pytest.approx(1000 * (0.02 - 0.09 + 0.01) / 5)
    assert result["second_x1000"] == pytest.approx(1000 * (0.01 - 0.06 - 0.01) / 5)
    assert result["difference_x1000"] == pytest.approx(result["first_x1000"] - result["second_x1000"])
    assert result["both_sure"] == 3 and result["both_sure_same_choice"] == 2
    assert gnubg_judge.agreement(first[:1], second)["decisions"] == 1


def test_the_command_line_compares_the_two_judges_and_tabulates_the_second(tmp_path, monkeypatch, capsys):
    import gzip
    import json

    from scripts.diagnosis import diagnose_gap

    a, b = make_board(OPENING, {6: 5, 8: 3, 13: 5, 23: 2}), make_board(OPENING, {6: 5, 8: 3, 13: 5, 22: 2})
    rows = [_row(f"k{i}", a, b, count=1 + i) for i in range(3)]
    collection = {"net": "net:default", "theirs": "gnubg0", "seed": 4101, "pairs": 1, "games": 2}
    collection |= {"counts": {"all": 10, "contact": 10, "early (260+ pips)": 10}, "decisions": rows}
    (tmp_path / "decisions.json.gz").write_bytes(gzip.compress(json.dumps(collection).encode()))
    ours = [r | {"loss": 0.01 * (i + 1), "loss_stderr": 0.001} for i, r in enumerate(rows)]
    judging.write_gzip(judging.chunk_path(tmp_path, 0), "".join(json.dumps(r) + "\n" for r in ours))
    monkeypatch.setattr(gnubg_judge, "gnubg_available", lambda: True)
    monkeypatch.setattr(
        gnubg_judge,
        "gnubg_cubeless_rollouts",
        lambda items, games, **kw: [
            GnubgCubelessRollout(0.3 if k % 2 == 0 else 0.28, 0.001, 0.5) for k in range(len(items))
        ],
    )
    argv = ["--out", str(tmp_path), "--pairs", "1", "--games", "36", "--judge", "gnubg", "--json"]
    assert diagnose_gap.main(argv) == 0
    table = json.loads(capsys.readouterr().out)
    assert table["rows"][0]["judged"] == 6 and table["rows"][0]["loss_x1000"] == pytest.approx(1000 * 0.02 * 6 / 10)
    assert diagnose_gap.main(["--agreement", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert "3 decisions judged by both" in text and "gnubg's +20.0" in text


@pytest.mark.skipif(not gnubg_available(), reason="GNU Backgammon (gnubg) is not installed here")
def test_gnubg_rolls_out_the_same_position_from_the_same_seed_to_the_same_figures():
    a = make_board(OPENING, {6: 5, 8: 3, 13: 5, 23: 2})
    b = make_board(OPENING, {6: 4, 8: 4, 13: 5, 24: 2})
    rows = [_row("same", a, a), _row("differ", a, b)]
    few = SETTINGS | {"games": 8}  # what is tested holds for any count; gnubg's variance reduction is slow
    judged = gnubg_judge.judge_rows(rows, few, timeout=600)
    same, differ = judged
    assert same["loss"] == 0.0 and same["ours"]["rollout"] == same["theirs"]["rollout"]
    assert 0 < same["ours"]["rollout_stderr"] < 0.5
    assert differ["rollout_seed"] != same["rollout_seed"]
    # a decision's figures come from its key, not from where it stands among the others
    (alone,) = gnubg_judge.judge_rows([rows[1]], few, timeout=600)
    assert {k: v for k, v in alone.items() if k != "cpu_seconds"} == {
        k: v for k, v in differ.items() if k != "cpu_seconds"
    }
    assert abs(differ["ours"]["rollout"]) < 1.0  # an opening-like position, not a gammon


def test_rollouts_of_gnubg_are_none_when_it_is_missing(monkeypatch):
    monkeypatch.setattr(gnubg_rollout, "gnubg_available", lambda: False)
    assert gnubg_rollout.gnubg_cubeless_rollouts([("4HPwATDgc/ABMA", "cAgAAAAAAAAA", 1)], 36) is None


# ---------------------------------------------------------------- capacity or labels


def _label_set(path, n: int, seed: int) -> str:
    rng = np.random.default_rng(seed)
    boards = np.stack([random_board(rng, 10, 15, allow_bar=False) for _ in range(n)])
    labels = rng.uniform(0.05, 0.6, (n, 5)).astype(np.float16)
    labels[:, 0] = rng.uniform(0.2, 0.8, n)
    np.savez(path, boards=boards, sage1=labels, sage3=(labels.astype(np.float32) * 0.9).astype(np.float16))
    return f"{path}:sage1"


def test_the_measure_holds_out_what_the_fit_held_out(tmp_path):
    spec = _label_set(tmp_path / "a.npz", 400, 1)
    other = _label_set(tmp_path / "b.npz", 300, 2)
    boards, labels = fit_or_labels.held_out_contact([spec, other], seed=3, held_out=0.1)
    from nets.train.label_sets import read_label_set
    from nets.train.supervised import split_by_net

    all_boards = np.concatenate([read_label_set(s)[0] for s in (spec, other)])
    all_labels = np.concatenate([read_label_set(s)[1] for s in (spec, other)])
    contact = split_by_net(all_boards, all_labels)["contact"]
    net: Net = fresh_net("contact2", 8, seed=3)
    report = fit(net, *contact, epochs=1, lr=0.1, seed=3, held_out=0.1)
    # the fit's held-out loss before training is the measure's loss of the untrained net
    untrained = fresh_net("contact2", 8, seed=3)
    probs = fit_or_labels._raw_net_probabilities(untrained, boards)
    assert fit_or_labels.cross_entropy(probs, labels).mean() == pytest.approx(report.held_out_loss[0], rel=1e-5)
    assert len(boards) == round(0.1 * len(contact[0]))

    ref_index, ref_labels = fit_or_labels.reference_rows(boards, f"{tmp_path / 'a.npz'}:sage3")
    assert 0 < len(ref_index) < len(boards)  # only the first set's held-out positions have the reference
    np.testing.assert_allclose(ref_labels, labels[ref_index] * 0.9, atol=2e-3)
    # a net of two hidden layers is measured by its own forward pass
    from nets.train.dense import DenseNet, encode_all

    deep = DenseNet.create("contact2", (8, 4), seed=3)
    np.testing.assert_allclose(
        fit_or_labels._raw_net_probabilities(deep.as_net(), boards), deep.outputs(encode_all("contact2", boards))
    )
    # a perfect net's fit gap is 0, and a set's labels' cross-entropy with itself is its floor
    assert fit_or_labels.mean_abs(labels, labels)[0] == 0.0
    assert (fit_or_labels.cross_entropy(labels, labels) <= fit_or_labels.cross_entropy(probs, labels) + 1e-9).all()
