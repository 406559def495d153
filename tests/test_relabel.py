"""Harvested positions relabelled by a labeller: chunk files, resumption, the fit reading them."""

from __future__ import annotations

import numpy as np
import pytest

from engine.players.agent import Agent
from engine.rollout.cubeless import rollout_position
from nets.player import load_agent
from nets.train.harvest import chunk_path, harvest, harvest_extent, load_harvest
from nets.train.labellers import rollout_labels
from nets.train.relabel import chunk_seed, relabel


@pytest.fixture(scope="module")
def agent() -> Agent:
    return load_agent("net:default", ply=0)


@pytest.fixture()
def harvested(tmp_path, monkeypatch, agent):
    import nets.train.labels

    monkeypatch.setitem(nets.train.labels._agents, "net:default", agent)
    src = tmp_path / "harvest"
    harvest("net:default", src, 1, seed=3, ply=1)
    return src


def test_a_rollout_label_is_the_mean_outcome_of_the_rollout(agent, harvested):
    boards, _ = load_harvest(harvested)
    labels = rollout_labels(agent, boards[:3], 8, seed=5)
    for board, label in zip(boards[:3], labels):
        assert label == pytest.approx(rollout_position(board, 8, agent=agent, seed=5).probs, abs=1e-6)
    win, win_g, win_bg, lose_g, lose_bg = labels.T
    assert ((win_bg <= win_g + 1e-6) & (win_g <= win + 1e-6) & (lose_bg <= lose_g + 1e-6)).all()
    assert (lose_g <= 1 - win + 1e-6).all()


def test_relabel_writes_chunks_resumes_and_reads_like_a_harvest(agent, harvested, tmp_path):
    out = tmp_path / "rollouts"
    n = relabel("rollout:4", harvested, out, positions=40, seed=9, chunk_positions=16)
    assert n == 40 and sorted(p.name for p in out.glob("chunk-*")) == [chunk_path(out, f).name for f in (0, 16, 32)]
    boards, labels = load_harvest(out)
    source, _ = load_harvest(harvested)
    assert np.array_equal(boards, source[:40])
    # each chunk has its own dice, so no luck is shared by the whole set
    assert labels[16:32] == pytest.approx(rollout_labels(agent, boards[16:32], 4, chunk_seed(9, 16)), abs=1e-6)
    assert chunk_seed(9, 0) != chunk_seed(9, 16)
    assert harvest_extent(out) == {"dir": str(out), "positions": 40, "labeller": ["rollout:4"]}
    kept = chunk_path(out, 0).stat().st_mtime_ns
    chunk_path(out, 16).unlink()
    assert relabel("rollout:4", harvested, out, positions=40, seed=9, chunk_positions=16) == 40
    assert chunk_path(out, 0).stat().st_mtime_ns == kept
    assert np.array_equal(load_harvest(out)[1], labels)


def test_relabel_command(tmp_path, harvested, capsys):
    from fibsbot.cli import main

    out = tmp_path / "cmd"
    assert (
        main(["train", "relabel", str(harvested), "--out", str(out), "--labeller", "rollout:2", "--positions", "10"])
        == 0
    )
    assert "10 positions labelled by rollout:2" in capsys.readouterr().out
    assert main(["train", "relabel", str(harvested), "--out", str(out), "--labeller", "rollout:0"]) == 2
    assert "unknown labeller 'rollout:0'" in capsys.readouterr().err
    assert main(["train", "relabel", str(harvested), "--out", str(out), "--positions", "0"]) == 2
    assert "--positions" in capsys.readouterr().err


def test_relabel_by_another_labeller_records_it(tmp_path, harvested):
    out = tmp_path / "search"
    assert relabel("net:default@0", harvested, out, positions=20, chunk_positions=8) == 20
    boards, labels = load_harvest(out)
    from nets.train.labels import _agent, label_positions

    assert np.array_equal(labels, label_positions(_agent("net:default"), boards, 0))
    assert harvest_extent(out)["labeller"] == ["net:default@0"]
