"""Legal move generation.

The hot path is ``generate_moves``, a numba function that writes every distinct
position reachable with a roll into caller-owned buffers (a ``MoveBuffers``), so
search and training loops never allocate.  Boards are in the layout of
``engine.rules.position``: row 0 moves, from column 23 (its 24 point) towards column 0.

A move is recorded as up to four single-die steps ``(from_point, to_point)`` in the
mover's own numbering, 25 being the bar and 0 off, padded with ``-1``.

Rules applied: enter from the bar first; play as many dice as possible; when only
one die of a non-double can be played, play the larger if possible; bear off only
with all checkers home, exactly or from the highest point with a larger die.
Different move orders reaching the same position are reported once.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.rules.position import BAR, Position, PositionError

# gnubg bounds the distinct results of one roll by 3,060; keep headroom.
MAX_RESULTS = 4096
HASH_SLOTS = 8192  # power of two, at least twice MAX_RESULTS for short probes
_INDEX_BITS = np.uint64(16)  # a slot's second word: stamp << 16 | index (MAX_RESULTS < 2**16)
_INDEX_MASK = np.uint64(0xFFFF)
MAX_STEPS = 4
# Zobrist keys: one random word per (side, point, checker count); a board's hash is the
# XOR of its 50 keys, and a step changes it by a few XORs, so a result's hash is known
# when it is reached.  Equal hashes are then compared board against board (exact).
ZOBRIST = np.random.default_rng(20261124).integers(0, 2**63, size=(2, 25, 16), dtype=np.int64).astype(np.uint64)


class MoveBuffers:
    """Scratch and output arrays for ``generate_moves``; reuse one per thread."""

    def __init__(self) -> None:
        self.boards = np.zeros((MAX_RESULTS, 2, 25), dtype=np.int8)
        self.steps = np.full((MAX_RESULTS, MAX_STEPS, 2), -1, dtype=np.int8)
        self.table = np.zeros((HASH_SLOTS, 2), dtype=np.uint64)
        self.stamp = np.zeros(1, dtype=np.int64)
        self.stack = np.zeros((MAX_STEPS + 1, 2, 25), dtype=np.int8)

    def args(self):
        return self.boards, self.steps, self.table, self.stamp, self.stack


@njit(cache=True, inline="always")
def _step_target(board, src, die, outside):
    """Column a checker on ``src`` reaches with ``die`` (-1 = off), or -2 if illegal.

    ``outside`` counts the mover's checkers not yet in the home board.
    """
    me = board[0]
    if me[src] == 0:
        return -2
    if src != 24 and me[24] > 0:
        return -2
    dst = src - die
    if dst >= 0:
        if board[1, 23 - dst] >= 2:
            return -2
        return dst
    if outside > 0:
        return -2
    if dst == -1:
        return -1
    for i in range(src + 1, 6):
        if me[i] > 0:
            return -2
    return -1


@njit(cache=True, inline="always")
def _apply_step(src_board, dst_board, src, dst, key):
    """Play one step into ``dst_board``; return the result's hash from ``key``, its source's."""
    for side in range(2):
        for i in range(25):
            dst_board[side, i] = src_board[side, i]
    n = dst_board[0, src]
    key ^= ZOBRIST[0, src, n] ^ ZOBRIST[0, src, n - 1]
    dst_board[0, src] = n - 1
    if dst >= 0:
        n = dst_board[0, dst]
        key ^= ZOBRIST[0, dst, n] ^ ZOBRIST[0, dst, n + 1]
        dst_board[0, dst] = n + 1
        opp = 23 - dst
        if dst_board[1, opp] == 1:
            bar = dst_board[1, 24]
            key ^= ZOBRIST[1, opp, 1] ^ ZOBRIST[1, opp, 0] ^ ZOBRIST[1, 24, bar] ^ ZOBRIST[1, 24, bar + 1]
            dst_board[1, opp] = 0
            dst_board[1, 24] = bar + 1
    return key


@njit(cache=True, inline="always")
def _board_key(board):
    key = np.uint64(0)
    for side in range(2):
        for i in range(25):
            key ^= ZOBRIST[side, i, board[side, i]]
    return key


@njit(cache=True, inline="always")
def _same_board(a, b):
    for side in range(2):
        for i in range(25):
            if a[side, i] != b[side, i]:
                return False
    return True


# inline: it runs for every leaf of the move tree (a call cost a sixth of generating)
@njit(cache=True, inline="always")
def _record(board, key, step_src, step_dst, depth, out_boards, out_steps, table, stamp, count):
    """Store a result unless an equal board is already stored; return the new count.
    A slot holds a result's hash, then its stamp (the upper bits: slots of older
    stamps are empty) and its index in ``out_boards``, in one cache line."""
    slot = np.int64(key >> np.uint64(40)) & (HASH_SLOTS - 1)
    mark = np.uint64(stamp)
    while (table[slot, 1] >> _INDEX_BITS) == mark:
        if table[slot, 0] == key and _same_board(out_boards[np.int64(table[slot, 1] & _INDEX_MASK)], board):
            return count
        slot = (slot + 1) & (HASH_SLOTS - 1)
    table[slot, 0] = key
    table[slot, 1] = (mark << _INDEX_BITS) | np.uint64(count)
    for side in range(2):
        for i in range(25):
            out_boards[count, side, i] = board[side, i]
    for s in range(MAX_STEPS):
        if s < depth:
            out_steps[count, s, 0] = step_src[s] + 1
            out_steps[count, s, 1] = step_dst[s] + 1
        else:
            out_steps[count, s, 0] = -1
            out_steps[count, s, 1] = -1
    return count + 1


@njit(cache=True)
def generate_moves(board, d1, d2, out_boards, out_steps, table, stamp, stack):
    """Write every distinct legal result of rolling (d1, d2) and return how many.

    With no legal move the single result is the unchanged board and no steps.
    """
    doubles = d1 == d2
    ndice = 4 if doubles else 2
    # small fixed-size scratch: numba keeps these tuples-turned-arrays on the stack
    dice = np.empty(MAX_STEPS, dtype=np.int64)
    next_src = np.empty(MAX_STEPS + 1, dtype=np.int64)
    outside = np.empty(MAX_STEPS + 1, dtype=np.int64)
    had_child = np.zeros(MAX_STEPS + 1, dtype=np.bool_)
    step_src = np.empty(MAX_STEPS, dtype=np.int64)
    step_dst = np.empty(MAX_STEPS, dtype=np.int64)
    keys = np.empty(MAX_STEPS + 1, dtype=np.uint64)
    root_key = _board_key(board)
    outside_home = 0
    for i in range(6, 25):
        outside_home += board[0, i]
    count = 0
    best_score = -1
    stamp[0] += 1
    for order in range(1 if doubles else 2):
        if doubles:
            for k in range(4):
                dice[k] = d1
        elif order == 0:
            dice[0], dice[1] = max(d1, d2), min(d1, d2)
        else:
            dice[0], dice[1] = min(d1, d2), max(d1, d2)
        for side in range(2):
            for i in range(25):
                stack[0, side, i] = board[side, i]
        level = 0
        keys[0] = root_key
        next_src[0] = 24
        outside[0] = outside_home
        had_child[0] = False
        while level >= 0:
            descended = False
            src = next_src[level]
            while src >= 0:
                dst = _step_target(stack[level], src, dice[level], outside[level])
                if dst != -2:
                    next_src[level] = src - 1
                    had_child[level] = True
                    step_src[level] = src
                    step_dst[level] = dst
                    keys[level + 1] = _apply_step(stack[level], stack[level + 1], src, dst, keys[level])
                    outside[level + 1] = outside[level] - (1 if src >= 6 and dst < 6 else 0)
                    level += 1
                    # a double moves checkers in non-increasing source order:
                    # other orders reach the same positions
                    next_src[level] = src if doubles else 24
                    had_child[level] = False
                    descended = True
                    break
                src -= 1
            if descended and level < ndice:
                continue
            if not descended and had_child[level]:
                level -= 1
                continue
            # a leaf: all dice played, or no further die can be played
            score = level * 8
            if level == 1 and not doubles:
                score += dice[0]
            if score > best_score:
                best_score = score
                count = 0
                stamp[0] += 1
            if score == best_score:
                count = _record(
                    stack[level], keys[level], step_src, step_dst, level, out_boards, out_steps, table, stamp[0], count
                )
            level -= 1
    return count


_DEFAULT_BUFFERS: MoveBuffers | None = None


def _buffers() -> MoveBuffers:
    global _DEFAULT_BUFFERS
    if _DEFAULT_BUFFERS is None:
        _DEFAULT_BUFFERS = MoveBuffers()
    return _DEFAULT_BUFFERS


def check_dice(d1: int, d2: int) -> None:
    for d in (d1, d2):
        if not isinstance(d, (int, np.integer)) or not 1 <= d <= 6:
            raise ValueError(f"dice must be integers from 1 to 6, got {d1} and {d2}")


Move = tuple[tuple[int, int], ...]


def steps_to_move(steps: np.ndarray) -> Move:
    return tuple((int(a), int(b)) for a, b in steps if a >= 0)


def apply_steps(board: np.ndarray, steps) -> np.ndarray:
    """The board after playing ``steps`` (mover in row 0, its numbering; 25 bar, 0 off),
    a hit sending the opponent's blot to its bar.  No legality check: use it on
    moves that came from ``legal_moves`` or were checked against them."""
    out = np.array(board, dtype=np.int8, copy=True)
    for src, dst in steps:
        out[0, src - 1] -= 1
        if dst > 0:
            out[0, dst - 1] += 1
            if out[1, 24 - dst] == 1:  # our point dst is their point 25 - dst
                out[1, 24 - dst] = 0
                out[1, BAR] += 1
    return out


def legal_moves(position: Position, d1: int, d2: int) -> list[tuple[Move, Position]]:
    """Every distinct result of the roll, each with one move that reaches it.

    The resulting positions still have the mover in row 0 (call ``flip`` to hand
    the dice over).  A blocked roll gives one result: the empty move and the same
    position.
    """
    check_dice(d1, d2)
    if position.is_game_over():
        raise PositionError("the game is over: no moves")
    buf = _buffers()
    n = generate_moves(position.board, d1, d2, *buf.args())
    return [(steps_to_move(buf.steps[i]), Position(buf.boards[i].copy())) for i in range(n)]


def result_index(candidates: np.ndarray, after: np.ndarray) -> int:
    """Where the result board ``after`` stands among a decision's legal ``candidates``:
    what a duel asks of a player that chose its move by its own means."""
    return next(i for i, candidate in enumerate(candidates) if np.array_equal(candidate, after))
