"""What a retrained candidate learns from: the new labels mixed with the shipped training sets.

A candidate starts from the incumbent's weights.  Trained on the few thousand positions
of a week's play alone, it would drift towards them and forget the rest of the game
(the first retrains of this project lost on the benchmark and against pubeval that way),
so every epoch also sees positions of the committed sets the shipped net was trained
on (``nets/runs/sage-labels``, named in ``nets/default.json``): ``ratio`` shipped
positions for each position of the retrain's own set (1.0 by default: half and half),
drawn at random over all the sets in proportion to their sizes, with the labels the
card names (the mean of Open Sage's 1- and 2-ply). A card may name labels the committed
sets do not carry: s1k400 learned from its parent's 1-ply (``k1``), written to copies of
the sets outside the repository; then the sets' Open Sage mean (``FALLBACK_LABELS``), which
that parent learned from, stands in, and the spec says so.

A net fine-tuned on a narrow set of its own (the back games of round 11) names, beside
its fine-tune's data, the sets the retrain should mix in: ``retrain_sets`` in its card,
each ``{"file": PATH under nets/, "labels": KEY}``, in place of ``training.data``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from nets.train.label_sets import LabelSetError, read_label_set

NETS_DIR = Path(__file__).resolve().parent.parent
SHIPPED_CARD = NETS_DIR / "default.json"
SHIPPED_SETS_DIR = NETS_DIR / "runs" / "sage-labels"
DEFAULT_RATIO = 1.0
FALLBACK_LABELS = "sage1+sage2"


def shipped_sets(
    card_path: Path = SHIPPED_CARD, directory: Path = SHIPPED_SETS_DIR, nets_dir: Path = NETS_DIR
) -> list[str]:
    """The label-set specs (``FILE.npz:KEY``) of the committed sets the shipped net learned from
    that are present in this checkout, each with the card's labels where the set has them,
    else ``FALLBACK_LABELS`` where it has those: the card's ``retrain_sets`` (paths under
    ``nets_dir``) where it names them, else its ``training.data`` (files in ``directory``).
    A set named twice counts once."""
    card = json.loads(Path(card_path).read_text(encoding="utf-8"))
    if "retrain_sets" in card:
        entries = [(Path(nets_dir) / entry["file"], entry.get("labels")) for entry in card["retrain_sets"]]
    else:
        entries = [
            (Path(directory) / entry["file"], entry.get("labels")) for entry in card.get("training", {}).get("data", [])
        ]
    specs: list[str] = []
    for path, labels in entries:
        if not path.exists() or not labels:
            continue
        with np.load(path) as data:
            present = set(data.files)
        for key in (labels, FALLBACK_LABELS):
            if set(key.split("+")) <= present:
                spec = f"{path}:{key}"
                if spec not in specs:
                    specs.append(spec)
                break
    return specs


def mix(
    boards: np.ndarray, labels: np.ndarray, sets: list[str], ratio: float = DEFAULT_RATIO, seed: int = 1
) -> tuple[np.ndarray, np.ndarray, dict]:
    """``boards``/``labels`` with ``ratio`` times as many positions drawn from ``sets`` added;
    and what was drawn from where (for the model card)."""
    wanted = int(round(ratio * len(boards)))
    if wanted <= 0 or not sets:
        return boards, labels, {"ratio": ratio, "shipped_positions": 0, "sets": {}}
    loaded = []
    for spec in sets:
        try:
            set_boards, set_labels, _ = read_label_set(spec)
        except LabelSetError:
            continue
        loaded.append((spec, set_boards, set_labels))
    total = sum(len(b) for _, b, _ in loaded)
    if total == 0:
        return boards, labels, {"ratio": ratio, "shipped_positions": 0, "sets": {}}
    rng = np.random.default_rng(seed)
    chosen = np.sort(rng.choice(total, size=min(wanted, total), replace=False))
    parts_b, parts_l, drawn, offset = [boards], [labels.astype(np.float32)], {}, 0
    for spec, set_boards, set_labels in loaded:
        here = chosen[(chosen >= offset) & (chosen < offset + len(set_boards))] - offset
        offset += len(set_boards)
        if len(here):
            parts_b.append(set_boards[here])
            parts_l.append(set_labels[here])
            drawn[Path(spec.split(":")[0]).name] = len(here)
    extent = {"ratio": ratio, "shipped_positions": int(sum(drawn.values())), "sets": drawn}
    return np.concatenate(parts_b).astype(np.int8), np.concatenate(parts_l).astype(np.float32), extent


def shipped_boards(count: int, sets: list[str], seed: int = 1) -> np.ndarray:
    """Up to ``count`` positions drawn at random from the boards of ``sets`` (labels unread):
    what a companion net is distilled on beside a retrain's own positions, labelled by the
    candidate itself (``nets.train.companions``)."""
    parts = []
    for spec in sets:
        try:
            with np.load(spec.split(":")[0]) as data:
                parts.append(data["boards"].astype(np.int8))
        except (OSError, KeyError, ValueError):
            continue
    if count <= 0 or not parts:
        return np.zeros((0, 2, 25), np.int8)
    boards = np.concatenate(parts)
    rng = np.random.default_rng(seed)
    return boards[np.sort(rng.choice(len(boards), size=min(count, len(boards)), replace=False))]
