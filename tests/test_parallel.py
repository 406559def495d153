"""Parallel backends: one process, local processes and Ray give identical results.

The Ray comparison runs in a child process (this file run as a script) that starts
a small local Ray instance, so no Ray thread or daemon outlives it inside the test
process, where later tests fork worker processes.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.rollout.cubeless import rollout_moves, rollout_position
from engine.rollout.parallel import RAY_INSTALL_HINT, ParallelBackendError, map_chunks, split_range
from engine.rules.notation import format_gnubg
from engine.rules.position import Position
from nets.player import load_agent
from nets.train.labellers import label_spread
from nets.train.labels import label_parallel, selfplay_games, selfplay_parallel, selfplay_positions

REPO = Path(__file__).resolve().parents[1]
SPEC = "net:default"
INITIAL_ID = "4HPwATDgc/ABMA"
SEED = 7
GAMES = 24
SELFPLAY_GAMES = 4
RAY_TIMEOUT = 240  # seconds for the whole Ray child process, start to shutdown


def cli_rollout_json(extra: list[str]) -> str:
    from fibsbot.cli import main

    argv = [
        "rollout",
        "--position-id",
        INITIAL_ID,
        "--dice",
        "3",
        "1",
        "--games",
        "12",
        "--candidates",
        "2",
        "--seed",
        str(SEED),
        "--json",
        *extra,
    ]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(argv)
    assert code == 0
    return out.getvalue()


def run_everything(workers: int, ray_address: str | None) -> dict[str, np.ndarray]:
    """Every parallel entry point once, on small work, as arrays to compare exactly."""
    board = Position.initial().board
    common = dict(spec=SPEC, seed=SEED, workers=workers, ray_address=ray_address)
    position = rollout_position(board, GAMES, **common)
    moves = rollout_moves(board, 6, 2, GAMES, candidates=3, **common)
    positions = selfplay_parallel(
        SPEC, SELFPLAY_GAMES, seed=SEED, explore=0.1, workers=workers, ray_address=ray_address
    )
    labels = label_parallel(SPEC, positions[::8], 1, workers, ray_address=ray_address)
    # the retrain's labeller (rollouts here: bgsage shares its work over its own threads)
    spread = label_spread("rollout:2+vr+prune", positions[::16], seed=SEED, workers=workers, ray_address=ray_address)
    cli = cli_rollout_json(["--workers", str(workers)] + (["--ray", ray_address] if ray_address else []))
    return {
        "rollout_equities": position.equities,
        "rollout_probs": np.array(position.probs + position.probs_stderr),
        "moves": np.array([[r["equity"], r["equity_stderr"], r["diff"], r["diff_stderr"], *r["probs"]] for r in moves]),
        "move_texts": np.array([format_gnubg(board, r["steps"]) for r in moves]),
        "selfplay": positions,
        "labels": labels,
        "labels_spread": spread,
        "cli": np.array(cli),
    }


@pytest.fixture(scope="module")
def in_process() -> dict[str, np.ndarray]:
    return run_everything(workers=1, ray_address=None)


def assert_same(expected: dict[str, np.ndarray], got: dict[str, np.ndarray]) -> None:
    assert expected.keys() == got.keys()
    for key in expected:
        np.testing.assert_array_equal(got[key], expected[key], err_msg=key)


def test_in_process_results_are_real_work(in_process):
    assert len(in_process["rollout_equities"]) == GAMES
    assert len(in_process["moves"]) == 3 and in_process["moves"][0, 2] == 0.0
    # 4 games of at least a dozen turns each, every position a legal board of 15 + 15 checkers
    assert len(in_process["selfplay"]) > 4 * 12
    assert (in_process["selfplay"].sum(axis=2) <= 15).all()
    assert len(in_process["labels"]) == len(in_process["selfplay"][::8])
    assert ((in_process["labels"] >= 0) & (in_process["labels"] <= 1)).all()
    assert len(in_process["labels_spread"]) == len(in_process["selfplay"][::16])
    assert ((in_process["labels_spread"] >= 0) & (in_process["labels_spread"] <= 1)).all()
    cli = json.loads(str(in_process["cli"]))
    assert cli["games"] == 12 and len(cli["moves"]) == 2


def test_two_local_processes_give_the_same_results(in_process):
    assert_same(in_process, run_everything(workers=2, ray_address=None))


def test_ray_gives_the_same_results(in_process, tmp_path):
    pytest.importorskip("ray", reason=f"Ray is not installed ({RAY_INSTALL_HINT}); the Ray backend is optional")
    out = tmp_path / "ray.npz"
    start = time.monotonic()
    child = subprocess.run(
        [sys.executable, __file__, str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=RAY_TIMEOUT,
        env=_child_env(),
    )
    assert child.returncode == 0, f"Ray child failed after {time.monotonic() - start:.0f} s:\n{child.stderr[-4000:]}"
    with np.load(out) as saved:
        got = {key: saved[key] for key in saved.files}
    driver_pid, task_pids = got.pop("driver_pid"), got.pop("task_pids")
    assert (task_pids != driver_pid).all()  # the work really ran in Ray workers
    assert_same(in_process, got)


def test_selfplay_parallel_keeps_the_positions_of_selfplay_positions():
    agent = load_agent(SPEC, ply=0)
    single = selfplay_positions(agent, SELFPLAY_GAMES, seed=3, explore=0.1)
    assert np.array_equal(selfplay_parallel(SPEC, SELFPLAY_GAMES, seed=3, explore=0.1), single)
    # one game at a time from its own index gives the same positions in the same order
    one_by_one = [selfplay_games(agent, 1, seed=3, explore=0.1, first_game=g) for g in range(SELFPLAY_GAMES)]
    assert np.array_equal(np.concatenate(one_by_one), single)


def test_selfplay_games_never_drops_positions_of_a_long_game():
    agent = load_agent(SPEC, ply=0)
    every = selfplay_games(agent, 2, seed=11, explore=0.1)
    # the fixed-size buffer of selfplay_positions is at most 240 here; a growing one
    # must hold the same prefix and never be shorter
    capped = selfplay_positions(agent, 2, seed=11, explore=0.1)
    assert len(every) >= len(capped) and np.array_equal(every[: len(capped)], capped)


@given(st.integers(0, 400), st.integers(1, 40))
def test_split_range_covers_every_index_once_in_order(total, parts):
    chunks = split_range(total, parts)
    assert [i for first, count in chunks for i in range(first, first + count)] == list(range(total))
    assert len(chunks) == min(parts, total)
    sizes = [count for _, count in chunks]
    assert all(size > 0 for size in sizes) and (not sizes or max(sizes) - min(sizes) <= 1)


def test_map_chunks_keeps_the_order_of_its_arguments():
    tasks = [(k, 3) for k in range(9)]
    expected = [divmod(k, 3) for k in range(9)]
    assert map_chunks(divmod, tasks) == expected
    assert map_chunks(divmod, tasks, workers=2) == expected


def test_missing_ray_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # makes `import ray` fail as if absent
    with pytest.raises(ParallelBackendError, match=re.escape(RAY_INSTALL_HINT)):
        map_chunks(divmod, [(1, 1)], ray_address="local")
    from fibsbot.cli import main

    assert main(["rollout", "--position-id", INITIAL_ID, "--games", "2", "--ray", "local"]) == 2
    assert RAY_INSTALL_HINT in capsys.readouterr().err


def test_unreachable_or_malformed_cluster_address_fails_fast():
    pytest.importorskip("ray", reason=f"Ray is not installed ({RAY_INSTALL_HINT}); the Ray backend is optional")
    with socket.socket() as probe:  # a port nobody listens at
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    start = time.monotonic()
    with pytest.raises(ParallelBackendError, match="no Ray cluster answers"):
        map_chunks(divmod, [(1, 1)], ray_address=f"127.0.0.1:{port}")
    with pytest.raises(ParallelBackendError, match="bad Ray address"):
        map_chunks(divmod, [(1, 1)], ray_address="not-an-address")
    assert time.monotonic() - start < 15


def _child_env() -> dict[str, str]:
    import os

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no usage report attempt from a test
    return env


def _task_pid(_task: int) -> int:
    import os

    return os.getpid()


def _ray_child(out: str) -> None:
    """Start a small local Ray, run everything through it, save the results, stop Ray."""
    import os
    import tempfile

    import ray

    # a short private session folder (Unix socket paths are limited to ~107 characters)
    with tempfile.TemporaryDirectory(prefix="fibsray-", ignore_cleanup_errors=True) as temp_dir:
        ray.init(
            num_cpus=2,
            include_dashboard=False,
            object_store_memory=100 * 1024 * 1024,
            log_to_driver=False,
            _temp_dir=temp_dir,
        )
        try:
            results = run_everything(workers=1, ray_address="local")  # Ray is up: the address only selects it
            results["task_pids"] = np.array(map_chunks(_task_pid, [(k,) for k in range(4)], ray_address="local"))
            results["driver_pid"] = np.array(os.getpid())
        finally:
            ray.shutdown()
    np.savez(out, **results)


if __name__ == "__main__":
    _ray_child(sys.argv[1])
