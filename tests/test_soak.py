"""The soak's sampler and summary (``fibsbot.arena.soak``)."""

from __future__ import annotations

import json
import os

from fibsbot.arena.soak import BASELINE_MATCH, Sampler, summarise


def _decision(seconds: float) -> str:
    return json.dumps({"event": "decision", "kind": "move", "seconds": seconds}) + "\n"


def test_a_sample_reads_the_process_and_the_decisions_logged_since_the_last(tmp_path):
    log = tmp_path / "data" / "log"
    log.mkdir(parents=True)
    current = log / "fibsbot.jsonl"
    current.write_text(_decision(0.5) + _decision(0.1) + json.dumps({"event": "recv", "line": "x"}) + "\n")
    sampler = Sampler(tmp_path / "samples.jsonl", tmp_path / "data", log_cap_mb=1.0)

    first = sampler(1, os.getpid())
    assert first["rss_kib"] > 0 and first["fds"] > 0
    assert first["cpu_s"] > 0  # this process has run pytest's imports at least
    assert (first["decisions"], first["decision_max_s"], first["decision_median_s"]) == (2, 0.5, 0.3)
    assert first["log_bytes"] == current.stat().st_size

    with open(current, "a") as handle:  # a line half written when the sample is taken waits for its end
        handle.write(_decision(0.2) + '{"event": "decision", "seconds": 0.')
    assert sampler(2, os.getpid())["decisions"] == 1
    with open(current, "a") as handle:
        handle.write("7}\n")
    assert sampler(3, os.getpid())["decision_max_s"] == 0.7

    current.write_text(_decision(0.05))  # rotated: the new file is read from its start
    assert sampler(4, os.getpid())["decisions"] == 1
    assert len((tmp_path / "samples.jsonl").read_text().splitlines()) == 4


def _samples(path, rss_last: int, fds_last: int, log_bytes: int) -> None:
    rows = []
    for match in range(1, BASELINE_MATCH + 51):
        last = match == BASELINE_MATCH + 50
        rows.append(
            {
                "match": match,
                "elapsed_s": match * 2.0,
                "pid": 7,
                "rss_kib": rss_last if last else 100_000,
                "cpu_s": match * 0.5,
                "fds": fds_last if last else 20,
                "decisions": 30,
                "decision_median_s": 0.002,
                "decision_max_s": 0.01,
                "data_bytes": 1000 * match,
                "log_bytes": log_bytes,
                "log_cap_mb": 1.0,
            }
        )
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))


def test_the_summary_compares_the_last_sample_with_the_baseline_match(tmp_path):
    path = tmp_path / "samples.jsonl"
    _samples(path, rss_last=100_900, fds_last=20, log_bytes=900_000)
    summary = summarise(path)
    assert summary["baseline_match"] == BASELINE_MATCH
    assert summary["memory_flat"] and summary["fds_flat"] and summary["log_within_cap"]
    assert summary["memory_flat_medians"] and summary["fds_flat_medians"]
    assert summary["decisions"] == 30 * (BASELINE_MATCH + 50)

    _samples(path, rss_last=101_500, fds_last=22, log_bytes=2_000_000)  # 1.5% more memory, 2 descriptors leaked
    summary = summarise(path)
    assert not summary["memory_flat"] and not summary["fds_flat"] and not summary["log_within_cap"]
    assert summary["memory_flat_medians"]  # one sample is not the trend of the last fifty


def test_a_leak_moves_the_medians_too(tmp_path):
    path = tmp_path / "samples.jsonl"
    rows = [
        {
            "match": m,
            "elapsed_s": m,
            "pid": 7,
            "rss_kib": 100_000 + 100 * m,
            "fds": 12 + m // 50,
            "decisions": 1,
            "decision_median_s": 0.01,
            "decision_max_s": 0.02,
            "data_bytes": 1,
            "log_bytes": 1,
            "log_cap_mb": None,
        }
        for m in range(1, 401)
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    summary = summarise(path)
    assert not summary["memory_flat_medians"] and not summary["fds_flat_medians"]


def test_the_summary_compares_the_first_and_last_matches_times(tmp_path):
    path = tmp_path / "samples.jsonl"
    _samples(path, rss_last=100_000, fds_last=20, log_bytes=1)
    summary = summarise(path)  # every match took 2 s
    assert summary["match_s_medians"]["first"] == summary["match_s_medians"]["last"] == 2.0
    assert summary["match_time_flat"] and summary["match_cpu_s_flat"]
    assert summary["match_cpu_s_medians"]["first"] == 0.5

    rows = [json.loads(line) for line in path.read_text().splitlines()]
    elapsed = 0.0
    for row in rows:  # each match a little slower than the one before: 2 s at the start, 4 s at the end
        elapsed += 2.0 + 2.0 * row["match"] / len(rows)
        row["elapsed_s"] = elapsed
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    summary = summarise(path)
    assert summary["match_s_medians"]["last"] > 1.1 * summary["match_s_medians"]["first"]
    assert not summary["match_time_flat"]
    assert summary["match_cpu_s_flat"]  # the machine was slower, the daemon's work the same
