"""scripts/labels/errors_vs_rollouts.py: each evaluator's error against rollouts done so far."""

from __future__ import annotations

import numpy as np

from engine.eval.evaluator import Evaluator
from engine.eval.forward import cubeless_equities
from engine.players.agent import Agent
from nets.player import resolve_net_path
from tests.script_loader import load_script
from tests.test_plumbing_checker_play import sample_positions


def test_rows_at_zero_and_one_ply_score_each_net_against_the_rolled_out_positions(tmp_path, capsys):
    module = load_script("labels.errors_vs_rollouts")
    boards = np.array([b for b, _ in sample_positions(6, seed=5)], dtype=np.int8)
    truth = np.tile(np.array([[0.6, 0.2, 0.01, 0.1, 0.005]], np.float32), (6, 1))
    np.savez(tmp_path / "set.npz", boards=boards, sage1=truth)
    chunks = tmp_path / "chunks"
    chunks.mkdir()
    np.savez(chunks / "chunk-00001.npz", first=1, labels=truth[1:4])  # positions 1-3 rolled out so far
    module.main([str(tmp_path / "set.npz"), "--chunks", str(chunks), "--nets", "e400w", "--ply1", "2"])
    rows = {line.split(" | ")[0].strip("| "): line.split(" | ") for line in capsys.readouterr().out.splitlines()[2:]}
    assert rows["label sage1"][1:3] == ["3", "0.0000"]  # the set's own labels equal the rollouts here
    agent = Agent(Evaluator.load(resolve_net_path("e400w")), ply=0)
    zero = np.array([cubeless_equities(agent.probabilities(b, 0)) for b in boards[1:4]])
    error = zero - cubeless_equities(truth[1:4])
    rms = round(float(np.sqrt(np.mean(error**2))), 4)
    assert rows["e400w 0-ply"][1] == "3" and float(rows["e400w 0-ply"][2]) == rms
    assert rows["e400w 1-ply"][1] == "2"  # the first --ply1 positions only


def test_the_truth_may_be_a_key_of_the_set_itself(tmp_path, capsys):
    """`--truth KEY`: a gathered set's own rollouts judge, the key itself is no row, and
    the last column is the mean absolute error x1000."""
    module = load_script("labels.errors_vs_rollouts")
    boards = np.array([b for b, _ in sample_positions(4, seed=6)], dtype=np.int8)
    truth = np.tile(np.array([[0.6, 0.2, 0.01, 0.1, 0.005]], np.float32), (4, 1))
    off = truth.copy()
    off[:, 0] -= 0.05  # 0.1 of equity below the truth in every position
    np.savez(tmp_path / "set.npz", boards=boards, rollout36=truth.astype(np.float16), sage1=off)
    module.main([str(tmp_path / "set.npz"), "--truth", "rollout36", "--nets", "e400w", "--ply1", "0"])
    rows = {line.split(" | ")[0].strip("| "): line.split(" | ") for line in capsys.readouterr().out.splitlines()[2:]}
    assert "label rollout36" not in rows and rows["label sage1"][1] == "4"
    assert abs(float(rows["label sage1"][3]) + 0.1) < 2e-3  # the mean error: the bias
    assert rows["label sage1"][4].startswith("100.")  # mean absolute error x1000, within float16
    np.savez(tmp_path / "two.npz", boards=boards, rollout36=truth, family=np.array([0, 1, 1, 0], np.int8))
    module.main([str(tmp_path / "two.npz"), "--truth", "rollout36", "--family", "1", "--nets", "e400w", "--ply1", "0"])
    rows = {line.split(" | ")[0].strip("| "): line.split(" | ") for line in capsys.readouterr().out.splitlines()[2:]}
    assert rows["e400w 0-ply"][1] == "2"  # the positions of family 1 only
