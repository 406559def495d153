"""Analyses kept, shown and fed to the training queue.

An analysis of a match recorded in a data directory (``DIR/matches/NAME.mat``) is
kept as ``DIR/owner/analysis/NAME.json`` for the report; ``queue_errors`` turns its
marked decisions into training-queue rows, so that matches from any source become
training positions.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal, cast

from fibsbot.owner.analysis import Decision, MatchAnalysis
from fibsbot.owner.readers import owner_dir, query_queue
from fibsbot.owner.stats import PlayerStats
from fibsbot.records.atomic import write_atomically
from fibsbot.records.queue import Disagreement, TrainingQueue

ANALYSIS_DIR = "analysis"


def data_dir_of(mat_path: Path) -> Path | None:
    """The data directory a match file was recorded in, if it lies in one's ``matches/``."""
    mat_path = Path(mat_path).resolve()
    return mat_path.parent.parent if mat_path.parent.name == "matches" else None


def analysis_path(data_dir: Path, mat_name: str) -> Path:
    return owner_dir(data_dir) / ANALYSIS_DIR / (Path(mat_name).stem + ".json")


def save_analysis(data_dir: Path, analysis: MatchAnalysis) -> Path:
    path = analysis_path(data_dir, Path(analysis.file).name)
    write_atomically(path, json.dumps(analysis.as_dict(), separators=(",", ":")) + "\n")
    return path


def load_analysis(path: Path) -> MatchAnalysis | None:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        decisions = [Decision(**{**d, "dice": tuple(d["dice"]) if d.get("dice") else None}) for d in data["decisions"]]
        stats = tuple(PlayerStats.from_dict(s) for s in data["stats"])
        # a pair: the file is save_analysis's dump of one
        pair = cast(tuple[PlayerStats, PlayerStats], stats)
        return MatchAnalysis(
            data["file"],
            tuple(data["players"]),
            data["length"],
            tuple(data["final_score"]),
            data["ply"],
            data["net"],
            decisions,
            pair,
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def load_analyses(data_dir: Path) -> dict[str, MatchAnalysis]:
    """Kept analyses by match file name."""
    folder = owner_dir(data_dir) / ANALYSIS_DIR
    found = {}
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        analysis = load_analysis(path)
        if analysis is not None:
            found[Path(analysis.file).name] = analysis
    return found


def _queued_keys(path: Path) -> set[tuple]:
    if not path.exists():
        return set()
    return set(
        query_queue(
            path,
            "SELECT match_ref, game_number, move_number, kind, position_id FROM disagreements "
            "WHERE net_version LIKE 'analyse:%'",
            timeout=2.0,
        )
    )


def queue_errors(queue_path: Path, analysis: MatchAnalysis) -> int:
    """Add the analysis's marked decisions to the training queue (once each); returns how many were added."""
    queue_path = Path(queue_path)
    seen = _queued_keys(queue_path)
    ref = Path(analysis.file).name
    added = 0
    with TrainingQueue(queue_path) as queue:
        for d in analysis.decisions:
            if not d.mark:
                continue
            kind: Literal["move", "cube"] = "move" if d.kind == "move" else "cube"
            if (ref, d.game, d.number or None, kind, d.position_id) in seen:
                continue
            played, best = d.equities.get("played", -d.loss), d.equities.get("best", 0.0)
            queue.add(
                Disagreement(
                    position_id=d.position_id,
                    match_id=d.match_id,
                    dice=d.dice if kind == "move" else None,
                    kind=kind,
                    choice_ply0=d.played,
                    choice_search=d.best,
                    equity_ply0=float(played),
                    equity_search=float(best),
                    ply=analysis.ply,
                    net_version=f"analyse:{analysis.net}",
                    match_ref=ref,
                    game_number=d.game,
                    move_number=d.number or None,
                )
            )
            added += 1
    return added


def format_analysis(analysis: MatchAnalysis, all_decisions: bool = False) -> str:
    """gnubg-like text: the marked decisions (or all), then each player's statistics."""
    units = "MWC" if analysis.length else "points"
    lines = [
        f"{Path(analysis.file).name}: {analysis.players[0]} vs {analysis.players[1]}, "
        f"{analysis.length}-point match, final score {analysis.final_score[0]}-{analysis.final_score[1]}; "
        f"analysed by {analysis.net} at {analysis.ply}-ply",
        "",
    ]
    for d in analysis.decisions:
        if not (d.mark or all_decisions):
            continue
        dice = f" {d.dice[0]}{d.dice[1]}" if d.dice else ""
        cost = f"{100 * d.cost:.2f}%" if analysis.length else f"{d.cost:.3f}"
        lines.append(
            f"game {d.game} move {d.number:>2} {analysis.players[d.player]:<12} {d.kind:<6}{dice:<3} "
            f"played {d.played:<24} best {d.best:<24} -{d.loss:.3f} ({cost} {units}) "
            f"{d.mark:<8} {d.position_id}:{d.match_id}"
        )
    lines.append("")
    width = max(len(n) for n in analysis.players) + 2
    s0, s1 = analysis.stats
    rows = [
        ("unforced moves", "unforced", "{:d}"),
        ("moves doubtful/bad/very bad", None, None),
        ("chequer error rate mEMG", "chequer_rate", "{:.1f}"),
        ("cube decisions (close)", None, None),
        ("cube error rate mEMG", "cube_rate", "{:.1f}"),
        ("overall error rate mEMG", "overall_rate", "{:.1f}"),
        (
            f"overall error rate {units} %" if analysis.length else "overall error points x100",
            "overall_rate_mwc",
            "{:.3f}",
        ),
        ("luck rate mEMG", "luck_rate", "{:+.1f}"),
    ]
    lines.append(f"{'':30}{analysis.players[0]:>{width}}{analysis.players[1]:>{width}}")
    for label, attr, fmt in rows:
        if attr is None and label.startswith("moves"):
            cells = ["/".join(str(s.move_marks[m]) for m in s.move_marks) for s in (s0, s1)]
        elif attr is None:
            cells = [f"{s.cube_decisions} ({s.close_cube})" for s in (s0, s1)]
        else:
            assert fmt is not None  # every row naming an attribute has its format
            cells = [fmt.format(getattr(s, attr)) for s in (s0, s1)]
        lines.append(f"{label:30}{cells[0]:>{width}}{cells[1]:>{width}}")
    return "\n".join(lines)
