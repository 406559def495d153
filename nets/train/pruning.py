"""The pruning net: a small, cheap net that pre-selects replies inside a search.

As gnubg does with its pruning nets, the full net then scores only the few replies
the small one likes best (``engine.search.nply.best_reply0``).  The small net reads the
plain Tesauro encoding (no hand-made features, which cost as much to compute as a
small net) and is distilled from the full evaluator: its labels are the full net's
own 0-ply probabilities of self-play positions, so it learns to rank as the full
net ranks, not to be right.
"""

from __future__ import annotations

from engine.eval.net import Net
from engine.players.agent import Agent
from nets.train.labels import label_positions, selfplay_positions
from nets.train.supervised import FitReport, fit

PRUNE_ENCODING = "tesauro"


def train_pruning_net(
    agent: Agent,
    games: int = 2000,
    hidden: int = 16,
    epochs: int = 12,
    seed: int = 1,
    progress=None,
    lr: float = 0.02,
    lr_decay: float = 0.85,
) -> tuple[Net, FitReport]:
    boards = selfplay_positions(agent, games, seed=seed, explore=0.1)
    boards = boards[boards[:, :, 6:].reshape(len(boards), -1).any(axis=1)]  # the bearoff database covers the rest
    labels = label_positions(agent, boards, 0)
    net = Net.create("gnubg5", PRUNE_ENCODING, hidden, seed=seed, scale=0.1)
    report = fit(net, boards, labels, epochs=epochs, lr=lr, lr_decay=lr_decay, patience=3, seed=seed, progress=progress)
    return net, report
