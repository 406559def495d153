#!/usr/bin/env python3
"""Trial: rebuild the candidate a retrain refused, from its data dir, to measure it further.

Retrains from before the refused candidate was kept (``DATA/training/candidate``)
threw it away.  Training is deterministic for the same set, config and seed, so this
trains it again as ``fibsbot retrain`` did (``RetrainConfig``'s defaults), checks that
it is the net the gate judged (its real-life figures must equal the report's), and
writes it where ``net:OUT/net@0`` plays it.

    python scripts/trials/rebuild_candidate.py --data-dir D --out D/training/candidate
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from engine.players.agent import Agent
from nets.player import load_agent
from nets.store import keep_refused
from nets.train.benchmark.scoring import read_benchmark
from nets.train.gate import paired_benchmark
from nets.train.real_life import latest
from nets.train.retrain import RetrainConfig, RetrainReport, TrainingSet, _train_candidate, incumbent_spec


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True, type=Path)
    parser.add_argument("--out", required=True, type=Path)
    args = parser.parse_args()
    config = RetrainConfig(args.data_dir)
    spec, _ = incumbent_spec(config)
    incumbent = load_agent(spec, ply=0)
    report = RetrainReport()
    candidate = _train_candidate(incumbent, TrainingSet(args.data_dir / "training" / "set.npz"), config, report, print)
    newest = latest(args.data_dir)
    if newest is None:
        raise SystemExit(f"{args.data_dir} has no real-life benchmark to check the rebuild against")
    figures = paired_benchmark(incumbent, Agent(candidate, 0), read_benchmark(newest[1]))
    reports = (args.data_dir / "training" / "retrains.jsonl").read_text().splitlines()
    verdicts = [r for r in map(json.loads, reports) if (r.get("real_life_benchmark") or {}).get("positions")]
    judged = verdicts[-1]["real_life_benchmark"] if verdicts else {}
    same = all(judged.get(k) == figures[k] for k in ("incumbent_error", "candidate_error"))
    print(json.dumps({"rebuilt": figures, "judged": judged, "same": same}))
    keep_refused(candidate, args.out, training=report.fit, rebuilt_from=str(args.data_dir))
    print(f"wrote {args.out}/net.npz: net:{args.out}/net@0 plays it")


if __name__ == "__main__":
    main()
