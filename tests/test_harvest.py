"""Harvested 2-ply candidates, growing a net, and fitting a pair on harvested labels."""

from __future__ import annotations

import numpy as np
import pytest

from engine.eval.net import Net, NetError
from engine.players.agent import Agent
from engine.search.nply import evaluate_at
from nets.player import load_agent
from nets.train.distill import FitSettings, fit_pair
from nets.train.expand import grow, input_map
from nets.train.harvest import chunk_path, harvest, harvest_games, load_harvest
from nets.train.labels import selfplay_positions


@pytest.fixture(scope="module")
def agent() -> Agent:
    # the shipped net: a random one plays games of hundreds of turns
    return load_agent("net:default", ply=0)


@pytest.mark.parametrize("ply", [1, 2])
def test_every_harvested_label_is_the_search_value_of_its_board(agent, ply):
    boards, labels = harvest_games(agent, 1, seed=4, ply=ply)
    assert len(boards) > 20
    assert ((labels >= 0) & (labels <= 1)).all()
    out = np.zeros(5, np.float32)
    for i in np.linspace(0, len(boards) - 1, 12).astype(int):
        evaluate_at(agent.ctx, boards[i], ply, agent._buf2.args(), agent._buf1.args(), out)
        assert out == pytest.approx(labels[i], abs=1e-6)


def test_harvest_writes_chunks_resumes_and_matches_one_process(tmp_path, monkeypatch, agent):
    import nets.train.labels

    monkeypatch.setitem(nets.train.labels._agents, "net:default", agent)
    n = harvest("net:default", tmp_path, 3, seed=6, ply=1, chunk_games=2)
    assert sorted(p.name for p in tmp_path.glob("chunk-*")) == [
        chunk_path(tmp_path, 0).name,
        chunk_path(tmp_path, 2).name,
    ]
    boards, labels = load_harvest(tmp_path)
    direct_boards, direct_labels = harvest_games(agent, 3, seed=6, ply=1)
    assert n == len(boards) and np.array_equal(boards, direct_boards) and np.array_equal(labels, direct_labels)
    first = chunk_path(tmp_path, 0).stat().st_mtime_ns
    harvest("net:default", tmp_path, 3, seed=6, ply=1, chunk_games=2)  # nothing left to do
    assert chunk_path(tmp_path, 0).stat().st_mtime_ns == first


def test_growing_a_net_keeps_its_outputs(agent):
    net = Net.create("gnubg5", "contact", 10, seed=7, scale=0.5)
    grown = grow(net, "contact2", 16)
    boards = selfplay_positions(agent, 3, seed=2)
    boards = boards[np.array([b[:, 6:].any() for b in boards])]
    assert grown.W1.shape == (236, 16) and grown.encoding == "contact2"
    assert np.abs(grown.probabilities(boards) - net.probabilities(boards)).max() < 1e-6
    assert grown.card["grown_from"]["hidden"] == 10


def test_growing_refuses_what_it_cannot_keep():
    net = Net.create("gnubg5", "contact", 10)
    with pytest.raises(NetError, match="shrink"):
        grow(net, hidden=5)
    with pytest.raises(NetError, match="does not extend"):
        input_map("contact2", "contact")
    from nets.train.dense import DenseNet

    with pytest.raises(NetError, match="one hidden layer"):
        grow(DenseNet.create("contact2", (8, 4), seed=1).as_net(), hidden=12)


def test_fit_pair_trains_copies_and_lowers_the_held_out_loss(agent):
    boards, labels = harvest_games(agent, 4, seed=9, ply=1)
    contact = Net.create("gnubg5", "contact", 12, seed=1, scale=0.3)
    race = Net.create("gnubg5", "race", 8, seed=2, scale=0.3)
    before = contact.W1.copy()
    result = fit_pair(contact, race, boards, labels, FitSettings(encoding="contact2", hidden=14, epochs=3, lr=0.05))
    assert np.array_equal(contact.W1, before)  # the start net is untouched
    assert result.contact.encoding == "contact2" and result.contact.hidden == 14
    report = result.reports["contact"]
    assert min(report["held_out_loss"]) < report["held_out_loss"][0]
    assert result.positions["contact"] + result.positions["race"] <= len(boards)


def test_harvest_fit_and_measure_commands(tmp_path, capsys, monkeypatch):
    """The loop from the command line on tiny nets: harvest labels, fit a grown copy,
    record its strength in its card."""
    from fibsbot.cli import main

    start = tmp_path / "tiny.npz"
    Net.create("gnubg5", "contact", 6, seed=1, scale=0.3).save(start)
    Net.create("gnubg5", "race", 4, seed=2, scale=0.3).save(tmp_path / "tiny.race.npz")
    monkeypatch.setattr("nets.player.NETS_DIR", tmp_path)
    monkeypatch.setattr("fibsbot.cli.train.NETS_DIR", tmp_path, raising=False)
    data = tmp_path / "harvest"
    assert (
        main(
            [
                "train",
                "harvest",
                "--net",
                "tiny",
                "--out",
                str(data),
                "--games",
                "2",
                "--chunk-games",
                "1",
                "--ply",
                "1",
            ]
        )
        == 0
    )
    assert "labelled positions" in capsys.readouterr().out
    assert len(list(data.glob("chunk-*.npz"))) == 2
    assert (
        main(
            [
                "train",
                "fit",
                str(data),
                "--net",
                "tiny",
                "--name",
                "fitted",
                "--encoding",
                "contact2",
                "--hidden",
                "8",
                "--epochs",
                "2",
            ]
        )
        == 0
    )
    fitted = Net.load(tmp_path / "fitted.npz")
    assert fitted.encoding == "contact2" and fitted.hidden == 8
    assert fitted.card["training"]["start"] == "tiny" and "strength" not in fitted.card
    assert fitted.card["training"]["data"] == [{"dir": str(data), "games": 2, "range": [0, 2], "ply": [1]}]
    assert main(["train", "measure", "fitted", "--games", "20", "--seed", "3"]) == 0
    for path in (tmp_path / "fitted.npz", tmp_path / "fitted.race.npz"):
        card = Net.load(path).card
        assert card["strength"]["games"] == 20 and card["strength"]["opponent"] == "pubeval"
    assert np.array_equal(Net.load(tmp_path / "fitted.npz").W1, fitted.W1)


def test_fit_command_refuses_too_little_data(tmp_path, capsys):
    from fibsbot.cli import main

    (tmp_path / "empty").mkdir()
    assert main(["train", "fit", str(tmp_path / "empty"), "--name", "x"]) == 2
    assert "harvest more first" in capsys.readouterr().err
    assert main(["train", "fit", str(tmp_path / "missing"), "--name", "x"]) == 2
    assert "missing: no such folder" in capsys.readouterr().err


def test_prune_command_takes_its_schedule_and_records_it(tmp_path, capsys, monkeypatch):
    from fibsbot.cli import main

    Net.create("gnubg5", "contact", 6, seed=1, scale=0.3).save(tmp_path / "tiny.npz")
    Net.create("gnubg5", "race", 4, seed=2, scale=0.3).save(tmp_path / "tiny.race.npz")
    monkeypatch.setattr("nets.player.NETS_DIR", tmp_path)
    assert (
        main(
            [
                "train",
                "prune",
                "--net",
                "tiny",
                "--games",
                "3",
                "--hidden",
                "5",
                "--epochs",
                "2",
                "--lr",
                "0.05",
                "--lr-decay",
                "0.9",
            ]
        )
        == 0
    )
    assert "wrote" in capsys.readouterr().out
    small = Net.load(tmp_path / "tiny.prune.npz")
    assert small.hidden == 5 and small.card["role"] == "pruning"
    training = small.card["training"]
    assert (training["epochs"], training["lr"], training["lr_decay"]) == (2, 0.05, 0.9)
    assert training["best_epoch"] <= 2
