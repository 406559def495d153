"""Labelling benchmark decisions (``nets.train.benchmark.build``) by a labeller of
``nets.train.labellers``, at two of its levels.

A labeller is too slow to judge every legal result of every decision at the depth we
trust, so each decision is judged as gnubg's benchmarks are: a few candidate moves
are re-scored deeply and the rest keep a cheap figure.

* The candidates: the best ``TOP_BY_SEARCH`` results of our own search (the
  ``search`` agent, ``net:default@2`` by default: the moves our players are likely
  to choose) and the best ``TOP_BY_CHEAP`` by the labeller's cheap level (the moves
  the labeller itself likes), all re-scored at its deep level.
* A result's equity for the mover is the cubeless money equity of the inverted label
  of the board after the move, flipped so that the opponent is on roll.
* A rollout labeller with a second count (``rollout:36/324+vr+prune``) rolls the
  best ``CLOSE_KEEP`` candidates within ``CLOSE_MARGIN`` of the best out again with that many games on
  fresh dice, and weighs both looks by their games: 36 games leave a candidate's
  equity about 0.03 uncertain, so among close moves the short look alone picks its
  own noise as the best (on the ten real-life decisions whose 36-game losses were
  largest, 324 games on other dice put the mean loss at 39 x1000 instead of 118).
* Every other legal result gets its cheap figure placed by ``place_unscored``: shifted
  by the cheap-to-deep offset measured on the re-scored results of the same decision,
  and capped at the worst re-scored equity, so an unscored result never ranks above a
  re-scored one.

Depths (a record's ``ply``) count gnubg's way: 0 is one net evaluation of the result.
Our ``net:NAME@PLY`` is PLY deep, bgsage's PLY is PLY - 1 (its 1-ply is one net
evaluation), and a rollout counts as ``ROLLOUT_DEPTH``, deeper than any search here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.eval.net import equity_of
from engine.rules.boards import kernel_board
from engine.rules.ids import position_id
from engine.rules.moves import MoveBuffers, generate_moves
from engine.search.nply import invert_probs
from nets.train.labellers import BgsageLabeller, NetLabeller, RolloutLabeller, parse_labeller

TOP_BY_SEARCH = 5
CLOSE_MARGIN = 0.06  # equity behind the best after the first look that still earns the second
CLOSE_KEEP = 3  # at most this many candidates of a decision get the second look: its cost is most of the labelling
TOP_BY_CHEAP = 5
ROLLOUT_DEPTH = 3
DEFAULT_SEARCH = "net:default@2"
UNSCORED_RULE = (
    "cheap figure + mean(deep - cheap) over the re-scored results of the decision, capped at the worst re-scored equity"
)

LabelledMove = tuple[str, float, int, str]  # result Position ID, equity for the mover, depth, level that judged it


@dataclass(frozen=True)
class Levels:
    """A labeller's cheap level (every legal result) and deep level (the candidates)."""

    cheap: str
    deep: str
    cheap_depth: int
    deep_depth: int

    @property
    def single(self) -> bool:
        """The labeller has one level only: every result is judged at it."""
        return self.cheap == self.deep


def labeller_levels(spec: str) -> Levels:
    """The cheap and deep levels of a labeller spec (LabellerError if it names none)."""
    labeller = parse_labeller(spec)
    if isinstance(labeller, NetLabeller):
        return Levels(f"net:{labeller.net}@0", labeller.spec, 0, labeller.ply)
    if isinstance(labeller, BgsageLabeller):
        return Levels("bgsage@1", labeller.spec, 0, labeller.ply - 1)
    return Levels(f"net:{labeller.net}@0", labeller.spec, 0, ROLLOUT_DEPTH)


@dataclass(frozen=True)
class LabelSetup:
    """What labels a build's decisions; picklable for worker processes."""

    labeller: str
    search: str = DEFAULT_SEARCH
    seed: int = 1  # a rollout labeller's dice


_cache: dict = {}


def _cached(kind: str, spec: str):
    if (kind, spec) not in _cache:
        if kind == "agent":
            from nets.player import load_agent

            _cache[kind, spec] = load_agent(spec)
        else:
            _cache[kind, spec] = parse_labeller(spec)
    return _cache[kind, spec]


def mover_equities(labels: np.ndarray) -> np.ndarray:
    """Cubeless money equity, for the side that moved, of labels of boards after its
    move (the opponent on roll in row 0, before its roll)."""
    mover = np.empty(5, np.float32)
    out = np.empty(len(labels), np.float64)
    for i, label in enumerate(labels):
        invert_probs(np.asarray(label, np.float32), mover)
        out[i] = equity_of(mover)
    return out


def place_unscored(cheap: np.ndarray, deep: dict[int, float]) -> np.ndarray:
    """Every result's equity: its deep figure where it was re-scored; elsewhere its cheap
    figure shifted by the mean deep-minus-cheap offset of this decision's re-scored
    results (the levels disagree by a level amount, position by position), capped at
    the worst re-scored equity: a move nobody re-scored is never credited above one
    that was."""
    offset = float(np.mean([deep[i] - cheap[i] for i in deep]))
    out = np.minimum(np.asarray(cheap, np.float64) + offset, min(deep.values()))
    for i, equity in deep.items():
        out[i] = equity
    return out


def candidates(search_order: list[int], cheap: np.ndarray) -> list[int]:
    """Indices of the results to re-score: the search's best and the cheap level's best."""
    by_cheap = np.argsort(-cheap, kind="stable")[:TOP_BY_CHEAP]
    return sorted(set(search_order[:TOP_BY_SEARCH]) | {int(i) for i in by_cheap})


def _results(board: np.ndarray, d1: int, d2: int, buffers: MoveBuffers) -> np.ndarray:
    """Every distinct legal result, flipped: the opponent on roll in row 0."""
    n = generate_moves(kernel_board(board), d1, d2, *buffers.args())
    return buffers.boards[:n, ::-1].copy()


def _search_order(search, board: np.ndarray, d1: int, d2: int, flipped: np.ndarray) -> list[int]:
    index = {np.ascontiguousarray(after[::-1]).tobytes(): i for i, after in enumerate(flipped)}
    return [index[np.ascontiguousarray(m.board).tobytes()] for m in search.rank_moves(board, d1, d2)[:TOP_BY_SEARCH]]


def label_moves(setup: LabelSetup, items: list[tuple[np.ndarray, int, int]]) -> list[list[LabelledMove]]:
    """Every legal result of each (board, d1, d2), best first: re-scored candidates by
    their deep equity, then the others as ``place_unscored`` puts them.  The
    labeller sees all boards of ``items`` in two batches (cheap, then deep)."""
    levels = labeller_levels(setup.labeller)
    search = _cached("agent", setup.search)
    buffers = MoveBuffers()
    flipped = [_results(board, d1, d2, buffers) for board, d1, d2 in items]
    cheap_all = mover_equities(_cached("labeller", levels.cheap).label(np.concatenate(flipped), seed=setup.seed))
    cheap = np.split(cheap_all, np.cumsum([len(f) for f in flipped])[:-1])
    chosen = [
        list(range(len(f))) if levels.single else candidates(_search_order(search, board, d1, d2, f), c)
        for (board, d1, d2), f, c in zip(items, flipped, cheap)
    ]
    if levels.single:
        deep = cheap
    else:
        boards = np.concatenate([f[idx] for f, idx in zip(flipped, chosen)])
        deep_labeller = _cached("labeller", levels.deep)
        deep_all = mover_equities(deep_labeller.label(boards, seed=setup.seed))
        deep = np.split(deep_all, np.cumsum([len(idx) for idx in chosen])[:-1])
        if isinstance(deep_labeller, RolloutLabeller) and deep_labeller.close_games:
            deep = look_again(deep_labeller, flipped, chosen, deep, setup.seed)
    out = []
    for f, c, idx, d in zip(flipped, cheap, chosen, deep):
        equities = place_unscored(c, dict(zip(idx, (float(x) for x in d))))
        rescored = set(idx)
        order = sorted(range(len(f)), key=lambda i: (i not in rescored, -equities[i]))
        out.append(
            [
                (
                    position_id(f[i]),
                    round(float(equities[i]), 5),
                    levels.deep_depth if i in rescored else levels.cheap_depth,
                    levels.deep if i in rescored else levels.cheap,
                )
                for i in order
            ]
        )
    return out


def _close(equities: np.ndarray) -> list[int]:
    """The best ``CLOSE_KEEP`` of a decision's candidates within ``CLOSE_MARGIN`` of its best."""
    if len(equities) < 2:
        return []
    best = equities.max()
    return [int(k) for k in np.argsort(-equities, kind="stable")[:CLOSE_KEEP] if equities[k] >= best - CLOSE_MARGIN]


def look_again(
    labeller: RolloutLabeller, flipped: list[np.ndarray], chosen: list[list[int]], deep: list[np.ndarray], seed: int
) -> list[np.ndarray]:
    """``deep`` with the candidates within ``CLOSE_MARGIN`` of each decision's best
    rolled out again by ``labeller.closer()`` on other dice (all of them on the same
    dice, so that they stay paired), each equity the games-weighted mean of both looks."""
    closer = labeller.closer()
    assert closer is not None
    close = [_close(d) for d in deep]
    boards = [f[idx[k]] for f, idx, ks in zip(flipped, chosen, close) for k in ks]
    if not boards:
        return deep
    again = iter(mover_equities(closer.label(np.array(boards, np.int8), seed=seed + 1)))
    weight = closer.games / (closer.games + labeller.games)
    out = []
    for d, ks in zip(deep, close):
        d = d.copy()
        for k in ks:
            d[k] = (1.0 - weight) * d[k] + weight * next(again)
        out.append(d)
    return out


def label_cubes(setup: LabelSetup, boards: list[np.ndarray]) -> list[list[float]]:
    """The deep level's five probabilities of each board (side on roll, before its roll)."""
    labels = _cached("labeller", labeller_levels(setup.labeller).deep).label(np.array(boards, np.int8), seed=setup.seed)
    return [[round(float(p), 6) for p in label] for label in labels]
