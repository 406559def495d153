"""A benchmark set judged by a labeller: candidates re-scored at its deep level, the
other results placed below them, the labeller in the meta, resuming from the
journal, and the Open Sage player."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import fibsbot.cli.benchmark  # noqa: F401  registers `benchmark` and `benchmark-build`
from engine.rules.ids import board_from_position_id, position_id
from engine.rules.moves import MoveBuffers, generate_moves
from fibsbot.cli import main
from nets.train.benchmark.build import build_benchmark
from nets.train.benchmark.labelling import labeller_levels, mover_equities, place_unscored
from nets.train.benchmark.players import make_player
from nets.train.benchmark.scoring import Benchmark, BenchmarkError, move_loss, read_benchmark, score, write_benchmark
from nets.train.labellers import parse_labeller

TINY = {"n_moves": 6, "n_cube": 2, "seed": 5, "sources": ("selfplay",)}


def deep_equities(labeller: str, record) -> dict[str, float]:
    """Each legal result's equity for the mover by the labeller's deep level, computed here."""
    board = board_from_position_id(record.position_id)
    buffers = MoveBuffers()
    n = generate_moves(board, *record.dice, *buffers.args())
    flipped = buffers.boards[:n, ::-1].copy()
    equities = mover_equities(parse_labeller(labeller_levels(labeller).deep).label(flipped))
    return {position_id(f): float(e) for f, e in zip(flipped, equities)}


def check_rescored(built: Benchmark, labeller: str) -> int:
    """Every record: the best is the labeller's best of the re-scored moves, at its deep
    level, and no unscored move sits above a re-scored one.  Returns the unscored count."""
    levels = labeller_levels(labeller)
    unscored = 0
    for record in built.moves:
        deep = deep_equities(labeller, record)
        assert {m.position_id for m in record.moves} == set(deep)  # every legal result listed
        rescored = [m for m in record.moves if m.by == levels.deep]
        others = [m for m in record.moves if m.by != levels.deep]
        assert record.moves[: len(rescored)] == tuple(rescored)
        for move in rescored:
            assert move.equity == pytest.approx(deep[move.position_id], abs=1e-5)
            assert move.ply == levels.deep_depth
        assert record.moves[0].position_id == max(rescored, key=lambda m: deep[m.position_id]).position_id
        if not others:  # all judged deeply: the best is the labeller's best of every legal move
            assert record.moves[0].position_id == max(deep, key=deep.get)
        assert all(m.equity <= rescored[-1].equity and m.ply == levels.cheap_depth for m in others)
        unscored += len(others)
    return unscored


def test_unscored_moves_are_shifted_by_the_decisions_offset_and_capped():
    cheap = np.array([0.30, 0.10, 0.05, 0.20, -0.40])
    deep = {0: 0.20, 3: 0.16}  # the deep level thinks 0.1 and 0.04 less: mean offset -0.07
    placed = place_unscored(cheap, deep)
    assert placed[0] == 0.20 and placed[3] == 0.16
    assert placed[1] == pytest.approx(0.03) and placed[4] == pytest.approx(-0.47)
    # an unscored move whose shifted figure beats a re-scored one is held at the worst re-scored
    assert place_unscored(np.array([0.0, 0.5, 0.45]), {0: 0.1, 1: 0.3})[2] == pytest.approx(0.1)


def test_net_labelled_build_records_its_labeller_and_ranks_rescored_moves_first(tmp_path):
    built = build_benchmark(labeller="net:default@1", search="net:default@0", **TINY)
    assert len(built.moves) == 6 and len(built.cubes) > 0
    meta = built.meta
    assert meta["labeller"] == "net:default@1" and meta["search"] == "net:default@0"
    assert meta["levels"] == {"cheap": "net:default@0", "deep": "net:default@1", "cheap_depth": 0, "deep_depth": 1}
    assert meta["labeller_card"]["file"] == "default.npz" and "unscored" in meta
    assert check_rescored(built, "net:default@1") == meta["unscored_moves"] > 0
    assert read_benchmark(write_benchmark(tmp_path / "set.jsonl.gz", built)) == built


def test_an_interrupted_build_resumes_from_its_journal(tmp_path, monkeypatch):
    journal = tmp_path / "set.labels.jsonl"
    first = build_benchmark(labeller="net:default@0", search="net:default@0", journal=journal, **TINY)
    assert journal.exists() and len(journal.read_text().splitlines()) > len(first.moves)

    def no_labelling(*args):
        raise AssertionError("a resumed build labelled again")

    monkeypatch.setattr("nets.train.benchmark.build.label_moves", no_labelling)
    monkeypatch.setattr("nets.train.benchmark.build.label_cubes", no_labelling)
    again = build_benchmark(labeller="net:default@0", search="net:default@0", journal=journal, **TINY)
    assert again.moves == first.moves and again.cubes == first.cubes
    with pytest.raises(AssertionError, match="labelled again"):  # another setup never reads that journal
        build_benchmark(labeller="net:default@0", search="net:default@0", journal=journal, **{**TINY, "seed": 6})


def test_bgsage_labelled_build_and_the_bgsage_player(tmp_path, capsys):
    pytest.importorskip("bgsage", reason="the optional package bgsage is not installed")
    out = tmp_path / "sage.jsonl.gz"
    assert (
        main(
            [
                "benchmark-build",
                "--out",
                str(out),
                "--labeller",
                "bgsage@2",
                "--search",
                "net:default@0",
                "--moves",
                "6",
                "--cube",
                "2",
                "--seed",
                "5",
                "--sources",
                "selfplay",
            ]
        )
        == 0
    )
    built = read_benchmark(out)
    assert not (tmp_path / "sage.jsonl.gz.labels.jsonl").exists()  # the journal goes once the set is written
    assert built.meta["labeller"] == "bgsage@2" and built.meta["labeller_card"]["package"] == "bgsage"
    check_rescored(built, "bgsage@2")
    # one level: every move judged by the labels of bgsage's 1-ply
    single = build_benchmark(labeller="bgsage@1", search="net:default@0", **TINY)
    assert all(m.by == "bgsage@1" and m.ply == 0 for r in single.moves for m in r.moves)
    assert single == build_benchmark(labeller="bgsage@1", search="net:default@0", **TINY)  # deterministic
    # bgsage's own checker play values every result of a roll with the net the position
    # before the move calls for, the labels each result with its own: near, not equal
    player = make_player("bgsage@1")
    for record in single.moves:
        assert move_loss(record, player.result(board_from_position_id(record.position_id), *record.dice)) < 0.05
    result = score(player, single)
    assert result["player"] == "bgsage@1" and result["moves"]["overall"]["n"] == 6
    assert result["cube"]["error"] == 0.0  # its cube probabilities are the labels themselves


def test_bgsage_missing_is_one_clear_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "bgsage", None)  # importing bgsage now fails
    monkeypatch.setitem(sys.modules, "bgsage.batch", None)
    with pytest.raises(BenchmarkError, match="needs the optional package bgsage"):
        make_player("bgsage@1")
    path = write_benchmark(tmp_path / "empty.jsonl.gz", Benchmark())
    assert main(["benchmark", "bgsage@1", "--set", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "pip install 'fibsbot[bgsage]'" in err and len(err.splitlines()) == 1
    assert main(["benchmark-build", "--out", str(tmp_path / "x.jsonl.gz"), "--labeller", "bgsage@3"]) == 2
    err = capsys.readouterr().err.strip()
    assert "optional package" in err and len(err.splitlines()) == 1
    assert main(["benchmark", "bgsage@9", "--set", str(path)]) == 2
    assert "unknown player" in capsys.readouterr().err
