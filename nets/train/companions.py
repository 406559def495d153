"""A retrained candidate's companion nets: its root net and its pruning net.

Both are small one-layer nets that pick, from a decision's candidates, the few the full
net then scores (``engine.search.context``: ``ROOT_PRUNE_KEEP`` moves at a 0-ply root,
``PRUNE_KEEP`` replies inside a lookahead). Each was distilled from, or chosen for, the
incumbent; once the candidate ranks moves differently, one may no longer hold the
candidate's choice among its favourites, and every decision where it does not is a move
the full net never sees. So a retrain measures, on a sample of the retrain's decisions,
how often the full net's 0-ply choice is among each companion's favourites (its recall,
as ``scripts/training/train_root_net.py`` measures a root net), for the incumbent's full
net and for the candidate's, and:

* keeps a companion whose recall of the candidate's choices is at most
  ``MAX_RECALL_DROP`` below its recall of the incumbent's (the incumbent's was accepted
  with it);
* else distils a new one of the same shape from the candidate's own 0-ply on the
  retrain's positions and as many more of the shipped sets' as make ``REBUILD_POSITIONS``
  (``nets.train.pruning``), and takes it where it reaches that bar;
* else, for the root net, drops it: the full net then scores every move at the root
  (slower, never wrong), where a root net below the bar would lose moves;
* and for the pruning net, keeps the better of the two (a search without one scores
  every reply with the full net, several times slower: no daemon runs it so).

The bar is relative because the recall depends on the decisions it is measured on:
s1k400's root net holds s1k400's choice among its 4 favourites in 98.75% of the
benchmark's 0-ply decisions, 99.75% of candidate positions of the harvest ``vb`` with a
random roll, and 96.7% of its own self-play positions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from engine.eval.eval_sets import static_set
from engine.eval.evaluator import Evaluator
from engine.eval.forward import cubeless_equities
from engine.eval.net import Net
from engine.eval.pubeval import board_has_contact
from engine.players.agent import Agent
from engine.rules.moves import MAX_RESULTS, MoveBuffers, generate_moves
from engine.search.context import PRUNE_KEEP, ROOT_PRUNE_KEEP, make_context
from nets.train.pruning import distil_net

# one more decision in a hundred whose full-net choice is never scored: the two 256-unit
# root nets distilled from s1k400 differed by 0.15 points, the pruning net used as a root
# net (about 6 points below) lost 0.017 a game to gnubg's 0-ply
MAX_RECALL_DROP = 0.01
SAMPLE_DECISIONS = 2000
# on s1k400, distilled on 88,000 positions for 12 epochs (13 s): a root net of 96.7% where
# the shipped one (4,000,000 positions, 60 epochs) has 99.4% on the same decisions; on
# 431,594 for 20 epochs (5.5 minutes on a loaded 2-core machine), 98.95%
REBUILD_POSITIONS = 500_000


@dataclass(frozen=True)
class Decisions:
    """Contact decisions to measure a companion on: positions (mover in row 0) and rolls."""

    boards: np.ndarray
    dice: np.ndarray


def decision_sample(boards: np.ndarray, count: int, seed: int) -> tuple[Decisions, np.ndarray]:
    """Up to ``count`` contact decisions drawn from ``boards`` with a random roll each
    (those with a real choice), and the boards not drawn, to distil from: a rebuilt
    companion is measured on decisions it was not fitted to (but for the few that shipped
    positions drawn for it may repeat)."""
    rng = np.random.default_rng(seed)
    boards = np.ascontiguousarray(boards[rng.permutation(len(boards))])
    boards = contact_only(boards)
    buffers = MoveBuffers()
    chosen: list[int] = []
    rolls: list[tuple[int, int]] = []
    for i, board in enumerate(boards):
        if len(chosen) >= count:
            break
        d1, d2 = (int(d) for d in rng.integers(1, 7, 2))
        if generate_moves(board, d1, d2, *buffers.args()) > 1:
            chosen.append(i)
            rolls.append((d1, d2))
    rest = np.ones(len(boards), bool)
    rest[chosen] = False
    sample = Decisions(boards[chosen], np.array(rolls, np.int64).reshape(-1, 2))
    return sample, np.ascontiguousarray(boards[rest])


def contact_only(boards: np.ndarray) -> np.ndarray:
    keep = np.array([board_has_contact(board) for board in boards], bool).reshape(-1)
    return np.ascontiguousarray(boards[keep]).reshape(-1, 2, 25)


def recall(full: Evaluator, companion: Net, decisions: Decisions, keeps=(1, 2, 3, 4, 5, 6)) -> dict[str, float]:
    """How often ``full``'s 0-ply choice is among ``companion``'s ``keep`` favourites, for each keep."""
    full_ctx = make_context(full, prune=False, root_keep=0)
    small_ctx = make_context(Evaluator(companion, full.race, "companion"), prune=False, root_keep=0)
    buffers = MoveBuffers()
    full_probs = np.zeros((MAX_RESULTS, 5), np.float32)
    small_probs = np.zeros((MAX_RESULTS, 5), np.float32)
    hits = dict.fromkeys(keeps, 0)
    for board, (d1, d2) in zip(decisions.boards, decisions.dice):
        n = generate_moves(board, int(d1), int(d2), *buffers.args())
        static_set(full_ctx, buffers.boards, n, full_probs)
        static_set(small_ctx, buffers.boards, n, small_probs)
        best = int(np.argmax(cubeless_equities(full_probs[:n])))
        order = np.argsort(-cubeless_equities(small_probs[:n]))
        for keep in keeps:
            hits[keep] += best in order[:keep]
    count = max(len(decisions.boards), 1)
    return {str(k): round(v / count, 5) for k, v in hits.items()}


Rebuild = Callable[[Agent, np.ndarray, Net, str], Net]


def distil_like(agent: Agent, boards: np.ndarray, like: Net, role: str, seed: int = 1) -> Net:
    """A net of ``like``'s shape and inputs distilled from ``agent``'s 0-ply on ``boards``,
    with the step sizes each role was first trained with (``nets.train.pruning``)."""
    lr, lr_decay, epochs = (0.3, 0.92, 20) if role == "root" else (0.02, 0.85, 12)
    net, report = distil_net(agent, boards, like.encoding, like.hidden, epochs, seed=seed, lr=lr, lr_decay=lr_decay)
    net.card = {"distilled_from": "the retrained candidate's own 0-ply", "training": report.as_dict()}
    return net


def refresh_companions(
    incumbent: Evaluator,
    candidate: Evaluator,
    boards: np.ndarray,
    *,
    max_drop: float = MAX_RECALL_DROP,
    decisions: int = SAMPLE_DECISIONS,
    rebuild_positions: int = REBUILD_POSITIONS,
    seed: int = 1,
    rebuild: Rebuild | None = None,
    more_boards: Callable[[int], np.ndarray] | None = None,
    progress=print,
) -> dict:
    """Keep, rebuild or drop ``candidate``'s root and pruning nets in place (the module's
    rule), measured on decisions drawn from ``boards``; what was measured and done, by role.
    ``more_boards(n)`` gives up to n more positions to distil on, asked for at the first rebuild."""
    if candidate.root is None and candidate.prune is None:
        return {}
    rebuild = rebuild or (lambda agent, rest, like, role: distil_like(agent, rest, like, role, seed=seed))
    sample, rest = decision_sample(boards, decisions, seed)
    rest = rest[:rebuild_positions]
    topped_up = False
    if not len(sample.boards):
        return {}
    agent = Agent(Evaluator(candidate.contact, candidate.race, "candidate"), ply=0)
    done: dict = {}
    for role, keep in (("root", ROOT_PRUNE_KEEP), ("prune", PRUNE_KEEP)):
        old = getattr(candidate, role)
        if old is None:
            continue
        was = recall(incumbent, old, sample)
        now = recall(candidate, old, sample)
        bar = round(was[str(keep)] - max_drop, 5)
        entry = {"keep": keep, "decisions": len(sample.boards), "incumbent_recall": was, "recall": now, "bar": bar}
        chosen: Net | None = old
        if now[str(keep)] >= bar:
            entry["action"] = "kept"
        else:
            progress(f"{role} net: recall {now[str(keep)]:.4f} of the candidate's choices < {bar:.4f}: rebuilding it")
            if more_boards is not None and not topped_up:
                rest, topped_up = np.concatenate([rest, contact_only(more_boards(rebuild_positions - len(rest)))]), True
            fresh = rebuild(agent, rest, old, role)
            after = recall(candidate, fresh, sample)
            entry["rebuilt_recall"] = after
            fresh.card["accuracy"] = {"note": "the candidate's 0-ply choices among its K favourites", **after}
            if after[str(keep)] >= bar or (role == "prune" and after[str(keep)] > now[str(keep)]):
                chosen, entry["action"] = fresh, "rebuilt"
            elif role == "root":
                chosen, entry["action"] = None, "dropped: the full net scores every move at the root"
            else:
                entry["action"] = "kept: the rebuilt one ranked no better"
        setattr(candidate, role, chosen)
        progress(f"{role} net {entry['action']} (recall at {keep}: {now[str(keep)]:.4f}, bar {bar:.4f})")
        done[role] = entry
    return done
