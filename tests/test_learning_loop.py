"""The parts of the learning loop around a retrain: labellers, the training mix, the
real-life benchmark and the gate."""

from __future__ import annotations

import json

import numpy as np
import pytest

from engine.rules.ids import board_from_position_id, position_id
from engine.rules.moves import MoveBuffers
from engine.rules.notation import format_gnubg
from nets.player import load_agent
from nets.train import labellers
from nets.train.benchmark import labelling
from nets.train.benchmark.scoring import SHIPPED_SET, read_benchmark
from nets.train.gate import judge, paired_benchmark
from nets.train.labellers import DEFAULT_ROLLOUT, LabellerError, RolloutLabeller, default_labeller, parse_labeller
from nets.train.labels import selfplay_positions
from nets.train.mix import mix, shipped_sets
from nets.train.real_life import held_out, latest, prune_versions, update_real_life, versions
from nets.train.retrain import log_positions


def test_rollout_labeller_specs_name_variance_reduction_and_pruning():
    assert parse_labeller("rollout:36+vr+prune") == RolloutLabeller(36, "default", varredn=True, prune=True)
    assert parse_labeller("rollout:8:td900k+prune") == RolloutLabeller(8, "td900k", prune=True)
    assert parse_labeller("rollout:36/324+vr+prune") == RolloutLabeller(36, "default", True, True, close_games=324)
    assert parse_labeller("rollout:36/324+vr").closer() == RolloutLabeller(324, "default", varredn=True)
    assert parse_labeller("rollout:36+vr").closer() is None
    for spec in ("rollout:36", "rollout:36+vr+prune", "rollout:8:td900k+prune", "rollout:36/324:td900k+vr"):
        assert parse_labeller(spec).spec == spec
    for bad in ("rollout:36+fast", "rollout:36+vr+vr", "rollout:0+vr", "rollout:36/0+vr", "rollout:36/+vr"):
        with pytest.raises(LabellerError, match="rollout:GAMES"):
            parse_labeller(bad)


def test_a_second_look_rolls_out_again_only_the_candidates_close_to_the_best():
    board = board_from_position_id("4HPwATDgc/ABMA")  # the opening position
    flipped = [labelling._results(board, 3, 1, MoveBuffers())]
    first = parse_labeller("rollout:2/6")
    margin = labelling.CLOSE_MARGIN
    deep = [np.array([0.10, 0.10 - margin / 2, 0.10 - 2 * margin])]
    again = labelling.look_again(first, flipped, [[0, 1, 2]], deep, seed=5)[0]
    second = labelling.mover_equities(first.closer().label(flipped[0][[0, 1]], seed=6))
    assert again[2] == deep[0][2]  # too far behind: its first look stands
    assert np.allclose(again[:2], 0.25 * deep[0][:2] + 0.75 * second)  # 2 games and 6 more, weighed by games
    crowded = [np.array([0.10, 0.09, 0.08, 0.07, 0.06])]  # all close: only the best CLOSE_KEEP look again
    again = labelling.look_again(first, flipped, [[0, 1, 2, 3, 4]], crowded, seed=5)[0]
    assert (
        labelling.CLOSE_KEEP == 3
        and np.array_equal(again[3:], crowded[0][3:])
        and not np.array_equal(again[:3], crowded[0][:3])
    )


def test_the_default_labeller_is_open_sage_at_3_ply_where_installed_else_our_rollouts(monkeypatch):
    def absent():
        raise LabellerError("not installed")

    monkeypatch.setattr(labellers, "_bgsage_batch", absent)
    assert default_labeller() == DEFAULT_ROLLOUT == "rollout:36+vr+prune"
    monkeypatch.setattr(labellers, "_bgsage_batch", lambda: object())
    assert default_labeller() == "bgsage@3"


def test_the_mix_adds_shipped_positions_in_proportion_to_the_sets(tmp_path):
    rng = np.random.default_rng(0)
    specs = []
    for name, size in (("a.npz", 300), ("b.npz", 100)):
        boards = rng.integers(0, 3, (size, 2, 25)).astype(np.int8)
        np.savez_compressed(tmp_path / name, boards=boards, sage1=np.full((size, 5), 0.25, np.float16))
        specs.append(f"{tmp_path / name}:sage1")
    own_boards = np.zeros((40, 2, 25), np.int8)
    own_labels = np.full((40, 5), 0.5, np.float32)
    boards, labels, extent = mix(own_boards, own_labels, specs, ratio=2.0, seed=3)
    assert len(boards) == len(labels) == 120 and extent["shipped_positions"] == 80
    assert sum(extent["sets"].values()) == 80 and extent["sets"]["a.npz"] > extent["sets"]["b.npz"] > 0
    assert np.array_equal(boards[:40], own_boards) and (labels[40:] == 0.25).all()
    assert mix(own_boards, own_labels, specs, ratio=0.0)[2]["shipped_positions"] == 0


def test_the_shipped_sets_are_the_ones_the_default_nets_card_names():
    specs = shipped_sets()
    card = json.loads((SHIPPED_SET.parents[1] / "nets" / "default.json").read_text())
    named = {entry["file"] for entry in card["retrain_sets"]}
    assert specs and {"/".join(s.split(":")[0].rsplit("/", 3)[-3:]) for s in specs} <= named
    # the six Open Sage sets by their Open Sage mean; the back games by our rollouts
    assert sum(s.endswith(":sage1+sage2") for s in specs) == 6
    back_games = [s for s in specs if "back-games" in s]
    assert len(back_games) == 1 and back_games[0].endswith("nets/runs/back-games/train.npz:rollout36")


def test_the_gate_promotes_only_beyond_the_paired_error_bar_and_not_worse_head_to_head():
    def real(diff, stderr=0.1):
        return {
            "positions": 500,
            "incumbent_error": 4.0,
            "candidate_error": 4.0 + diff,
            "difference": diff,
            "stderr": stderr,
        }

    level = {"games": 1000, "ppg": 0.0, "stderr": 0.02}
    assert judge(real(-0.3), level).promote
    assert not judge(real(-0.05), level).promote  # within the paired error bar: noise
    assert "not better" in judge(real(-0.05), level).reason
    assert not judge(real(-0.3), {"games": 1000, "ppg": -0.05, "stderr": 0.02}).promote
    assert judge(real(-0.3), {"games": 1000, "ppg": -0.01, "stderr": 0.02}).promote  # within one s.e.
    nothing = judge({"positions": 0}, level)
    assert not nothing.promote and "no real-life decisions" in nothing.reason


def test_a_net_against_itself_on_the_same_decisions_differs_by_nothing():
    agent = load_agent("net:default@0")
    benchmark = read_benchmark(SHIPPED_SET).limited(30)
    figures = paired_benchmark(agent, agent, benchmark)
    assert figures["positions"] == 30 and figures["difference"] == 0.0 and figures["stderr"] == 0.0
    assert figures["incumbent_error"] == figures["candidate_error"] > 0


def _log_decisions(path, boards, rng) -> list[tuple[str, tuple[int, int]]]:
    """Move decisions as the daemon logs them, the move chosen by the default net."""
    agent = load_agent("net:default@0")
    lines, keys = [], []
    for board in boards:
        d1, d2 = (int(x) for x in rng.integers(1, 7, 2))
        best = agent.rank_moves(board, d1, d2)[0]
        move = format_gnubg(board, best.steps)
        lines.append(
            json.dumps(
                {"event": "decision", "kind": "move", "position_id": position_id(board), "dice": [d1, d2], "move": move}
            )
        )
        keys.append((position_id(board), (d1, d2)))
    with path.open("a", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")
    return keys


def test_the_real_life_benchmark_grows_by_versions_and_keeps_every_decision(tmp_path):
    rng = np.random.default_rng(5)
    boards = selfplay_positions(load_agent("net:default@0"), 4, seed=41)[10:150]
    (tmp_path / "log").mkdir()
    log = tmp_path / "log" / "fibsbot.jsonl"
    logged = _log_decisions(log, boards[:80], rng)
    cheap = dict(labeller="net:default@0", search="net:default@0")
    first = update_real_life(tmp_path, max_new=5, **cheap)
    assert first.version == 1 and 0 < first.added <= 5 and first.positions == first.added
    v1 = read_benchmark(first.path)
    assert v1.meta["set"] == "real-life" and v1.meta["labeller"] == "net:default@0" and not v1.cubes
    # only the benchmark's share of the logged decisions, which retrain never trains on
    shares = {key: held_out(board_from_position_id(key[0]), key[1]) for key in logged}
    assert 0 < sum(shares.values()) < len(shares)
    assert all(shares[(r.position_id, tuple(r.dice))] for r in v1.moves)
    second = update_real_life(tmp_path, max_new=50, **cheap)  # the rest of the logged decisions
    v2 = read_benchmark(second.path)
    assert second.version == 2 and [r.position_id for r in v2.moves[: len(v1.moves)]] == [
        r.position_id for r in v1.moves
    ]
    assert len({(r.position_id, r.dice) for r in v2.moves}) == len(v2.moves)  # no decision twice
    again = update_real_life(tmp_path, max_new=50, **cheap)  # nothing new logged: no new version
    assert again.added == 0 and again.version == 2 and [v for v, _ in versions(tmp_path)] == [1, 2]
    _log_decisions(log, boards[80:], rng)
    third = update_real_life(tmp_path, max_new=50, **cheap)
    assert third.version == 3 and third.positions > second.positions and latest(tmp_path)[0] == 3
    # another labeller's figures are never mixed into a version: it starts a series of its own
    other = update_real_life(tmp_path, max_new=4, labeller="net:default@1", search="net:default@0")
    v4 = read_benchmark(other.path)
    assert other.version == 4 and other.positions == other.added <= 4 and v4.meta["labeller"] == "net:default@1"
    assert {m.by for r in v4.moves for m in r.moves} <= {"net:default@0", "net:default@1"}


def test_retrain_never_trains_on_the_benchmarks_share_of_logged_decisions(tmp_path):
    rng = np.random.default_rng(6)
    boards = selfplay_positions(load_agent("net:default@0"), 2, seed=43)[5:65]
    logged = _log_decisions(tmp_path / "fibsbot.jsonl", boards, rng)
    kept = {position_id(b) for b in log_positions(tmp_path)}
    for (pid, dice), board in zip(logged, boards):
        assert held_out(board, dice) == held_out(np.ascontiguousarray(board[::-1]), dice[::-1])  # either view
        assert (pid in kept) != held_out(board, dice) or any(
            (other == pid and not held_out(b, d)) for (other, d), b in zip(logged, boards)
        )


def test_only_the_newest_real_life_versions_are_kept(tmp_path):
    folder = tmp_path / "benchmarks"
    folder.mkdir()
    for number in range(1, 12):
        (folder / f"real-life-v{number}.jsonl.gz").write_bytes(b"")
    assert prune_versions(tmp_path, keep=8) == [1, 2, 3]
    assert [number for number, _ in versions(tmp_path)] == list(range(4, 12))
