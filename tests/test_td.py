"""TD(lambda) training: the kernel's gradient against finite differences, eligibility
traces and their perspective flip, the symmetric design's constraints under training,
exact resumption from checkpoints, a falling loss, and `fibsbot train`."""

from __future__ import annotations

import numpy as np
import pytest

from engine.eval.net import GNUBG5, SYMMETRIC, TESAURO3, Net, swap_permutation
from engine.rollout.selfplay_sample import game_positions, sample_positions
from engine.rules.dice import game_seed
from fibsbot.cli import main
from nets.train.td import TDConfig, TDTrainer, _perm, _traces
from nets.train.td_kernel import flip_traces, flipped_target, forward_raw, next_state_target, td_update

BOARDS = [s.board for s in sample_positions(40, seed=2)][10::3]
LR = 0.1


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def raw_float64(params: list[np.ndarray], x: np.ndarray) -> np.ndarray:
    W1, b1, W2, b2 = params
    return sigmoid(b2 + sigmoid(b1 + x @ W1) @ W2)


def jacobian(net: Net, x: np.ndarray, eps: float = 1e-6) -> list[np.ndarray]:
    """d raw_k / d w for W1, b1, W2, b2 by central differences in float64:
    one array per parameter, of shape (outputs, *parameter shape)."""
    params = [a.astype(np.float64) for a in (net.W1, net.b1, net.W2, net.b2)]
    x = x.astype(np.float64)
    n_out = net.W2.shape[1]
    grads = []
    for p in params:
        g = np.zeros((n_out,) + p.shape)
        for idx in np.ndindex(p.shape):
            if p.ndim == 2 and p is params[0] and x[idx[0]] == 0.0:
                continue  # an input that is zero leaves its weights without effect
            keep = p[idx]
            p[idx] = keep + eps
            up = raw_float64(params, x)
            p[idx] = keep - eps
            down = raw_float64(params, x)
            p[idx] = keep
            g[(slice(None),) + idx] = (up - down) / (2 * eps)
        grads.append(g)
    return grads


def forward(net: Net, board: np.ndarray):
    x = np.zeros(net.W1.shape[0], np.float32)
    h = np.empty(net.hidden, np.float32)
    raw = np.empty(net.W2.shape[1], np.float32)
    forward_raw(net.W1, net.b1, net.W2, net.b2, net.encoding_id, board, x, h, raw)
    return x, h, raw


def td_step(net: Net, board: np.ndarray, target: np.ndarray, lam: float, traces=None) -> list[np.ndarray]:
    """Apply one td_update in place; return the weight changes (float64)."""
    before = [a.astype(np.float64) for a in (net.W1, net.b1, net.W2, net.b2)]
    x, h, raw = forward(net, board)
    traces = traces if traces is not None else _traces(net, lam)
    td_update(
        net.W1,
        net.b1,
        net.W2,
        net.b2,
        net.arch_id,
        _perm(net),
        x,
        h,
        raw,
        target.astype(np.float32),
        np.float32(LR),
        np.float32(lam),
        traces,
    )
    return [a.astype(np.float64) - b for a, b in zip((net.W1, net.b1, net.W2, net.b2), before)]


def expected_step(net: Net, board: np.ndarray, target: np.ndarray) -> list[np.ndarray]:
    """lr * sum_k (target_k - raw_k) * d raw_k / d w, from finite differences."""
    x, _, raw = forward(net, board)
    error = target.astype(np.float64) - raw.astype(np.float64)
    return [LR * np.tensordot(error, g, axes=1) for g in jacobian(net, x)]


def assert_steps_close(actual, expected):
    for a, e, name in zip(actual, expected, ("W1", "b1", "W2", "b2")):
        scale = np.abs(e).max()
        assert scale > 1e-5, name  # the step is not vacuous
        np.testing.assert_allclose(a, e, rtol=1e-3, atol=2e-4 * scale, err_msg=name)


@pytest.mark.parametrize("arch, encoding", [("tesauro3", "tesauro"), ("gnubg5", "contact")])
def test_td_update_moves_weights_along_the_td_gradient(arch, encoding):
    rng = np.random.default_rng(0)
    for i, board in enumerate(BOARDS[:3]):
        net = Net.create(arch, encoding, 6, seed=i, scale=0.5)
        target = rng.uniform(0, 1, net.W2.shape[1])
        expected = expected_step(net, board, target)
        assert_steps_close(td_step(net, board, target, lam=0.0), expected)


def test_symmetric_update_is_the_projected_gradient():
    """Antisymmetric W1, no hidden or win bias, win weights summing to zero: the
    step is the gradient projected onto those constraints."""
    perm = swap_permutation("tesauro")
    rng = np.random.default_rng(1)
    for i, board in enumerate(BOARDS[:3]):
        net = Net.create("symmetric", "tesauro", 6, seed=i, scale=0.5)
        target = rng.uniform(0, 1, 2)
        gW1, gb1, gW2, gb2 = expected_step(net, board, target)
        gW2[:, 0] -= gW2[:, 0].mean()
        gb2[0] = 0.0
        actual = td_step(net, board, target, lam=0.0)
        projected = [0.5 * (gW1 - gW1[perm]), np.zeros_like(gb1), gW2, gb2]
        np.testing.assert_array_equal(actual[1], 0.0)
        assert_steps_close([actual[0], actual[2], actual[3]], [projected[0], projected[2], projected[3]])


@pytest.mark.parametrize("arch, encoding", [("tesauro3", "tesauro"), ("gnubg5", "contact")])
def test_first_step_with_lambda_equals_the_lambda_zero_step(arch, encoding):
    board, target = BOARDS[4], np.linspace(0.2, 0.9, 5)
    plain = Net.create(arch, encoding, 7, seed=3, scale=0.5)
    traced = plain.copy()
    target = target[: plain.W2.shape[1]]
    step0 = td_step(plain, board, target, lam=0.0)
    step1 = td_step(traced, board, target, lam=0.7)
    for a, b in zip(step0, step1):
        # equal up to float32 rounding of the updated weights (|w| <= 0.5: ulp 3e-8)
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-7)
        assert np.abs(a).max() > 1e-4


def test_traces_hold_the_output_gradients_and_decay_by_lambda():
    lam = 0.6
    net = Net.create("gnubg5", "tesauro", 5, seed=8, scale=0.5)
    traces = _traces(net, lam)
    first, second = BOARDS[5], BOARDS[6]
    x1, _, _ = forward(net, first)
    gW1, gb1, gW2, gb2 = jacobian(net, x1)
    td_step(net, first, np.full(5, 0.5), lam, traces)
    eW1, eb1, eW2, eb2 = traces
    # output k depends only on column k of W2 and b2: the traces keep that diagonal
    outputs = np.arange(5)
    np.testing.assert_allclose(eW1, gW1, rtol=1e-3, atol=1e-7)
    np.testing.assert_allclose(eb1, gb1, rtol=1e-3, atol=1e-7)
    np.testing.assert_allclose(eW2, gW2[outputs, :, outputs], rtol=1e-3, atol=1e-7)
    np.testing.assert_allclose(eb2, gb2[outputs, outputs], rtol=1e-3, atol=1e-7)
    # the second step moves along lam * (first gradient) + (second gradient)
    full_eW2, full_eb2 = np.zeros_like(gW2), np.zeros_like(gb2)
    full_eW2[outputs, :, outputs], full_eb2[outputs, outputs] = eW2, eb2
    decayed = [lam * t.astype(np.float64) for t in (eW1, eb1, full_eW2, full_eb2)]
    x2, _, raw2 = forward(net, second)
    target = np.linspace(0.1, 0.9, 5)
    error = target - raw2.astype(np.float64)
    expected = [LR * np.tensordot(error, d + g, axes=1) for d, g in zip(decayed, jacobian(net, x2))]
    assert_steps_close(td_step(net, second, target, lam, traces), expected)


# ---- perspective flips -----------------------------------------------------------


@pytest.mark.parametrize(
    "arch, n_out, mapping",
    [
        (TESAURO3, 3, [0, 2, 1]),  # [w, gw, gl]: gammon win <-> gammon loss
        (GNUBG5, 5, [0, 3, 4, 1, 2]),  # [w, gw, bgw, gl, bgl]
    ],
)
def test_flip_traces_is_the_documented_involution(arch, n_out, mapping):
    rng = np.random.default_rng(arch)
    traces = tuple(
        rng.normal(size=shape).astype(np.float32) for shape in ((n_out, 9, 4), (n_out, 4), (n_out, 4), (n_out,))
    )
    original = [t.copy() for t in traces]
    flip_traces(arch, *traces)
    sign = np.array([-1.0] + [1.0] * (n_out - 1))
    for t, o in zip(traces, original):
        np.testing.assert_array_equal(t, (sign.reshape((-1,) + (1,) * (o.ndim - 1)) * o)[mapping])
    flip_traces(arch, *traces)
    for t, o in zip(traces, original):
        np.testing.assert_array_equal(t, o)
    # the same signed permutation as the flipped targets: d target / d raw_next
    raw = rng.uniform(0.2, 0.8, n_out).astype(np.float32)
    base, bumped = np.empty(n_out, np.float32), np.empty(n_out, np.float32)
    flipped_target(arch, raw, 0.0, base)
    for k in range(n_out):
        nudged = raw.copy()
        nudged[k] += 0.125
        flipped_target(arch, nudged, 0.0, bumped)
        column = np.zeros(n_out)
        column[mapping.index(k)] = sign[mapping.index(k)] * 0.125
        np.testing.assert_allclose(bumped - base, column, atol=1e-6)


def test_target_from_a_race_net_of_another_architecture():
    """Mixed nets (say gnubg5 contact, tesauro3 race) meet in the five probabilities;
    reading the other net's raw outputs as one's own layout was wrong."""
    next_net = Net.create("gnubg5", "race", 4, seed=1)  # only its arch matters here
    h = np.full(4, 0.5, np.float32)
    raw_next = np.array([0.6, 0.3, 0.1, 0.2, 0.05], np.float32)  # the other side's view
    probs_next = np.empty(5, np.float32)
    target = np.empty(5, np.float32)
    next_state_target(TESAURO3, GNUBG5, raw_next, next_net.W2, next_net.b2, h, probs_next, target)
    np.testing.assert_allclose(target[:3], [0.4, 0.2, 0.3], atol=1e-7)  # [w, gw, gl] for us
    small = np.array([0.6, 0.3, 0.2], np.float32)  # a tesauro3 next state
    tnet = Net.create("tesauro3", "race", 4, seed=1)
    next_state_target(GNUBG5, TESAURO3, small, tnet.W2, tnet.b2, h, probs_next, target)
    np.testing.assert_allclose(target, [0.4, 0.2, 0.0, 0.3, 0.0], atol=1e-7)
    next_state_target(SYMMETRIC, GNUBG5, raw_next, next_net.W2, next_net.b2, h, probs_next, target)
    np.testing.assert_allclose(target[:2], [0.4, 0.2 / 0.4], atol=1e-6)
    # same architecture: exactly the raw flip
    next_state_target(GNUBG5, GNUBG5, raw_next, next_net.W2, next_net.b2, h, probs_next, target)
    np.testing.assert_allclose(target, [0.4, 0.2, 0.05, 0.3, 0.1], atol=1e-7)


# ---- the symmetric design under training -----------------------------------------


# enough games for float32 rounding to have pulled the win weights' sum off zero
# (by 9e-6 after 2,000 games before the kernel re-centred them)
@pytest.mark.parametrize("encoding, games", [("tesauro", 2000), ("contact", 400)])
def test_symmetric_net_stays_symmetric_under_td_training(tmp_path, encoding, games):
    config = TDConfig(arch="symmetric", encoding=encoding, hidden=8, seed=5, schedule=[[None, 0.1]])
    trainer = TDTrainer(tmp_path, config)
    start = trainer.contact.copy()
    trainer.train_chunk(games)
    net = trainer.contact
    perm = swap_permutation(encoding)
    assert np.abs(net.W1 - start.W1).max() > 1e-3  # it did learn
    assert np.abs(net.W1 + net.W1[perm]).max() <= 1e-6
    assert not net.b1.any() and net.b2[0] == 0.0
    assert abs(float(net.W2[:, 0].sum())) <= 1e-6
    if encoding == "tesauro":  # no turn units: a board and its flip are complementary
        boards = np.array(BOARDS)
        probs, flipped = net.probabilities(boards), net.probabilities(boards[:, ::-1])
        np.testing.assert_allclose(flipped[:, 0], 1 - probs[:, 0], atol=1e-6)
        np.testing.assert_allclose(flipped[:, 3], probs[:, 1], atol=1e-6)
        np.testing.assert_allclose(flipped[:, 1], probs[:, 3], atol=1e-6)


# ---- the trainer -----------------------------------------------------------------


def trained_arrays(net: Net) -> list[np.ndarray]:
    return [net.W1, net.b1, net.W2, net.b2]


@pytest.mark.parametrize(
    "config",
    [
        TDConfig(
            arch="tesauro3", encoding="tesauro", hidden=8, seed=3, checkpoint_every=300, bench_every=300, bench_games=2
        ),
        # traces, and a race net of another architecture
        TDConfig(
            arch="gnubg5",
            encoding="contact",
            hidden=6,
            race_arch="tesauro3",
            race_hidden=5,
            lam=0.7,
            seed=4,
            checkpoint_every=300,
            bench_every=300,
            bench_games=2,
        ),
    ],
    ids=["tesauro3", "gnubg5-lambda-race"],
)
def test_resumed_run_equals_an_uninterrupted_one(tmp_path, config):
    straight = TDTrainer(tmp_path / "straight", config)
    straight.run(600, chunk=250, quiet=True)
    first = TDTrainer(tmp_path / "resumed", config)
    first.run(300, chunk=100, quiet=True)
    resumed = TDTrainer(tmp_path / "resumed")  # from the checkpoint alone
    assert resumed.games_done == 300 and resumed.config == config
    resumed.run(600, chunk=170, quiet=True)
    for a, b in zip(trained_arrays(straight.contact), trained_arrays(resumed.contact)):
        np.testing.assert_array_equal(a, b)
    if config.race_arch:
        for a, b in zip(trained_arrays(straight.race), trained_arrays(resumed.race)):
            np.testing.assert_array_equal(a, b)
    on_disk = TDTrainer(tmp_path / "resumed")
    assert on_disk.games_done == 600
    for a, b in zip(trained_arrays(straight.contact), trained_arrays(on_disk.contact)):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(
        straight.contact.W1, Net.create(config.arch, config.encoding, config.hidden, config.seed).W1
    )


def test_benchmarks_are_not_skipped_between_checkpoints(tmp_path):
    config = TDConfig(hidden=4, seed=2, checkpoint_every=1000, bench_every=100, bench_games=2)
    TDTrainer(tmp_path, config).run(300, chunk=1000, quiet=True)
    rows = (tmp_path / "progress.csv").read_text().splitlines()
    assert [r.split(",")[0] for r in rows] == ["games", "100", "200", "300"]


def held_out_positions(n_games: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Every position of some pubeval self-play games, labelled 1 where the side on
    roll went on to win the game."""
    boards, labels = [], []
    for g in range(n_games):
        game = list(game_positions("pubeval", int(game_seed(seed, g))))
        last_turn = game[-1][3]  # the side on roll in the last position won
        for board, _d1, _d2, turn in game:
            boards.append(board)
            labels.append(float((last_turn - turn) % 2 == 0))
    return np.array(boards), np.array(labels)


def cross_entropy(p_win: np.ndarray, won: np.ndarray) -> float:
    p = np.clip(p_win.astype(np.float64), 1e-7, 1 - 1e-7)
    return float(-(won * np.log(p) + (1 - won) * np.log(1 - p)).mean())


def test_a_tiny_net_learns_to_predict_game_results(tmp_path):
    """The loss: cross-entropy of the net's win probability on positions of held-out
    games (pubeval self-play, not the trainer's games) against who actually won.
    The contact encoding's pip features let a tiny net learn within a few hundred
    games; it must beat both its untrained self and the best constant guess.  The net's
    own win output (``forward``): an evaluation's rules know some race results already
    (``engine.eval.sanity``: a win no roll sequence can lose), even for an untrained net."""
    boards, won = held_out_positions(40, seed=2024)
    base_rate = cross_entropy(np.full(len(won), won.mean()), won)
    config = TDConfig(arch="tesauro3", encoding="contact", hidden=10, seed=1, schedule=[[None, 0.3]])
    trainer = TDTrainer(tmp_path, config)

    def net_wins() -> np.ndarray:
        return np.array([forward(trainer.contact, board)[2][0] for board in boards])

    losses = [cross_entropy(net_wins(), won)]
    for games in (200, 400, 600):
        trainer.train_chunk(games - trainer.games_done)
        losses.append(cross_entropy(net_wins(), won))
    assert losses[0] > base_rate - 0.005  # untrained: no better than a constant
    assert all(b < a for a, b in zip(losses, losses[1:])), losses
    assert losses[-1] < base_rate - 0.03, (losses, base_rate)


def test_train_command_runs_resumes_and_plots(tmp_path, capsys):
    run_dir = tmp_path / "run"
    args = [
        "train",
        "td",
        "--run-dir",
        str(run_dir),
        "--hidden",
        "8",
        "--bench-every",
        "100",
        "--bench-games",
        "50",
        "--checkpoint-every",
        "100",
        "--quiet",
    ]
    assert main(args + ["--games", "200"]) == 0
    assert "200 games" in capsys.readouterr().out
    first = Net.load(run_dir / "contact.npz")
    assert first.card["training"]["games"] == 200 and first.hidden == 8
    assert main(args + ["--games", "300"]) == 0
    assert "300 games" in capsys.readouterr().out
    assert TDTrainer(run_dir).games_done == 300
    assert not np.array_equal(Net.load(run_dir / "contact.npz").W1, first.W1)
    rows = (run_dir / "progress.csv").read_text().splitlines()
    assert rows[0].startswith("games,") and [r.split(",")[0] for r in rows[1:]] == ["100", "200", "300"]
    plot_args = ["train", "plot", str(run_dir / "progress.csv")]
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert main(plot_args) == 2  # a clear error rather than a traceback
        assert "plotting needs matplotlib" in capsys.readouterr().err
        pytest.skip("matplotlib is not installed: the PNG cannot be drawn")
    assert main(plot_args) == 0
    png = run_dir / "progress.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    "option, value",
    [("--checkpoint-every", "0"), ("--bench-every", "0"), ("--bench-games", "0"), ("--hidden", "-1"), ("--lam", "1.5")],
)
def test_train_command_rejects_bad_numbers(tmp_path, capsys, option, value):
    args = ["train", "td", "--run-dir", str(tmp_path / "run"), "--games", "10", "--quiet", option, value]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "fibsbot train: error:" in err and option in err
    assert not (tmp_path / "run").exists()
