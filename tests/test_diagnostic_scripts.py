"""The diagnostic, pruning and harvesting tools (scripts/diagnosis, scripts/checks, scripts/labels) on tiny inputs."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from tests.script_loader import load_script


def test_gap_by_class_hands_exactly_one_class_to_gnubg(monkeypatch, capsys):
    pytest.importorskip("gnubg_nn", reason="gnubg-nn not installed")
    script = load_script("diagnosis.gap_by_class")
    from engine.rules.moves import MoveBuffers, generate_moves
    from engine.rules.position import Phase, Position

    hybrid = script.Hybrid("default", script.CLASSES["race"])
    calls = []
    for who in ("net", "gnubg"):
        player = getattr(hybrid, who)
        monkeypatch.setattr(player, "choose", lambda *a, who=who: calls.append(who) or 0, raising=False)
    board = Position.initial().board.copy()
    buffers = MoveBuffers()
    n = generate_moves(board, 3, 1, *buffers.args())
    hybrid.choose(board, 3, 1, buffers.boards[:n])
    assert calls == ["net"] and Phase.CONTACT not in script.CLASSES["race"]
    monkeypatch.undo()
    monkeypatch.setattr(sys, "argv", ["gap_by_class.py", "--games", "4", "--seed", "3"])
    assert script.main() == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[2] for line in lines] == ["contact", "crashed", "race"]
    assert all("(4 games)" in line for line in lines)


def test_rollout_bias_reports_each_output(tmp_path, monkeypatch, capsys):
    import nets.train.labels
    from nets.player import load_agent
    from nets.train.harvest import harvest, load_harvest
    from nets.train.labellers import rollout_labels

    agent = load_agent("net:default", ply=0)
    monkeypatch.setitem(nets.train.labels._agents, "net:default", agent)
    harvest("net:default", tmp_path, 1, seed=3, ply=1)
    monkeypatch.setattr(
        sys, "argv", ["rollout_bias.py", str(tmp_path), "--positions", "6", "--games", "4", "--seed", "5"]
    )
    assert load_script("diagnosis.rollout_bias").main() == 0
    out = capsys.readouterr().out
    assert "6 contact positions" in out and out.count("win gammon") == 2
    boards = load_harvest(tmp_path)[0]
    assert np.isfinite(rollout_labels(agent, boards[:2], 4, 5)).all()


def test_rollout_prune_accuracy_reports_both_plays_and_their_difference(monkeypatch, capsys):
    script = load_script("checks.rollout_prune_accuracy")
    monkeypatch.setattr(
        sys,
        "argv",
        [
            "rollout_prune_accuracy.py",
            "--positions",
            "2",
            "--games",
            "36",
            "--referee",
            "net:default@0",
            "--keep",
            "4",
            "8",
        ],
    )
    assert script.main() == 0
    out = capsys.readouterr().out
    assert "full:" in out and "pruned 4:" in out and "pruned 8:" in out
    assert "pruned 4 - full over 2 positions" in out and "pruned 8 - full over 2 positions" in out
    assert "full against net:default@0" in out and "pruned 8 against net:default@0" in out


def test_harvest_vs_opponent_keeps_the_filtered_candidates_of_the_nets_decisions(tmp_path):
    script = load_script("labels.harvest_vs_opponent")
    from engine.rules.moves import MoveBuffers, generate_moves
    from engine.rules.position import Position
    from nets.train.candidates import FILTER_WINDOW

    net = script.RecordingNet("default", 12, FILTER_WINDOW)
    board = Position.initial().board
    buffers = MoveBuffers()
    n = generate_moves(board, 6, 5, *buffers.args())
    best = net.choose(board, 6, 5, buffers.boards[:n])
    equities, _ = net.evaluator.move_equities(buffers.boards[:n])
    assert best == int(np.argmax(equities))
    assert 1 <= len(net.positions) <= 12
    # each is a legal result turned to the opponent on roll, best first
    assert np.array_equal(net.positions[0], buffers.boards[best][::-1])
    out = tmp_path / "vp.npz"
    assert script.main(["--games", "4", "--seed", "5", "--out", str(out)]) == 0
    with np.load(out) as data:
        boards = data["boards"]
        assert boards.dtype == np.int8 and boards.shape[1:] == (2, 25) and len(boards) > 20
        assert (boards.sum(axis=2) <= 15).all() and "pubeval" in str(data["sources"][0])
        assert len(np.unique(boards.reshape(len(boards), -1), axis=0)) == len(boards)
