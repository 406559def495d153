"""Committed label sets as training data, and fitting a contact net from random weights."""

from __future__ import annotations

import numpy as np
import pytest

from engine.eval.net import Net
from nets.player import load_agent
from nets.train.distill import FitSettings, fit_pair, fresh_net
from nets.train.harvest import harvest_games
from nets.train.label_sets import LabelSetError, read_label_set


@pytest.fixture(scope="module")
def labelled():
    return harvest_games(load_agent("net:default", ply=0), 3, seed=5, ply=1)


def _write_set(path, boards, **labels):
    np.savez_compressed(
        path, boards=boards, sources=np.array(["test games"]), **{k: v.astype(np.float16) for k, v in labels.items()}
    )


def test_a_label_set_gives_its_boards_and_the_labels_named(tmp_path, labelled):
    boards, labels = labelled
    _write_set(tmp_path / "one.npz", boards, sage1=labels)
    _write_set(tmp_path / "two.npz", boards, sage1=labels, sage2=1 - labels)
    got_boards, got, _ = read_label_set(str(tmp_path / "one.npz"))
    assert np.array_equal(got_boards, boards) and got.dtype == np.float32
    assert np.allclose(got, labels, atol=1e-3)  # stored as float16
    assert np.allclose(read_label_set(f"{tmp_path / 'two.npz'}:sage2")[1], 1 - labels, atol=1e-3)
    mean = read_label_set(f"{tmp_path / 'two.npz'}:sage1+sage2")[1]
    assert np.allclose(mean, 0.5, atol=1e-3)
    assert read_label_set(f"{tmp_path / 'two.npz'}:sage1+sage2")[2]["labeller"].startswith("mean of bgsage@1")
    extent = read_label_set(f"{tmp_path / 'two.npz'}:sage2")[2]
    assert extent["labeller"].startswith("bgsage@2") and extent["positions"] == len(boards)
    assert extent["sources"] == ["test games"]


def test_a_label_set_spec_that_names_nothing_is_a_clear_error(tmp_path, labelled):
    boards, labels = labelled
    _write_set(tmp_path / "two.npz", boards, sage1=labels, sage2=labels)
    with pytest.raises(LabelSetError, match="name one"):
        read_label_set(str(tmp_path / "two.npz"))
    with pytest.raises(LabelSetError, match="no labels 'sage3'"):
        read_label_set(f"{tmp_path / 'two.npz'}:sage3")
    with pytest.raises(LabelSetError, match="no label set"):
        read_label_set(str(tmp_path / "missing.npz"))


def test_a_fresh_net_is_seeded_and_fitting_from_scratch_learns(labelled):
    boards, labels = labelled
    assert np.array_equal(fresh_net("contact2", 9, 3).W1, fresh_net("contact2", 9, 3).W1)
    contact = Net.create("gnubg5", "contact", 12, seed=1, scale=0.3)
    race = Net.create("gnubg5", "race", 8, seed=2, scale=0.3)
    result = fit_pair(
        contact,
        race,
        boards,
        labels,
        FitSettings(encoding="contact2", hidden=20, epochs=4, lr=0.1, scratch=True, train_race=False),
    )
    assert result.contact.encoding == "contact2" and result.contact.hidden == 20
    assert "grown_from" not in result.contact.card
    report = result.reports["contact"]
    assert min(report["held_out_loss"]) < report["held_out_loss"][0]
    assert "race" not in result.reports and np.array_equal(result.race.W1, race.W1)


def test_the_fit_command_trains_on_a_label_set(tmp_path, labelled, monkeypatch, capsys):
    from fibsbot.cli import main

    boards, labels = labelled
    _write_set(tmp_path / "set.npz", boards, sage1=labels)
    Net.create("gnubg5", "contact", 6, seed=1, scale=0.3).save(tmp_path / "tiny.npz")
    Net.create("gnubg5", "race", 4, seed=2, scale=0.3).save(tmp_path / "tiny.race.npz")
    monkeypatch.setattr("nets.player.NETS_DIR", tmp_path)
    monkeypatch.setattr("fibsbot.cli.train.NETS_DIR", tmp_path, raising=False)
    assert (
        main(
            [
                "train",
                "fit",
                f"{tmp_path / 'set.npz'}:sage1",
                "--net",
                "tiny",
                "--name",
                "fresh",
                "--scratch",
                "--encoding",
                "contact2",
                "--hidden",
                "10",
                "--epochs",
                "2",
                "--contact-only",
            ]
        )
        == 0
    )
    fitted = Net.load(tmp_path / "fresh.npz")
    assert fitted.hidden == 10 and fitted.card["training"]["scratch"] is True
    assert fitted.card["training"]["data"][0]["labeller"].startswith("bgsage@1")
    race = Net.load(tmp_path / "fresh.race.npz")
    assert np.array_equal(race.W1, Net.load(tmp_path / "tiny.race.npz").W1) and race.card["kept_from"] == "tiny"
    assert main(["train", "fit", str(tmp_path / "nothing.npz"), "--net", "tiny", "--name", "x"]) == 2
    assert "no label set" in capsys.readouterr().err


def test_crashed_positions_can_be_shown_more_often():
    from engine.rules.position import Phase, classify
    from nets.train.distill import repeat_crashed

    contact = np.zeros((2, 2, 25), np.int8)
    contact[:, 0, 5] = contact[:, 1, 5] = 15
    contact[1, 0, 5], contact[1, 0, 0], contact[1, 0, 20] = 0, 14, 1  # 14 dead on the ace point: crashed
    contact[0, 0, 5], contact[0, 0, 20] = 14, 1
    assert classify(contact[1]) == Phase.CRASHED and classify(contact[0]) != Phase.CRASHED
    labels = np.array([[0.1] * 5, [0.9] * 5], np.float32)
    boards, repeated = repeat_crashed(contact, labels, 3)
    assert len(boards) == 4 and (repeated[2:] == 0.9).all()
    assert all(classify(board) == Phase.CRASHED for board in boards[2:])
