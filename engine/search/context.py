"""The search's shared state: the nets, the bearoff tables, the position cache and
the scratch every kernel of a lookahead uses (``SearchContext``), and the cached
0-ply evaluation through which a lookahead sees every position.

The cache is direct-mapped like gnubg's: an exact 80-bit position key per slot (so a
hit is never a different position), and a newer position simply evicts an older one.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from engine.eval.bearoff import load_bearoff_db
from engine.eval.encode import contact_level
from engine.eval.eval_sets import BearoffTables, SetScratch, all_in_home, bearoff_tables, make_set_scratch
from engine.eval.evaluator import NetPair
from engine.eval.incremental import ReplyScratch, make_reply_scratch
from engine.eval.limits import MAX_HIDDEN, MAX_INPUTS, RAW_LANES
from engine.eval.net import DEEP5, NetArrays, deep_probs_some
from engine.eval.pubeval import board_has_contact
from engine.eval.sanity import keep_possible
from engine.eval.split_eval import KEY_SIZE, evaluate_split, split_hidden
from engine.eval.static import evaluate_static

CACHE_BITS = 18
_OCCUPIED = np.uint64(1) << np.uint64(40)  # marks a used slot; real high key parts are < 2**16
_MIX = np.uint64(0x9E3779B97F4A7C15)


PRUNE_KEEP = 4  # replies a pruning net passes on to the full net inside a lookahead
# moves a root net (``Evaluator.root``) passes on to a costly contact net at a 0-ply
# decision's root (``engine.eval.static.prune_root``): with the one-layer default as the
# root net, the best move of d400x128 is among its 4 favourites in 99.2% of 4,000 decisions
ROOT_PRUNE_KEEP = 4


class SearchContext(NamedTuple):
    """Everything the search kernels share: the nets, the bearoff tables, the position
    cache and the scratch of each kind of evaluation (``make_context``).  Every kernel
    that takes it gets all of it as arguments, so a new array here costs every call
    that is not inlined: a buffer idle while another is in use serves both."""

    nets: NetPair  # the full nets (``engine.eval.evaluator``)
    bearoff: BearoffTables  # ``engine.eval.eval_sets.bearoff_probs``
    cache_keys: np.ndarray  # (slots, 2) uint64: each slot's position key, 0 when empty
    cache_values: np.ndarray  # (slots, 5): its probabilities
    cache_counts: np.ndarray  # lookups and hits since the cache was last cleared
    # one evaluation's scratch (``engine.eval.static.evaluate_static``, ``evaluate_split``);
    # while a root set is evaluated, ``inputs`` and ``hidden`` hold its chain's even
    # inputs and odd sums (``engine.eval.eval_sets.static_set``)
    inputs: np.ndarray  # MAX_INPUTS
    hidden: np.ndarray  # MAX_HIDDEN
    raw: np.ndarray  # RAW_LANES
    chain_sums: np.ndarray  # MAX_HIDDEN: a root set's chain's even sums
    own_sums: np.ndarray  # MAX_HIDDEN: a lookahead's own sums (``engine.eval.split_eval``)
    own_key: np.ndarray  # KEY_SIZE: the row those sums belong to
    prune_net: NetArrays  # the pruning net (the contact net where there is none)
    prune_keep: int  # replies it passes on to the full net (0: no pruning)
    root_net: NetArrays  # the net that picks the moves the full net scores at a 0-ply root
    root_keep: int  # how many (0: the full net scores every move)
    reply_scratch: ReplyScratch  # a set's pass (``engine.eval.incremental``)
    set_scratch: SetScratch  # a root set's (``engine.eval.eval_sets.static_set``)


def make_context(
    evaluator, cache_bits: int = CACHE_BITS, prune: bool = True, root_keep: int | None = None
) -> SearchContext:
    """The numba-side context of ``evaluator``, its pruning net (``evaluator.prune``)
    used when ``prune`` is set, and a cache of ``2**cache_bits`` positions.

    ``root_keep``: the moves the evaluator's root net (``Evaluator.root``, which a
    contact net of two hidden layers comes with: its full evaluation costs several times
    a one-layer net's) passes on to the full net at a 0-ply root; by default
    ``ROOT_PRUNE_KEEP`` where there is a root net, else 0: the full net scores every move."""
    size = 1 << cache_bits
    small = evaluator.prune if prune and evaluator.prune is not None else evaluator.contact
    keep = PRUNE_KEEP if prune and evaluator.prune is not None else 0
    root = evaluator.root
    if root_keep is None:
        root_keep = ROOT_PRUNE_KEEP if root is not None else 0
    if root_keep < 0 or (root_keep and root is None):
        raise ValueError(f"root_keep must be 0, or a number of moves with a root net, not {root_keep!r}")
    return SearchContext(
        nets=evaluator.kernel_params(),
        bearoff=bearoff_tables(load_bearoff_db()),
        cache_keys=np.zeros((size, 2), np.uint64),
        cache_values=np.zeros((size, 5), np.float32),
        cache_counts=np.zeros(2, np.int64),
        inputs=np.zeros(MAX_INPUTS, np.float32),
        hidden=np.zeros(MAX_HIDDEN, np.float32),
        raw=np.empty(RAW_LANES, np.float32),
        chain_sums=np.zeros(MAX_HIDDEN, np.float32),
        own_sums=np.zeros(MAX_HIDDEN, np.float32),
        own_key=np.zeros(KEY_SIZE, np.float32),
        prune_net=small.arrays(),
        prune_keep=keep,
        root_net=(root or evaluator.contact).arrays(),
        root_keep=root_keep,
        reply_scratch=make_reply_scratch(),
        set_scratch=make_set_scratch(),
    )


def clear_cache(ctx: SearchContext) -> None:
    ctx.cache_keys[:] = 0
    ctx.cache_counts[:] = 0


def cache_stats(ctx: SearchContext) -> dict:
    """Lookups and hits of the position cache since it was last cleared."""
    lookups, hits = (int(v) for v in ctx.cache_counts)
    return {"lookups": lookups, "hits": hits, "hit_rate": hits / lookups if lookups else 0.0}


@njit(cache=True)
def position_key(board):
    """gnubg's position-key layout as two words (a 1 per checker, a 0 after each
    point), row 0 first: exact, so a cache hit is always the same position."""
    lo = np.uint64(0)
    hi = np.uint64(0)
    bit = 0
    for side in range(2):
        for i in range(25):
            n = np.int64(board[side, i])
            if n > 0:
                ones = (np.uint64(1) << np.uint64(n)) - np.uint64(1)  # n <= 15
                if bit < 64:
                    lo |= ones << np.uint64(bit)
                    if bit + n > 64:  # the run crosses into the high word
                        hi |= ones >> np.uint64(64 - bit)
                else:
                    hi |= ones << np.uint64(bit - 64)
            bit += n + 1
    return lo, hi


@njit(cache=True, inline="always")
def _slot(keys, board):
    """A position's cache slot and its key's two words as stored."""
    lo, hi = position_key(board)
    slot = np.int64(((lo ^ (hi * _MIX)) * _MIX) >> np.uint64(64 - CACHE_BITS)) & (keys.shape[0] - 1)
    return slot, lo, hi | _OCCUPIED


@njit(cache=True, inline="always")
def _lookup(ctx, board, probs):
    """Look ``board`` up in the cache, counting the lookup: (hit, its slot, its key's
    two words as stored); on a hit its probabilities are in ``probs``."""
    keys = ctx.cache_keys
    slot, lo, marked = _slot(keys, board)
    counts = ctx.cache_counts
    counts[0] += 1
    if keys[slot, 0] == lo and keys[slot, 1] == marked:
        counts[1] += 1
        for j in range(5):
            probs[j] = ctx.cache_values[slot, j]
        return True, slot, lo, marked
    return False, slot, lo, marked


@njit(cache=True, inline="always")
def _store(ctx, slot, lo, marked, probs):
    """A position's probabilities into its cache slot (``_lookup``'s slot and key)."""
    ctx.cache_keys[slot, 0] = lo
    ctx.cache_keys[slot, 1] = marked
    for j in range(5):
        ctx.cache_values[slot, j] = probs[j]


# inline: a call passes the context's tuple of arrays field by field, and this runs for
# every position a lookahead looks up (the 2-ply search ran about 15% faster inlined)
@njit(cache=True, inline="always")
def evaluate0(ctx, board, probs):
    """Static probabilities of ``board`` for its side on roll, through the cache."""
    # written out, not ``_lookup``'s (hit, slot, key) and a test of ``hit``: that form,
    # inlined here, made the one-layer 2-ply search 7% slower (scripts/checks/compare_builds.py)
    keys, values = ctx.cache_keys, ctx.cache_values
    slot, lo, marked = _slot(keys, board)
    counts = ctx.cache_counts
    counts[0] += 1
    if keys[slot, 0] == lo and keys[slot, 1] == marked:
        counts[1] += 1
        for j in range(5):
            probs[j] = values[slot, j]
        return
    _evaluate_miss(ctx, board, probs)
    _store(ctx, slot, lo, marked, probs)


@njit(cache=True, inline="always")
def _split_path(nets, board):
    """Whether ``_evaluate_miss`` evaluates ``board`` by ``engine.eval.split_eval``."""
    enc = nets.contact_enc
    return (
        contact_level(enc) >= 0
        and not (all_in_home(board[0]) and all_in_home(board[1]))
        and not (nets.use_race and not board_has_contact(board))
    )


@njit(cache=True, inline="always")
def _evaluate_miss(ctx, board, probs):
    """``evaluate_static`` as a lookahead's cache misses need it: a contact position
    by ``engine.eval.split_eval`` (the side on roll's own sums kept in ``ctx.own_sums``)."""
    nets = ctx.nets
    if not _split_path(nets, board):
        evaluate_static(ctx, board, probs)
        return
    scratch = ctx.reply_scratch
    evaluate_split(
        nets.contact_W1,
        nets.contact_b1,
        nets.contact_W2,
        nets.contact_b2,
        nets.contact_W3,
        nets.contact_b3,
        nets.contact_arch,
        nets.contact_enc,
        board,
        ctx.inputs,
        ctx.hidden,
        ctx.own_sums,
        ctx.own_key,
        scratch.rows,
        scratch.deltas,
        ctx.raw,
        probs,
    )


@njit(cache=True)
def evaluate0_many(ctx, boards, m, out):
    """``evaluate0`` of the first ``m`` boards, into ``out``: a ``deep5`` contact net's
    misses four at a time (``engine.eval.forward.deep_probs_some``: its second layer's
    weights stream from memory once for four positions).  The figures are
    ``evaluate0``'s bit for bit, whichever way a position is reached; only the cache's
    counts can differ (a position twice among the misses is evaluated twice)."""
    nets = ctx.nets
    n_hidden = nets.contact_W1.shape[1]
    held = np.empty((4, n_hidden), np.float32)
    second = np.empty((4, nets.contact_W2.shape[1]), np.float32)
    raws = np.empty((4, RAW_LANES), np.float32)
    quad = np.empty((4, 5), np.float32)
    where = np.empty(4, np.int64)  # each held position's index among the boards
    slots = np.empty(4, np.int64)
    los = np.empty(4, np.uint64)
    marks = np.empty(4, np.uint64)
    pending = np.int64(0)  # not a literal 0: see choose_replies
    scratch = ctx.reply_scratch
    for q in range(m):
        board = boards[q]
        hit, slot, lo, marked = _lookup(ctx, board, out[q])
        if hit:
            continue
        if nets.contact_arch != DEEP5 or not _split_path(nets, board):
            _evaluate_miss(ctx, board, out[q])
            _store(ctx, slot, lo, marked, out[q])
            continue
        split_hidden(
            nets.contact_W1, nets.contact_b1, nets.contact_enc, board, ctx.inputs, ctx.hidden,
            ctx.own_sums, ctx.own_key, scratch.rows, scratch.deltas,
        )  # fmt: skip
        for j in range(n_hidden):
            held[pending, j] = ctx.hidden[j]
        where[pending], slots[pending], los[pending], marks[pending] = q, slot, lo, marked
        pending += 1
        if pending == 4:
            _store_quad(ctx, boards, held, second, raws, quad, where, slots, los, marks, pending, out)
            pending = np.int64(0)
    if pending > 0:
        _store_quad(ctx, boards, held, second, raws, quad, where, slots, los, marks, pending, out)


@njit(cache=True)
def _store_quad(ctx, boards, held, second, raws, quad, where, slots, los, marks, count, out):
    """The ``count`` held positions' probabilities (``deep_probs_some``, kept within what
    each board allows, as ``evaluate_split`` keeps them) into ``out`` and the cache."""
    nets = ctx.nets
    deep_probs_some(nets.contact_W2, nets.contact_b2, nets.contact_W3, nets.contact_b3, held, count, second, raws, quad)
    for b in range(count):
        board = boards[where[b]]
        keep_possible(board, quad[b])
        _store(ctx, slots[b], los[b], marks[b], quad[b])
        for j in range(5):
            out[where[b], j] = quad[b, j]
