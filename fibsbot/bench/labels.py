"""`fibsbot bench --only labels`: how fast each labeller of ``fibsbot retrain`` labels here.

The labellers (``nets.train.labellers``) label the same self-play positions (side on
roll, before its roll); a real-life benchmark decision (``nets.train.real_life``) is
labelled the way retrain labels it, by re-scoring its candidate moves with rollouts.
The rates are per CPU hour of this process (Open Sage's threads included), so they
hold for one core whatever else runs beside.
"""

from __future__ import annotations

import time

import numpy as np

from fibsbot.bench.speed import register_benchmark

POSITIONS = 24
DECISIONS = 2


def _cpu_seconds(fn) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def bench_labels() -> dict:
    from nets.player import load_agent
    from nets.train.benchmark.labelling import LabelSetup, label_moves
    from nets.train.labellers import DEFAULT_ROLLOUT, LabellerError, default_labeller, parse_labeller
    from nets.train.labels import selfplay_positions
    from nets.train.real_life import REAL_LIFE_LABELLER

    boards = selfplay_positions(load_agent("net:default@0"), 4, seed=77)[::7][:POSITIONS]
    rates: dict[str, dict] = {}
    for spec in dict.fromkeys(("bgsage@3", "bgsage@1", DEFAULT_ROLLOUT)):
        labeller = parse_labeller(spec)
        try:
            labeller.require()
        except LabellerError as exc:
            rates[spec] = {"skipped": str(exc)}
            continue
        labeller.label(boards[:1])  # load or compile first
        cpu = _cpu_seconds(lambda labeller=labeller: labeller.label(boards))
        rates[spec] = {
            "positions": len(boards),
            "cpu_s": round(cpu, 2),
            "per_cpu_hour": round(3600 * len(boards) / cpu),
        }
    rng = np.random.default_rng(5)
    items = [(boards[i], int(rng.integers(1, 7)), int(rng.integers(1, 7))) for i in range(DECISIONS)]
    setup = LabelSetup(labeller=REAL_LIFE_LABELLER)
    label_moves(setup, items[:1])  # load the search and compile
    cpu = _cpu_seconds(lambda: label_moves(setup, items))
    return {
        "labels": {
            "default": default_labeller(),
            "labellers": rates,
            "real_life_decision": {
                "labeller": REAL_LIFE_LABELLER,
                "decisions": DECISIONS,
                "cpu_s_per_decision": round(cpu / DECISIONS, 2),
            },
            "sample": f"{len(boards)} self-play positions of net:default@0 (seed 77); rates per CPU hour",
        }
    }


register_benchmark("labels", bench_labels)
