"""The retrain service's own command line, run on an arena data dir, finishes a round and
`fibsbot status` shows it (with the smallest sizes: the unit's defaults take hours)."""

from __future__ import annotations

import shlex

from fibsbot.arena.play import run_arena
from tests.test_cli import run_cli
from tests.test_retrain import tiny_pair
from tests.test_systemd_retrain_units import SERVICE
from tests.test_systemd_unit import directives

# the smallest round; no duels in the gate (--gate-games 1): numba compiles the duel loop
# afresh on every run, most of a minute here, and test_retrain.py measures them
SMALLEST = [
    "--labeller", "incumbent", "--label-ply", "1", "--selfplay-games", "2", "--epochs", "1",
    "--real-life-new", "4", "--real-life-labeller", "net:default@0", "--gate-games", "1",
]  # fmt: skip


async def test_the_services_command_line_retrains_an_arena_data_dir_and_status_shows_the_round(tmp_path):
    net = tiny_pair(tmp_path)
    state = tmp_path / "state"  # what systemd's %S stands for
    data_dir = state / "fibsbot"
    await run_arena(length=1, matches=1, ply=0, net=net, data_dir=data_dir, seed=5, warmup=False)
    (command,) = directives(SERVICE.read_text())["ExecStart"]
    words = shlex.split(command.replace("%S", str(state)))
    assert words[1] == "retrain"
    code, out, err = run_cli([*words[1:], "--net", net, *SMALLEST])
    assert code == 0, err
    assert "kept the incumbent" in out or "promoted as version" in out
    code, out, err = run_cli(["status", "--data-dir", str(data_dir)])
    assert code == 0, err
    assert "retrain rounds: 1" in out
    (line,) = [x for x in out.splitlines() if x.startswith("  1. ")]
    assert f"positions labelled by net:{net}@1" in line
    assert "real-life benchmark v1 (" in line and "+/-" in line
    assert "promoted as" in line or "not promoted" in line
