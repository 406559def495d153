"""scripts/labels/relabel_set.py: a label set's new labels in resumable chunks (a second run may
begin further on, ``--first-chunk``), and the labelled part of an unfinished run as a
set of its own (``--partial``)."""

from __future__ import annotations

import numpy as np
import pytest

from nets.train.label_sets import read_label_set
from tests.script_loader import load_script


@pytest.fixture(scope="module")
def relabel_set():
    return load_script("labels.relabel_set")


@pytest.fixture()
def label_set(tmp_path):
    from fibsbot.bench.speed import real_game_positions

    boards, _ = real_game_positions(games=2, seed=8)
    path = tmp_path / "set.npz"
    np.savez_compressed(
        path,
        boards=boards[:25],
        sources=np.array(["two pubeval games"]),
        sage1=np.full((25, 5), 0.25, np.float16),
    )
    return path


def test_an_unfinished_run_gives_its_labelled_prefix_as_a_set_that_the_finished_run_extends(
    relabel_set, label_set, tmp_path, capsys
):
    chunks = tmp_path / "chunks"
    common = [str(label_set), "--labeller", "net:default@0", "--key", "n0", "--chunks", str(chunks), "--chunk", "10"]
    assert relabel_set.main([*common, "--limit-chunks", "1"]) == 0
    assert "1 of 3 chunks labelled" in capsys.readouterr().out
    assert relabel_set.main([*common, "--first-chunk", "2"]) == 0  # as a second run on another core would
    assert "2 of 3 chunks labelled" in capsys.readouterr().out
    assert "n0" not in np.load(label_set).files  # the set itself waits for the last chunk

    partial = tmp_path / "partial.npz"
    assert relabel_set.main([*common, "--partial", str(partial)]) == 0
    boards, labels, extent = read_label_set(f"{partial}:n0")  # chunk 1 is missing: the prefix ends before it
    assert np.array_equal(boards, np.load(label_set)["boards"][:10])
    assert extent["positions"] == 10
    assert extent["sources"][0] == "two pubeval games"
    assert "the first 10 positions" in extent["sources"][1] and "net:default@0" in extent["sources"][2]
    assert read_label_set(f"{partial}:sage1")[1].shape == (10, 5)  # the other labels come along

    assert relabel_set.main(common) == 0
    _, finished, _ = read_label_set(f"{label_set}:n0")
    assert finished.shape == (25, 5)
    np.testing.assert_array_equal(finished[:10], labels)
    assert not list(chunks.glob("*tmp*"))

    with pytest.raises(SystemExit, match="wrong --chunk"):
        relabel_set.main([*common[:-1], "5", "--partial", str(partial)])
    with pytest.raises(SystemExit, match="no chunk-00000"):
        relabel_set.main([*common[:-3], str(tmp_path / "none"), "--chunk", "10", "--partial", str(partial)])
