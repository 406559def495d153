"""scripts/labels/split_set.py: a test share of each set that no fit sees."""

from __future__ import annotations

import numpy as np

from tests.script_loader import load_script


def test_each_set_gives_its_share_to_the_test_set_and_nothing_to_both(tmp_path):
    module = load_script("labels.split_set")
    rng = np.random.default_rng(3)
    paths = []
    for family, count in enumerate((40, 20)):
        boards = rng.integers(0, 3, size=(count, 2, 25)).astype(np.int8)
        boards[:, 0, 0] = np.arange(count)  # every board distinct
        boards[:, 1, 0] = family
        labels = rng.random((count, 5)).astype(np.float16)
        paths.append(tmp_path / f"family{family}.npz")
        np.savez(paths[-1], boards=boards, rollout36=labels, sources=np.array([f"family {family}"]))
    argv = [*map(str, paths), "--key", "rollout36", "--test-share", "0.25", "--seed", "4"]
    module.main([*argv, "--train", str(tmp_path / "train.npz"), "--test", str(tmp_path / "test.npz")])
    with np.load(tmp_path / "train.npz") as train, np.load(tmp_path / "test.npz") as test:
        assert len(test["boards"]) == 10 + 5 and len(train["boards"]) == 30 + 15
        assert np.bincount(test["family"]).tolist() == [10, 5]
        assert (test["boards"][:, 1, 0] == test["family"]).all()  # each board keeps its family
        seen = {b.tobytes() for b in train["boards"]}
        assert not any(b.tobytes() in seen for b in test["boards"])
        for path in paths:  # every position lands once, with its own labels
            with np.load(path) as source:
                for board, label in zip(source["boards"], source["rollout36"]):
                    where = [s for s in (train, test) if (s["boards"] == board).all(axis=(1, 2)).any()]
                    assert len(where) == 1
                    row = where[0]["rollout36"][(where[0]["boards"] == board).all(axis=(1, 2))][0]
                    assert (row == label).all()
        assert "the test share" in str(test["sources"][-1])
