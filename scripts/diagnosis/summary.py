"""The diagnosis table: the loss by class, structure, phase and closeness.

Figures are equity a decision (x1000), the loss being gnubg's choice's rolled-out
equity minus ours: positive where their choice was better.  Every decision with a
choice counts (the agreed ones lose nothing), each as often as it came up.

For a row (the decisions of a class or tag: ``N`` of them, ``D`` where the players
differ, ``J`` of those judged so far, each judged decision ``i`` with loss ``l_i``,
standard error ``s_i`` and count ``w_i``):

- loss a decision ``m = (D / N) * sum(w l) / J``, which is ``sum(w l) / N`` once all
  are judged (closeness rows count over all ``N`` decisions: their share of the whole);
- its standard error combines the spread over decisions, ``var / (N J / D)`` with
  ``var = (D / N) * sum(w l^2) / J - m^2``, and the rollouts' own,
  ``(D / (N J))^2 * sum(w^2 s^2)``: the rollouts' part is given apart as well (more
  games shrink it; more decisions shrink the rest).  The spread already holds some of
  the rollout noise, so the sum errs on the wide side;
- share: the row's loss ``m N`` over the whole table's (signed, so rows may pass 100%).
"""

from __future__ import annotations

import math

from scripts.diagnosis.tags import CLASSES, CLOSENESS, PHASES, STRUCTURES, closeness, labels

SECTIONS = (
    ("", ("all",)),
    ("class", CLASSES),
    ("structure", STRUCTURES),
    ("phase", tuple(label for label, _ in PHASES)),
    ("closeness (our 0-ply)", tuple(label for label, _ in CLOSENESS)),
)
CLOSENESS_LABELS = SECTIONS[-1][1]


def row_labels(row: dict) -> list[str]:
    return [*labels(row), closeness(row["ours"]["equity0"] - row["theirs"]["equity0"])]


def without(keys: list[str], counts: dict, differing: list[dict], judged: list[dict]) -> tuple[dict, list, list]:
    """The decisions of ``keys`` left out altogether (an outlier looked at apart): out of
    the differing and judged ones, and out of the counts of every row they are in."""
    unknown = set(keys) - {r["key"] for r in differing}
    if unknown:
        raise KeyError(f"no differing decision {sorted(unknown)[0]!r} to leave out")
    counts = dict(counts)
    for row in differing:
        if row["key"] in keys:
            for label in labels(row):
                counts[label] -= row["count"]
    return counts, [r for r in differing if r["key"] not in keys], [r for r in judged if r["key"] not in keys]


def breakdown(label: str, counts: dict, differing: list[dict], judged: list[dict]) -> dict:
    n = counts["all"] if label in CLOSENESS_LABELS else counts.get(label, 0)
    d = sum(r["count"] for r in differing if label in row_labels(r))
    mine = [r for r in judged if label in row_labels(r)]
    j = sum(r["count"] for r in mine)
    out = {"label": label, "decisions": n, "differing": d, "judged": j}
    if n == 0 or (d and not j):
        return out | {
            "loss_x1000": None,
            "stderr_x1000": None,
            "rollout_stderr_x1000": None,
            "per_differing_x1000": None,
        }
    total = sum(r["count"] * r["loss"] for r in mine)
    squares = sum(r["count"] * r["loss"] ** 2 for r in mine)
    noise = sum((r["count"] * r["loss_stderr"]) ** 2 for r in mine)
    scale = d / (n * j) if j else 0.0
    mean = scale * total
    effective = n * j / d if d else n
    spread = max((d / n) * squares / j - mean**2, 0.0) if j else 0.0
    if effective > 1:
        spread *= effective / (effective - 1)
    rollout_var = scale**2 * noise
    return out | {
        "loss_x1000": 1000 * mean,
        "stderr_x1000": 1000 * math.sqrt(spread / effective + rollout_var),
        "rollout_stderr_x1000": 1000 * math.sqrt(rollout_var),
        "per_differing_x1000": 1000 * total / j if j else None,
    }


def table(counts: dict, differing: list[dict], judged: list[dict], games: int | None = None) -> dict:
    """Every row of the table, and the totals: the loss a game where ``games`` is known."""
    rows = []
    for section, names in SECTIONS:
        for label in names:
            rows.append(breakdown(label, counts, differing, judged) | {"section": section})
    whole = rows[0]
    whole_loss = whole["loss_x1000"] * whole["decisions"] if whole["loss_x1000"] is not None else None
    for row in rows:
        if row["loss_x1000"] is None or not whole_loss:
            row["share"] = None
        else:
            row["share"] = row["loss_x1000"] * row["decisions"] / whole_loss
    out: dict = {"rows": rows}
    if games and whole_loss is not None:
        per_game = whole_loss / 1000 / games
        se_game = whole["stderr_x1000"] / 1000 * whole["decisions"] / games
        out |= {
            "games": games,
            "decisions_per_game": whole["decisions"] / games,
            "loss_per_game": per_game,
            "loss_per_game_stderr": se_game,
            "loss_per_game_one_side": per_game / 2,
        }
    return out


def _number(value, text: str) -> str:
    return "-" if value is None else text.format(value)


def render(result: dict, title: str) -> str:
    lines = [title, ""]
    lines.append(
        "| decisions of | decisions | differ | judged | loss a differing decision x1000 | loss a decision x1000 "
        "+/- s.e. (rollouts' part) | share |"
    )
    lines.append("|---|---|---|---|---|---|---|")
    for row in result["rows"]:
        name = f"{row['section']}: {row['label']}" if row["section"] else "**all**"
        per_1000 = "-"
        if row["loss_x1000"] is not None:
            per_1000 = f"{row['loss_x1000']:+.2f} +/- {row['stderr_x1000']:.2f} ({row['rollout_stderr_x1000']:.2f})"
        lines.append(
            f"| {name} | {row['decisions']:,} | {row['differing']:,} | {row['judged']:,} | "
            f"{_number(row['per_differing_x1000'], '{:+.1f}')} | {per_1000} | {_number(row['share'], '{:.0%}')} |"
        )
    if "loss_per_game" in result:
        lines += [
            "",
            f"{result['games']:,} games, {result['decisions_per_game']:.1f} decisions with a choice a game (both "
            f"sides): the loss {result['loss_per_game']:+.4f} +/- {result['loss_per_game_stderr']:.4f} a game, "
            f"{result['loss_per_game_one_side']:+.4f} for one side's decisions",
        ]
    return "\n".join(lines)
