"""TD(lambda) self-play, numba end to end: move generation, evaluation, backprop.

States are positions before the roll with the side on roll in row 0.  After the
side on roll picks its move greedily at 0-ply, the next state (the opponent on
roll) is evaluated; seen from the mover that value is the flipped output vector,
which is the TD target of the state the move was made from.  A finished game's
target is its result.

Raw outputs are the nets' sigmoid outputs (3 for tesauro3, 5 for gnubg5, 2 for
symmetric).  Flipping the perspective maps them by a signed permutation, which
also carries the eligibility traces from one player's state to the other's.

A target is what the engine would evaluate: the next state's outputs kept within what
its board allows (``engine.eval.sanity.keep_possible``, as gnubg trains against its
sanity-checked evaluations), where they are probabilities: gnubg5's five, tesauro3's
three.  A symmetric net's second output is a conditional gammon, left as it is.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.eval.encode import encode_into
from engine.eval.evaluator import best_candidate, candidate_equities
from engine.eval.net import (
    GNUBG5,
    SYMMETRIC,
    TESAURO3,
    hidden_layer,
    probs_from_raw,
    raw_outputs,
    symmetric_gammon_loss,
)
from engine.eval.pubeval import board_has_contact
from engine.eval.sanity import keep_possible
from engine.rules.boards import initial_board, mover_win_points
from engine.rules.dice import game_seed, opening_roll, roll
from engine.rules.moves import generate_moves


@njit(cache=True)
def outcome_target(arch, points, target):
    """Raw-output target for the side that just won ``points`` (1-3)."""
    g = 1.0 if points >= 2 else 0.0
    bg = 1.0 if points >= 3 else 0.0
    if arch == TESAURO3:
        target[0], target[1], target[2] = 1.0, g, 0.0
    elif arch == GNUBG5:
        target[0], target[1], target[2], target[3], target[4] = 1.0, g, bg, 0.0, 0.0
    else:
        target[0], target[1] = 1.0, g


@njit(cache=True)
def flipped_target(arch, raw_next, z3_next, target):
    """The next state's raw outputs seen from the other side."""
    if arch == TESAURO3:
        target[0], target[1], target[2] = 1.0 - raw_next[0], raw_next[2], raw_next[1]
    elif arch == GNUBG5:
        target[0] = 1.0 - raw_next[0]
        target[1], target[2] = raw_next[3], raw_next[4]
        target[3], target[4] = raw_next[1], raw_next[2]
    else:
        target[0], target[1] = 1.0 - raw_next[0], z3_next


@njit(cache=True)
def next_state_target(arch, arch_next, raw_next, W2n, b2n, hn, probs_next, target):
    """The TD target in this net's raw outputs, from the net that judged the next
    state (the other side on roll): the same net or a race net of another design."""
    if arch_next == arch:
        z3 = symmetric_gammon_loss(W2n, b2n, hn) if arch == SYMMETRIC else 0.0
        flipped_target(arch, raw_next, z3, target)
        return
    # the raw layouts differ, so meet in the five probabilities, seen from this side
    probs_from_raw(arch_next, raw_next, W2n, b2n, hn, probs_next)
    win = 1.0 - probs_next[0]
    if arch == TESAURO3:
        target[0], target[1], target[2] = win, probs_next[3], probs_next[1]
    elif arch == GNUBG5:
        target[0], target[1], target[2] = win, probs_next[3], probs_next[4]
        target[3], target[4] = probs_next[1], probs_next[2]
    else:
        target[0] = win
        target[1] = min(1.0, probs_next[3] / win) if win > 0.0 else 0.0


@njit(cache=True)
def keep_raw_possible(arch, board, raw, scratch):
    """Raw outputs of ``board`` (side on roll in row 0) kept within what it allows,
    where they are probabilities (gnubg5, tesauro3); ``scratch``: five floats."""
    if arch == GNUBG5:
        keep_possible(board, raw)
    elif arch == TESAURO3:
        scratch[0], scratch[1], scratch[2], scratch[3], scratch[4] = raw[0], raw[1], 0.0, raw[2], 0.0
        keep_possible(board, scratch)
        raw[0], raw[1], raw[2] = scratch[0], scratch[1], scratch[3]


@njit(cache=True)
def _swap_rows(arr, a, b):
    tmp = arr[a].copy()
    arr[a] = arr[b]
    arr[b] = tmp


@njit(cache=True)
def flip_traces(arch, eW1, eb1, eW2, eb2):
    """Apply the perspective flip to the output index of the traces: the win output
    changes sign, gammon (backgammon) win and loss exchange places."""
    eW1[0] *= -1.0
    eb1[0] *= -1.0
    eW2[0] *= -1.0
    eb2[0] *= -1.0
    pairs = np.array([[1, 2], [-1, -1]]) if arch == TESAURO3 else np.array([[1, 3], [2, 4]])
    for p in range(2):
        a, b = pairs[p, 0], pairs[p, 1]
        if a < 0:
            continue
        _swap_rows(eW1, a, b)
        _swap_rows(eb1, a, b)
        _swap_rows(eW2, a, b)
        tmp = eb2[a]
        eb2[a] = eb2[b]
        eb2[b] = tmp


@njit(cache=True)
def zero_traces(traces):
    eW1, eb1, eW2, eb2 = traces
    eW1[:] = 0.0
    eb1[:] = 0.0
    eW2[:] = 0.0
    eb2[:] = 0.0


@njit(cache=True)
def forward_raw(W1, b1, W2, b2, enc, board, x, h, raw):
    encode_into(enc, board, x)
    hidden_layer(W1, b1, x, h)
    raw_outputs(W2, b2, h, raw)


@njit(cache=True)
def hidden_gradient(W2, h, gk, gh):
    """Back-propagate the output steps ``gk`` to the hidden pre-activations."""
    for j in range(h.shape[0]):
        acc = 0.0
        for k in range(gk.shape[0]):
            acc += gk[k] * W2[j, k]
        gh[j] = acc * h[j] * (1.0 - h[j])


@njit(cache=True)
def apply_step(W1, b1, W2, b2, x, h, gk, gh):
    """Add the steps of both layers (``gk`` output, ``gh`` hidden) to the weights;
    only the non-zero inputs touch the first layer."""
    H = h.shape[0]
    for j in range(H):
        for k in range(gk.shape[0]):
            W2[j, k] += gk[k] * h[j]
    for k in range(gk.shape[0]):
        b2[k] += gk[k]
    for j in range(H):
        b1[j] += gh[j]
    for i in range(x.shape[0]):
        xi = x[i]
        if xi != 0.0:
            for j in range(H):
                W1[i, j] += xi * gh[j]


@njit(cache=True)
def td_update(W1, b1, W2, b2, arch, perm, x, h, raw, target, lr, lam, traces):
    """One TD step of the net that evaluated state x (h, raw from its forward pass)."""
    n_out = W2.shape[1]
    H = h.shape[0]
    grad_out = np.empty(n_out, dtype=np.float32)
    for k in range(n_out):
        grad_out[k] = raw[k] * (1.0 - raw[k])  # d sigmoid
    if lam == 0.0:
        gk = np.empty(n_out, dtype=np.float32)
        for k in range(n_out):
            gk[k] = lr * (target[k] - raw[k]) * grad_out[k]
        gh = np.zeros(H, dtype=np.float32)
        hidden_gradient(W2, h, gk, gh)
        if arch == SYMMETRIC:
            mean_h = h.mean()
            total = 0.0
            for j in range(H):
                W2[j, 0] += gk[0] * (h[j] - mean_h)
                W2[j, 1] += gk[1] * h[j]
                total += W2[j, 0]
            # re-centre the win weights: the projected step sums to zero only up to
            # float32 rounding, which would otherwise accumulate over many games
            shift = total / H
            for j in range(H):
                W2[j, 0] -= shift
            b2[1] += gk[1]
            for i in range(x.shape[0]):
                xi = x[i]
                if xi != 0.0:
                    p = perm[i]
                    for j in range(H):
                        d = 0.5 * xi * gh[j]
                        W1[i, j] += d
                        W1[p, j] -= d
            return
        apply_step(W1, b1, W2, b2, x, h, gk, gh)
        return
    # lambda > 0: decay traces, add this state's gradient of every output, step
    eW1, eb1, eW2, eb2 = traces
    for k in range(n_out):
        dk = grad_out[k]
        for j in range(H):
            eW2[k, j] = lam * eW2[k, j] + dk * h[j]
            dh = dk * W2[j, k] * h[j] * (1.0 - h[j])
            eb1[k, j] = lam * eb1[k, j] + dh
            for i in range(x.shape[0]):
                eW1[k, i, j] = lam * eW1[k, i, j] + x[i] * dh
        eb2[k] = lam * eb2[k] + dk
    for k in range(n_out):
        step = lr * (target[k] - raw[k])
        b2[k] += step * eb2[k]
        for j in range(H):
            W2[j, k] += step * eW2[k, j]
            b1[j] += step * eb1[k, j]
            for i in range(x.shape[0]):
                W1[i, j] += step * eW1[k, i, j]


@njit(cache=True)
def td_games(
    nets,
    perm_c,
    perm_r,
    lr_until,
    lr_values,
    lam,
    seed,
    first_game,
    n_games,
    traces_c,
    traces_r,
    boards,
    steps,
    table,
    stamp,
    stack,
):
    """Train on self-play games [first_game, first_game + n_games); return turns played."""
    # TD trains one-hidden-layer nets: their W3, b3 are empty
    W1c, b1c, W2c, b2c, _, _, arch_c, enc_c, W1r, b1r, W2r, b2r, _, _, arch_r, enc_r, use_race = nets
    equities = np.empty(boards.shape[0], dtype=np.float64)
    probs = np.empty((boards.shape[0], 5), dtype=np.float32)
    x = np.zeros(512, dtype=np.float32)
    h = np.empty(1024, dtype=np.float32)
    raw = np.empty(8, dtype=np.float32)
    x2 = np.zeros(512, dtype=np.float32)
    h2 = np.empty(1024, dtype=np.float32)
    raw2 = np.empty(8, dtype=np.float32)
    target = np.empty(8, dtype=np.float32)
    probs_next = np.empty(5, dtype=np.float32)
    board = np.empty((2, 25), dtype=np.int8)
    nxt = np.empty((2, 25), dtype=np.int8)
    turns = 0
    for g in range(first_game, first_game + n_games):
        lr = lr_values[-1]
        for s in range(lr_until.shape[0]):
            if g < lr_until[s]:
                lr = lr_values[s]
                break
        if lam > 0.0:
            zero_traces(traces_c)
            zero_traces(traces_r)
        gs = game_seed(seed, g)
        board[:] = initial_board()
        d0, d1 = opening_roll(gs)
        for turn in range(10000):
            if turn > 0:
                d0, d1 = roll(gs, turn)
            n = generate_moves(board, d0, d1, boards, steps, table, stamp, stack)
            best = 0
            if n > 1:
                candidate_equities(nets, boards, n, equities, probs)
                best = best_candidate(boards, n, equities)
            race_state = use_race and not board_has_contact(board)
            if race_state:
                W1, b1, W2, b2, arch, enc, perm, tr = W1r, b1r, W2r, b2r, arch_r, enc_r, perm_r, traces_r
            else:
                W1, b1, W2, b2, arch, enc, perm, tr = W1c, b1c, W2c, b2c, arch_c, enc_c, perm_c, traces_c
            nin, H, nout = W1.shape[0], W1.shape[1], W2.shape[1]
            xs, hs, rs = x[:nin], h[:H], raw[:nout]
            forward_raw(W1, b1, W2, b2, enc, board, xs, hs, rs)
            after = boards[best]
            done = after[0].sum() == 0
            if done:
                outcome_target(arch, mover_win_points(after), target)
            else:
                for k in range(25):
                    nxt[0, k] = after[1, k]
                    nxt[1, k] = after[0, k]
                # the next state is judged by the net that owns it, in this net's outputs
                if use_race and not board_has_contact(nxt):
                    W1n, b1n, W2n, b2n, archn, encn = W1r, b1r, W2r, b2r, arch_r, enc_r
                else:
                    W1n, b1n, W2n, b2n, archn, encn = W1c, b1c, W2c, b2c, arch_c, enc_c
                xn, hn, rn = x2[: W1n.shape[0]], h2[: W1n.shape[1]], raw2[: W2n.shape[1]]
                forward_raw(W1n, b1n, W2n, b2n, encn, nxt, xn, hn, rn)
                keep_raw_possible(archn, nxt, rn, probs_next)
                next_state_target(arch, archn, rn, W2n, b2n, hn, probs_next, target)
            if lam > 0.0:
                # traces live in this state's perspective; the other side moved last
                flip_traces(arch, tr[0], tr[1], tr[2], tr[3])
            td_update(W1, b1, W2, b2, arch, perm, xs, hs, rs, target[:nout], lr, lam, tr)
            turns += 1
            if done:
                break
            board[:] = nxt
    return turns
