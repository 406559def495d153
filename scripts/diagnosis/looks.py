"""The match-play side: the table level against gnubg 1.07's 2-ply from the looks files
(``scripts/referee/compare_looks.py``), broken down by the same classes with no new rollouts.

Each row there holds the decision's XGID, its pooled candidates (gnubg notation), each
player's pick among them and, where the picks differ, the candidates' cubeful rolled-out
means (EMG) and their covariance over the common-dice games.  A decision's loss is
gnubg's pick's mean minus the table level's, its variance the paired difference's
from the covariance.  Closeness is our net's cubeless 0-ply equity gap between the
two picks, as in money play, so both tables bucket alike.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from engine.rules.ids import parse_xgid
from engine.rules.moves import MoveBuffers, apply_steps, generate_moves, steps_to_move
from engine.rules.notation import format_gnubg, parse_gnubg
from engine.rules.position import IdError, position_id
from scripts.diagnosis.judge import DiagnosisError, read_jsonl
from scripts.diagnosis.tags import labels, position_tags

TABLE, GNUBG = "net:default@table", "gnubg-1.07@2"


class ZeroPly:
    """Our net's cubeless 0-ply equity of a decision's candidates, by their text."""

    def __init__(self, net: str = "default") -> None:
        from nets.player import load_agent

        self.agent = load_agent(f"net:{net}@0")
        self.buffers = MoveBuffers()

    def equities(self, board: np.ndarray, dice: tuple[int, int], moves: list[str]) -> list[float]:
        by_board = {m.board.tobytes(): m.equity for m in self.agent.rank_moves(board, *dice, ply=0)}
        n = generate_moves(board, *dice, *self.buffers.args())
        by_text = {
            format_gnubg(board, steps_to_move(self.buffers.steps[i])): self.buffers.boards[i].tobytes()
            for i in range(n)
        }
        out = []
        for text in moves:
            key = by_text.get(text)
            if key is None:  # another spelling of a legal move
                key = np.ascontiguousarray(apply_steps(board, parse_gnubg(text, board, dice))).tobytes()
            if key not in by_board:
                raise DiagnosisError(f"{position_id(board)} {dice}: {text!r} is not a legal move")
            out.append(float(by_board[key]))
        return out


def looks_rows(path: Path, zero_ply: ZeroPly, ours: str = TABLE, theirs: str = GNUBG) -> tuple[dict, list[dict]]:
    """The counts of a looks file's decisions by label, and its differing decisions
    in the shape of a judged chunk's rows."""
    counts: dict[str, int] = {}
    differing = []
    for number, row in enumerate(read_jsonl(path), 1):
        try:
            board, _state = parse_xgid(row["xgid"])
            picks, dice = row["picks"], (int(row["dice"][0]), int(row["dice"][1]))
            if ours not in picks or theirs not in picks:
                raise DiagnosisError(f"{path}: line {number} has no pick of {ours} and {theirs}")
            mine, other = picks[ours], picks[theirs]
            tags = position_tags(board)
            for label in labels(tags):
                counts[label] = counts.get(label, 0) + 1
            if mine == other:
                continue
            means, cov = row["means"], row["covariance"]
            moves = [row["candidates"][mine], row["candidates"][other]]
        except (KeyError, IndexError, TypeError, ValueError, IdError) as exc:
            if isinstance(exc, DiagnosisError):
                raise
            raise DiagnosisError(f"{path}: line {number} is not a looks row ({exc!r})") from exc
        if not row.get("games"):
            raise DiagnosisError(f"{path}: line {number}: the picks differ but nothing was rolled out")
        equity0 = zero_ply.equities(board, dice, moves)
        variance = cov[other][other] + cov[mine][mine] - 2 * cov[other][mine]
        differing.append(
            {
                "key": f"{row['seed']}:{row['index']}",
                "position": position_id(board),
                "xgid": row["xgid"],
                "scenario": row.get("scenario"),
                "dice": list(dice),
                "count": 1,
                **tags,
                "ours": {"move": moves[0], "equity0": equity0[0], "rollout": means[mine]},
                "theirs": {"move": moves[1], "equity0": equity0[1], "rollout": means[other]},
                "games": row["games"],
                "loss": means[other] - means[mine],
                "loss_stderr": math.sqrt(max(variance, 0.0)),
            }
        )
    return counts, differing


def from_looks(paths: list[Path], net: str = "default") -> tuple[dict, list[dict], list[dict]]:
    """The files' counts and differing decisions together, and each file's own total."""
    zero_ply = ZeroPly(net)
    counts: dict[str, int] = {}
    differing: list[dict] = []
    per_file = []
    for path in paths:
        file_counts, file_rows = looks_rows(path, zero_ply)
        for label, n in file_counts.items():
            counts[label] = counts.get(label, 0) + n
        differing += file_rows
        total = sum(r["loss"] for r in file_rows)
        se = math.sqrt(sum(r["loss_stderr"] ** 2 for r in file_rows))
        n_all = file_counts.get("all", 0)
        per_file.append(
            {
                "file": str(path),
                "decisions": n_all,
                "differing": len(file_rows),
                "loss_x1000": 1000 * total / n_all if n_all else None,
                "rollout_stderr_x1000": 1000 * se / n_all if n_all else None,
            }
        )
    return counts, differing, per_file
