"""The JSON log on a bounded disk: rotation into compressed segments, the cap, crash safety,
and every reader of ``DATA/log`` seeing the rotated lines."""

from __future__ import annotations

import gzip
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import structlog

from fibsbot.records import logfiles as rotation
from fibsbot.records.events import configure_logging, event_logger
from fibsbot.records.logfiles import RotatingLog
from nets import logfiles

KB = 1024


def _line(i: int, width: int = 200) -> str:
    # random text (seeded) compresses about as little as the log's board lines, unlike "xxxx"
    return json.dumps({"event": "recv", "n": i, "pad": random.Random(i).randbytes(width // 2).hex()}) + "\n"


def test_a_log_past_its_cap_rotates_into_compressed_segments_and_stays_under_it(tmp_path):
    folder = tmp_path / "log"
    log = RotatingLog(folder / "fibsbot.jsonl", max_bytes=64 * KB, segment_bytes=16 * KB)
    written = 0
    for i in range(3000):  # ~700 KB of lines: more than ten times the cap
        log.write(_line(i))
        written += 1
        assert logfiles.size(folder) <= 64 * KB
    segments = [p for p in logfiles.log_files(folder) if logfiles.parse(p)[1] is not None]
    assert segments and all(p.name.endswith(".jsonl.gz") for p in segments)
    # the oldest went first: what is left is the newest lines, whole and in order
    numbers = [json.loads(line)["n"] for line in logfiles.lines(logfiles.log_files(folder))]
    assert numbers == list(range(numbers[0], written))
    assert numbers[0] > 0


def test_structlog_lines_go_through_the_rotation(tmp_path):
    logger = event_logger(tmp_path / "events.jsonl", max_bytes=64 * KB)
    for i in range(1500):
        logger.info("decision", n=i, pad=random.Random(i).randbytes(60).hex())
    assert any(p.name.endswith(".gz") for p in tmp_path.iterdir())
    seen = [json.loads(line)["n"] for line in logfiles.lines(logfiles.log_files(tmp_path))]
    assert seen[-1] == 1499 and seen == sorted(seen)


def test_a_kill_between_the_steps_loses_and_doubles_nothing(tmp_path):
    folder = tmp_path / "log"
    folder.mkdir()
    # step 1 done, step 2 not: an uncompressed segment; step 2 done, 3 not: both forms of another
    (folder / "fibsbot.000001.jsonl").write_text("".join(_line(i, 10) for i in range(0, 5)))
    (folder / "fibsbot.000002.jsonl").write_text("".join(_line(i, 10) for i in range(5, 10)))
    with gzip.open(folder / "fibsbot.000002.jsonl.gz", "wt") as packed:
        packed.write("".join(_line(i, 10) for i in range(5, 10)))
    (folder / "fibsbot.jsonl").write_text("".join(_line(i, 10) for i in range(10, 12)))
    (folder / ".fibsbot.000003.jsonl.gz.x.tmp").write_bytes(b"\x1f\x8b half")  # a compression cut short
    os.utime(folder / ".fibsbot.000003.jsonl.gz.x.tmp", (1, 1))
    # a reader before any writer came back sees each line once
    numbers = [json.loads(line)["n"] for line in logfiles.lines(logfiles.log_files(folder))]
    assert numbers == list(range(12))
    log = RotatingLog(folder / "fibsbot.jsonl", max_bytes=1024 * KB, adopt=True)
    log.write(_line(12, 10))
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["fibsbot.000001.jsonl.gz", "fibsbot.000002.jsonl.gz", "fibsbot.jsonl"]
    numbers = [json.loads(line)["n"] for line in logfiles.lines(logfiles.log_files(folder))]
    assert numbers == list(range(13))


_KILLED_WRITER = """
import os, sys
from fibsbot.records.logfiles import RotatingLog
log = RotatingLog(__import__("pathlib").Path(sys.argv[1]), max_bytes=10**9, segment_bytes=4096, adopt=True)
for i in range(10**9):
    log.write('{"n": %d, "pad": "%s"}\\n' % (i, "z" * 50))
    print(i, flush=True)
"""


def test_a_writer_killed_at_a_random_moment_leaves_every_line_it_wrote(tmp_path):
    folder = tmp_path / "log"
    proc = subprocess.Popen(
        [sys.executable, "-c", _KILLED_WRITER, str(folder / "fibsbot.jsonl")], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    last = -1
    for line in proc.stdout:  # kill once it has rotated a few dozen times, mid-stream
        last = int(line)
        if last >= 3000:
            break
    proc.kill()
    proc.wait()
    RotatingLog(folder / "fibsbot.jsonl", max_bytes=10**9, segment_bytes=4096, adopt=True).close()  # tidies
    numbers = [json.loads(line)["n"] for line in logfiles.lines(logfiles.log_files(folder))]
    assert numbers[: last + 1] == list(range(last + 1))  # every line it reported written, once, in order
    assert len(numbers) == len(set(numbers))


def test_an_old_log_nobody_writes_is_rotated_and_counts_under_the_cap(tmp_path):
    folder = tmp_path / "log"
    folder.mkdir()
    (folder / "arena-20240101-000000.jsonl").write_text("".join(_line(i) for i in range(400)))  # ~90 KB, unheld
    log = RotatingLog(folder / "fibsbot.jsonl", max_bytes=64 * KB, adopt=True)
    log.write(_line(0))
    assert not (folder / "arena-20240101-000000.jsonl").exists()
    assert logfiles.size(folder) <= 64 * KB


def test_a_held_log_is_left_to_its_writer(tmp_path):
    folder = tmp_path / "log"
    arena = RotatingLog(folder / "arena-1.jsonl", max_bytes=1024 * KB, adopt=True)
    arena.write(_line(1))
    RotatingLog(folder / "fibsbot.jsonl", max_bytes=1024 * KB, adopt=True).write(_line(2))
    assert (folder / "arena-1.jsonl").read_text() == _line(1)


def test_retrain_reads_decisions_from_rotated_segments(tmp_path):
    from nets.train.retrain import log_positions

    folder = tmp_path / "log"
    configure_logging(folder / "fibsbot.jsonl", max_bytes=64 * KB)
    logger = structlog.get_logger("test")
    _log_decisions(logger)
    structlog.reset_defaults()
    assert any(p.name.endswith(".gz") for p in folder.iterdir())
    in_segments = sum(
        1
        for path in logfiles.log_files(folder)
        if path.name.endswith(".gz")
        for line in logfiles.read_lines(path)
        if '"decision"' in line
    )
    assert log_positions(folder, limit=10**6) and in_segments > 0
    assert len(log_positions(folder, limit=10**6)) == sum(
        1 for line in logfiles.lines(logfiles.log_files(folder)) if '"decision"' in line
    ) - _held_out_count(folder)


def _log_decisions(logger, **extra) -> None:
    """600 move decisions at the opening position (the ones retrain collects), padded so they
    fill several segments."""
    for i in range(600):
        logger.info(
            "decision",
            kind="move",
            position_id="4HPwATDgc/ABMA",
            dice=[3, 1],
            n=i,
            pad=random.Random(i).randbytes(60).hex(),
            **extra,
        )


def _held_out_count(folder: Path) -> int:
    from engine.rules.ids import board_from_position_id
    from nets.train.real_life import held_out

    count = 0
    for line in logfiles.lines(logfiles.log_files(folder)):
        if '"decision"' in line:
            event = json.loads(line)
            count += held_out(board_from_position_id(event["position_id"]), tuple(event["dice"]))
    return count


def test_the_real_life_benchmark_and_arena_logs_read_segments(tmp_path):
    from nets.train.benchmark.sources import arena_decisions

    folder = tmp_path / "log"
    logger = event_logger(folder / "fibsbot.jsonl", max_bytes=64 * KB)
    _log_decisions(logger, move="8/5 6/5")
    moves, _ = arena_decisions(str(folder / "*.jsonl"))
    expected = sum(1 for line in logfiles.lines(logfiles.log_files(folder)) if '"decision"' in line)
    assert expected > sum(1 for line in logfiles.read_lines(folder / "fibsbot.jsonl") if '"decision"' in line)
    assert len(moves) == expected


def test_the_chaos_audit_counts_lines_of_rotated_segments(tmp_path):
    from fibsbot.arena.chaos_report import log_text

    folder = tmp_path / "log"
    logger = event_logger(folder / "fibsbot.jsonl", max_bytes=64 * KB)
    for i in range(800):
        logger.warning("observer failed", n=i, pad=random.Random(i).randbytes(60).hex())
    assert any(p.name.endswith(".gz") for p in folder.iterdir())
    text = log_text(tmp_path)
    assert text.count("observer failed") == sum(
        1 for line in logfiles.lines(logfiles.log_files(folder, "fibsbot")) if "observer failed" in line
    )
    assert text.count("observer failed") > folder.joinpath("fibsbot.jsonl").read_text().count("observer failed")


def test_segment_size_follows_the_cap():
    assert rotation.segment_bytes_for(1024 * KB) == 128 * KB
    assert rotation.segment_bytes_for(10**12) == rotation.MAX_SEGMENT
    assert rotation.segment_bytes_for(1) == rotation.MIN_SEGMENT
