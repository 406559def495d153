"""The pruning net: a small, cheap net that pre-selects replies inside a search.

As gnubg does with its pruning nets, the full net then scores only the few replies
the small one likes best (``engine.search.nply.best_reply0``).  The small net reads the
plain Tesauro encoding (no hand-made features, which cost as much to compute as a
small net) and is distilled from the full evaluator: its labels are the full net's
own 0-ply probabilities of self-play positions, so it learns to rank as the full
net ranks, not to be right.
"""

from __future__ import annotations

import numpy as np

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
    return distil_net(agent, boards, PRUNE_ENCODING, hidden, epochs, seed, progress, lr, lr_decay)


def distil_net(
    agent: Agent, boards, encoding, hidden, epochs, seed=1, progress=None, lr=0.02, lr_decay=0.85
) -> tuple[Net, FitReport]:
    """A one-layer net from random weights fitted to ``agent``'s 0-ply probabilities of ``boards``."""
    labels = label_positions(agent, boards, 0)
    net = Net.create("gnubg5", encoding, hidden, seed=seed, scale=0.1)
    report = fit(net, boards, labels, epochs=epochs, lr=lr, lr_decay=lr_decay, patience=3, seed=seed, progress=progress)
    return net, report


ROOT_ENCODING = "tesauro"


def train_root_net(
    agent: Agent,
    boards,
    hidden: int = 256,
    epochs: int = 20,
    seed: int = 1,
    progress=None,
    lr: float = 0.3,
    lr_decay: float = 0.85,
    encoding: str = ROOT_ENCODING,
) -> tuple[Net, FitReport]:
    """A one-layer root net (``Evaluator.root``) distilled from ``agent``'s net: trained
    from random weights on the contact positions of ``boards`` labelled by the full net's
    0-ply, so that its favourites at a 0-ply root hold the move the full net would pick.

    It reads the plain Tesauro inputs by default: at a root every candidate's hand-made
    features would cost as much as the root net itself (measured on s1k400: a root pass
    over the bench's decisions 8 µs with Tesauro inputs against 17.6 µs with the full
    net's ``contact2``), and with 256 hidden units it keeps the full net's choice among
    its 4 favourites in 98.6-98.75% of decisions (``contact2``, 128 units: 98.9%; the 32-unit
    pruning net ranks too coarsely: with it as the root net d400x128 lost 0.017 a game
    to gnubg's 0-ply)."""
    from engine.eval.pubeval import board_has_contact

    contact = np.array([board_has_contact(board) for board in boards])
    boards = np.ascontiguousarray(boards[contact])
    return distil_net(agent, boards, encoding, hidden, epochs, seed, progress, lr, lr_decay)
