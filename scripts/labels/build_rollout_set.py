"""Select the positions of committed label sets that a rollout labeller should label:
those of one class and phase (the diagnosis's, ``scripts/diagnosis/tags.py``), a seeded
sample of them, as a new label set that ``scripts/labels/relabel_set.py`` labels in chunks.

    python scripts/labels/build_rollout_set.py nets/runs/sage-labels/disagree.npz \
        --class contact --phase middle --count 50000 --seed 1 \
        --out nets/runs/rollout-labels/mid.npz

``--structure`` keeps only the positions with one of the diagnosis's structure tags,
and ``--behind PIPS`` only those where the side holding the back game trails the race
by PIPS or more (a back game proper, not an early position with two anchors back):

    python scripts/labels/build_rollout_set.py nets/runs/sage-labels/h21.npz ... \
        --class contact crashed --phase any --structure "back game" --behind 40 \
        --count 2000 --seed 5 --out nets/runs/rollout-labels/back-a.npz

The labels the sources hold come along (``sage1``, ``sage2``, ``sage3`` where
present), so the rollouts can be compared with them position by position.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.rules.position import BAR, ON_ROLL, OPPONENT, Position  # noqa: E402
from scripts.diagnosis.tags import (  # noqa: E402
    AGAINST_BACK_GAME,
    ANCHORS,
    BACK_GAME,
    PHASES,
    STRUCTURES,
    phase,
    position_class,
    structures,
)


def back_game_lead(board: np.ndarray, structure: str) -> int:
    """How many pips the side holding the back game trails by (negative: it leads)."""
    on_roll, opponent = Position(board).pip_counts()
    return on_roll - opponent if structure == BACK_GAME else opponent - on_roll


def tagged(board: np.ndarray, structure: str, behind: int) -> bool:
    """Whether ``board`` has the structure tag (a back game: its holder ``behind`` pips or more behind)."""
    if structure not in structures(board):
        return False
    return structure not in (BACK_GAME, AGAINST_BACK_GAME) or back_game_lead(board, structure) >= behind


def wanted(
    board: np.ndarray,
    classes: list[str],
    phase_label: str | None,
    structure: str | None,
    behind: int,
    without: tuple[str, ...] = (),
) -> bool:
    if position_class(board) not in classes or (phase_label is not None and phase(board) != phase_label):
        return False
    if any(tagged(board, other, behind) for other in without):
        return False
    return structure is None or tagged(board, structure, behind)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("sources", nargs="+", help="label sets (.npz with boards)")
    p.add_argument("--class", dest="cls", nargs="+", default=["contact"], help="contact, crashed or race (one or more)")
    p.add_argument("--phase", default="middle", help="the first word of a phase: early, middle or late; or any")
    p.add_argument("--structure", choices=STRUCTURES, help="keep only positions with this structure tag")
    p.add_argument(
        "--without", nargs="*", choices=STRUCTURES, default=[], help="leave out positions with these structure tags"
    )
    p.add_argument(
        "--behind",
        type=int,
        default=0,
        help="with a back-game structure: the least pips its holder trails by (default 0)",
    )
    p.add_argument("--exclude", nargs="*", default=[], help="label sets whose positions are left out (a test set)")
    p.add_argument("--count", type=int, default=50000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    wanted_phase = None if args.phase == "any" else next(label for label, _ in PHASES if label.startswith(args.phase))
    boards, labels = [], {}
    for path in args.sources:
        with np.load(path) as data:
            boards.append(data["boards"])
            for key in data.files:
                if key not in ("boards", "sources") and data[key].ndim == 2:
                    labels.setdefault(key, []).append(data[key])
    keys = [k for k, parts in labels.items() if len(parts) == len(args.sources)]
    all_boards = np.concatenate(boards)
    _, first = np.unique(all_boards.reshape(len(all_boards), -1), axis=0, return_index=True)
    distinct = np.sort(first)  # the sets overlap (dances come from h21 and h31-h32)
    if args.structure in (BACK_GAME, AGAINST_BACK_GAME):  # the cheap test first: two anchors back
        holder = ON_ROLL if args.structure == BACK_GAME else OPPONENT
        distinct = distinct[(all_boards[distinct, holder, 18:BAR] >= 2).sum(axis=1) >= ANCHORS]
    if args.exclude:
        excluded = set()
        for path in args.exclude:
            with np.load(path) as data:
                excluded.update(board.tobytes() for board in data["boards"].astype(np.int8))
        distinct = distinct[[all_boards[i].astype(np.int8).tobytes() not in excluded for i in distinct]]
    without = tuple(args.without)
    match = np.array(
        [wanted(all_boards[i], args.cls, wanted_phase, args.structure, args.behind, without) for i in distinct]
    )
    where = distinct[match]
    what = f"{'/'.join(args.cls)} positions in the {wanted_phase or 'any'} phase"
    if args.structure:
        what += f" tagged {args.structure!r}" + (f", its holder {args.behind}+ pips behind" if args.behind else "")
    if len(where) < args.count:
        p.error(f"only {len(where)} distinct {what}")
    keep = np.sort(np.random.default_rng(args.seed).choice(where, args.count, replace=False))
    options = f"--class {' '.join(args.cls)} --phase {args.phase}"
    if args.structure:
        options += f" --structure {args.structure!r}"
    if without:
        options += " --without " + " ".join(repr(tag) for tag in without)
        what += f" without {', '.join(without)} ({args.behind}+ pips behind)"
    if args.structure or without:
        options += f" --behind {args.behind}"
    if args.exclude:
        options += f" --exclude {' '.join(args.exclude)}"
        what += f" not in {', '.join(args.exclude)}"
    source = (
        f"{args.count} of the {len(where)} distinct {what} of {', '.join(args.sources)} (seed {args.seed}): "
        f"python scripts/labels/build_rollout_set.py {' '.join(args.sources)} {options} --count {args.count} "
        f"--seed {args.seed} --out {args.out}"
    )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        args.out,
        boards=all_boards[keep],
        sources=np.array([source]),
        **{key: np.concatenate(labels[key])[keep] for key in keys},
    )
    print(f"{source}\n-> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
