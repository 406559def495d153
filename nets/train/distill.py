"""Supervised training of a net pair on harvested labels (``fibsbot train fit``).

The contact net may first be grown (``nets.train.expand``: a richer encoding, more
hidden units) so that training starts from everything the old net knew, or start
from random weights (``scratch``): a grown net keeps the old net's hidden units where
they were, which held a 400-unit net back when the old one had 128.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.eval.encode import input_size
from engine.eval.net import Net
from engine.rules.position import Phase, classify
from nets.train.expand import grow
from nets.train.supervised import fit, split_by_net


@dataclass
class FitSettings:
    encoding: str | None = None  # the contact net's encoding; None keeps it
    hidden: int | None = None  # the contact net's hidden units; None keeps them
    epochs: int = 20
    lr: float = 0.01
    lr_decay: float = 0.9
    patience: int = 3
    seed: int = 1
    train_race: bool = True
    optimizer: str = "sgd"
    batch: int = 128
    scratch: bool = False  # a new contact net of `encoding` x `hidden` instead of a grown copy
    crashed_repeats: int = 1  # each crashed position this many times in the contact net's data

    def as_dict(self) -> dict:
        return dict(self.__dict__)


# board inputs are mostly zero: about this many are non-zero in a contact position,
# so a first-layer weight of this spread gives sums of about unit size
ACTIVE_INPUTS = 30


def fresh_net(encoding: str, hidden: int, seed: int) -> Net:
    """An untrained five-output net, first-layer weights scaled to the inputs that are
    usually non-zero, the output layer to the hidden layer's width."""
    rng = np.random.default_rng(seed)
    n_in = input_size(encoding)
    W1 = rng.normal(0.0, 1.0 / np.sqrt(ACTIVE_INPUTS), (n_in, hidden)).astype(np.float32)
    W2 = rng.normal(0.0, 1.0 / np.sqrt(hidden), (hidden, 5)).astype(np.float32)
    return Net("gnubg5", encoding, W1, np.zeros(hidden, np.float32), W2, np.zeros(5, np.float32), {})


def repeat_crashed(boards: np.ndarray, labels: np.ndarray, repeats: int) -> tuple[np.ndarray, np.ndarray]:
    """Every crashed position (gnubg's class) ``repeats`` times: they are 6% of harvested
    positions, and the net's weakest class."""
    crashed = np.array([classify(board) == Phase.CRASHED for board in boards], dtype=bool)
    extra = repeats - 1
    return (np.concatenate([boards] + [boards[crashed]] * extra), np.concatenate([labels] + [labels[crashed]] * extra))


@dataclass
class FitResult:
    contact: Net
    race: Net | None
    positions: dict = field(default_factory=dict)
    reports: dict = field(default_factory=dict)


def fit_pair(
    contact: Net, race: Net | None, boards: np.ndarray, labels: np.ndarray, settings: FitSettings, progress=None
) -> FitResult:
    """Copies of ``contact`` (grown as asked) and ``race`` trained on their share of
    (boards, labels); the inputs are left untouched."""
    if settings.scratch:
        contact = fresh_net(settings.encoding or contact.encoding, settings.hidden or contact.hidden, settings.seed)
    else:
        contact = grow(contact, settings.encoding, settings.hidden, seed=settings.seed)
    race = race.copy() if race is not None else None
    if race is not None:  # the figures on the card were measured on other weights
        race.card.pop("strength", None)
    parts = split_by_net(boards, labels)
    if settings.crashed_repeats > 1:
        parts["contact"] = repeat_crashed(*parts["contact"], settings.crashed_repeats)
    result = FitResult(contact, race, {role: len(part[0]) for role, part in parts.items()})
    for role, net in (("contact", contact), ("race", race if settings.train_race else None)):
        if net is None or len(parts[role][0]) < 50:
            continue
        report = fit(
            net,
            *parts[role],
            epochs=settings.epochs,
            lr=settings.lr,
            lr_decay=settings.lr_decay,
            patience=settings.patience,
            seed=settings.seed,
            optimizer=settings.optimizer,
            batch=settings.batch,
            progress=(lambda e, tr, te, r=role: progress(r, e, tr, te)) if progress else None,
        )
        result.reports[role] = report.as_dict()
    return result
