"""A duel in saved chunks: a killed duel goes on where it stopped, with one run's points."""

from __future__ import annotations

import json

import numpy as np
import pytest

from engine.rollout.duel import play_pairs
from fibsbot.cli.duel_chunks import ChunkFolderMismatch, run_chunked_duel
from tests.test_cli import run_cli


def test_chunks_hold_the_points_of_one_run_and_the_result_matches(tmp_path):
    result, played = run_chunked_duel("pubeval", "random:3", 60, 5, 1, tmp_path, 7)
    assert played == 30
    saved = sorted(tmp_path.glob("pairs-*.npy"))
    assert [p.name for p in saved][:2] == ["pairs-00000000-7.npy", "pairs-00000007-7.npy"]
    assert saved[-1].name == "pairs-00000028-2.npy"
    whole = play_pairs("pubeval", "random:3", 5, 0, 30)
    assert np.array_equal(np.concatenate([np.load(p) for p in saved]), whole)
    assert result.games == 60 and result.ppg == pytest.approx(whole.mean())


def test_a_rerun_plays_only_the_chunks_a_kill_left_unwritten(tmp_path):
    run_chunked_duel("pubeval", "random:3", 40, 8, 1, tmp_path, 5)
    lost = tmp_path / "pairs-00000010-5.npy"
    kept = tmp_path / "pairs-00000000-5.npy"
    before = kept.stat().st_mtime_ns
    lost.unlink()
    (tmp_path / "pairs-00000015-5.npy.tmp.npy").write_bytes(b"half a chunk")  # a kill mid-write
    result, played = run_chunked_duel("pubeval", "random:3", 40, 8, 1, tmp_path, 5)
    assert played == 5 and lost.exists() and kept.stat().st_mtime_ns == before
    assert result.ppg == pytest.approx(play_pairs("pubeval", "random:3", 8, 0, 20).mean())


def test_chunks_over_workers_equal_chunks_in_one_process(tmp_path):
    one, _ = run_chunked_duel("pubeval", "random:2", 24, 3, 1, tmp_path / "one", 4)
    two, _ = run_chunked_duel("pubeval", "random:2", 24, 3, 2, tmp_path / "two", 4)
    assert one.ppg == two.ppg and one.stderr == two.stderr


def test_a_folder_of_another_duel_is_refused_not_mixed_in(tmp_path):
    run_chunked_duel("pubeval", "random:3", 10, 1, 1, tmp_path, 5)
    assert json.loads((tmp_path / "duel.json").read_text())["seed"] == 1
    with pytest.raises(ChunkFolderMismatch, match="another duel"):
        run_chunked_duel("pubeval", "random:3", 10, 2, 1, tmp_path, 5)
    code, _, err = run_cli(["duel", "--games", "10", "--seed", "2", "--chunks", str(tmp_path), "--chunk-pairs", "5"])
    assert code == 2 and "another duel" in err


def test_the_command_resumes_and_prints_the_whole_duel(tmp_path):
    args = ["duel", "--games", "20", "--seed", "4", "--chunks", str(tmp_path), "--chunk-pairs", "3", "--json"]
    code, out, err = run_cli(args)
    assert code == 0 and "chunk 4/4 saved" in err
    first = json.loads(out)
    code, out, _ = run_cli(args)
    again = json.loads(out)
    assert code == 0 and again["games"] == 20 and again["ppg"] == first["ppg"] and again["games_per_s"] == 0.0
