#!/usr/bin/env python3
"""Trial (rejected): a short rollout behind close cube decisions of the table level.

For each cube position of a ``check_cube_vs_gnubg.py --referee --json`` run, this
computes the table level's cube equities (the mean of cubeful 2- and 3-ply) and,
where they are within 0.4 EMG of the double or the take point, a truncated,
variance-reduced rollout of the net's 0-ply (``GAMES`` games, ``TURNS`` turns, the
pruning net keeping 8, seed from the position).  The trial's correction moved each
cube equity by what the rollout's probabilities change in the 0-ply cubeful equity
against the cubeless 2-ply probabilities; ``cube_rollout_report.py`` judges every
variant by the referee's equities.  Result and reasons: docs/strength.md, "Match
play: trials that did not help".

    python scripts/check_cube_vs_gnubg.py --positions 400 --seed 90125 --ply 2 \
        --player net:default@2 --referee --json > cube.json
    python scripts/trials/cube_rollout.py cube.json rows.jsonl
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.cube.cubeful import cube_equities  # noqa: E402
from engine.cube.decision import cube_life  # noqa: E402
from engine.rollout.cubeless import rollout_position  # noqa: E402
from engine.rules.ids import parse_xgid  # noqa: E402
from nets.player import load_agent  # noqa: E402

GAMES, TURNS, PRUNE, WINDOW = 144, 9, 8, 0.4


def position_seed(board: np.ndarray) -> int:
    return int.from_bytes(hashlib.blake2b(board.tobytes(), digest_size=8).digest(), "little") >> 1


def close(eq: dict[str, float]) -> bool:
    nd, dt, dp = eq["no_double"], eq["double_take"], eq["double_drop"]
    return abs(min(dt, dp) - nd) < WINDOW or abs(dt - dp) < WINDOW


def main() -> None:
    source, out = sys.argv[1], Path(sys.argv[2])
    rows = json.load(open(source))["rows"]
    done = {json.loads(line)["i"] for line in out.open()} if out.exists() else set()
    agent = load_agent("net:default@2")
    with out.open("a") as sink:
        for i, row in enumerate(rows):
            if i in done:
                continue
            board, state = parse_xgid(row["xgid"])
            board = np.ascontiguousarray(board, np.int8)
            p0, p2 = agent.probabilities(board, 0), agent.probabilities(board, 2)
            e2, e3 = (cube_equities(agent.tree, board, p0, state, k) for k in (2, 3))
            record = {"i": i, "xgid": row["xgid"], "scenario": row["scenario"], "referee": row["referee"]}
            record |= {"gnubg": row["gnubg"], "p0": p0.tolist(), "p2": p2.tolist(), "e2": e2, "e3": e3}
            record["life"] = cube_life(board)
            if close({k: 0.5 * (e2[k] + e3[k]) for k in e2}):
                result = rollout_position(
                    board, GAMES, agent=agent, varredn=True, max_turns=TURNS, prune=PRUNE, seed=position_seed(board)
                )
                rolled = np.asarray(result.probs)
                record |= {"pr": rolled.tolist(), "se": result.equity_stderr}
                record["jr"] = cube_equities(agent.tree, board, rolled, state, 0)
                record["j2"] = cube_equities(agent.tree, board, p2, state, 0)
            sink.write(json.dumps(record) + "\n")
            sink.flush()


if __name__ == "__main__":
    main()
