"""Duplicate-dice duels: the dice really repeat, results are sound and reproducible."""

from __future__ import annotations

import numpy as np
import pytest

import engine.rollout.duel
import engine.rollout.game
from engine.players.registry import PubevalPlayer, RandomPlayer, make_player
from engine.rollout.duel import play_pairs, run_duel, summarize
from engine.rollout.game import play_game, play_kernel_game
from engine.rules.dice import game_seed
from engine.rules.moves import MoveBuffers


class PythonOnly:
    """Hides a player's numba kernel so duels take the Python game runner."""

    def __init__(self, player) -> None:
        self.inner = player
        self.name = player.name
        self.kernel = None

    def choose(self, board, d1, d2, candidates) -> int:
        return self.inner.choose(board, d1, d2, candidates)


def _record_rolls(monkeypatch) -> list[tuple[int, int]]:
    """Log the roll of every turn that ``play_game`` plays."""
    rolls: list[tuple[int, int]] = []
    real = engine.rollout.game.generate_moves

    def recording(board, d1, d2, *buffers):
        rolls.append((int(d1), int(d2)))
        return real(board, d1, d2, *buffers)

    monkeypatch.setattr(engine.rollout.game, "generate_moves", recording)
    return rolls


def test_both_games_of_a_pair_get_the_same_dice_with_seats_swapped(monkeypatch):
    rolls = _record_rolls(monkeypatch)
    a, b = PubevalPlayer(), RandomPlayer(4)
    for pair in range(20):
        s = game_seed(9, pair)
        winner0, _, turns0 = play_game(a, b, s)  # A in seat 0
        first_game = rolls[:]
        rolls.clear()
        winner1, _, turns1 = play_game(b, a, s)  # B in seat 0, same game seed
        common = min(turns0, turns1)
        assert first_game[:common] == rolls[:common], pair
        rolls.clear()


def test_identical_players_mirror_each_other_exactly():
    # same dice, swapped seats, same deterministic player: game 1 replays game 0
    # move for move with the roles exchanged, so A's points cancel in every pair
    for spec in ("pubeval", "random:3"):
        points = play_pairs(spec, spec, seed=4, first_pair=0, n_pairs=200)
        assert (points[:, 0] == -points[:, 1]).all(), spec
    buffers = MoveBuffers()
    fn, params = PubevalPlayer().kernel
    for pair in range(20):
        s = np.uint64(game_seed(4, pair))
        seat0, pts0, turns0 = play_kernel_game(fn, params, fn, params, s, *buffers.args())
        seat1, pts1, turns1 = play_kernel_game(fn, params, fn, params, s, *buffers.args())
        assert (seat0, pts0, turns0) == (seat1, pts1, turns1)


def test_pubeval_beats_random_by_a_wide_margin():
    result = run_duel("pubeval", "random", games=400, seed=2)
    assert result.games == 400
    assert result.win_rate > 0.9
    assert result.ppg > 1.5
    assert result.ppg - 5 * result.stderr > 0


def test_pubeval_against_itself_is_even():
    points = play_pairs("pubeval", "pubeval", seed=6, first_pair=0, n_pairs=1000)
    result = summarize("pubeval", "pubeval", points, 1.0, 6)
    # duplicate dice cancel identical deterministic players exactly ...
    assert result.ppg == 0.0 and result.stderr == 0.0 and result.win_rate == 0.5
    # ... so look at the unpaired figure too: A's points from seat 0 alone are a fair
    # sample of pubeval against itself, and must be within 2 standard errors of 0
    seat0 = points[:, 0]
    unpaired_se = seat0.std(ddof=1) / np.sqrt(len(seat0))
    assert abs(seat0.mean()) < 2 * unpaired_se, (seat0.mean(), unpaired_se)
    assert result.unpaired_stderr > 0


def test_random_players_with_different_seeds_are_even():
    result = run_duel("random:1", "random:2", games=1000, seed=3)
    assert abs(result.ppg) < 2 * result.stderr, result.summary()
    assert result.stderr > 0


@pytest.mark.parametrize("spec_a, spec_b", [("pubeval", "random:5"), ("random:1", "random:2")])
def test_splitting_over_workers_gives_the_same_games(spec_a, spec_b):
    one = run_duel(spec_a, spec_b, games=300, seed=8, workers=1).as_dict()
    three = run_duel(spec_a, spec_b, games=300, seed=8, workers=3).as_dict()
    one.pop("games_per_s"), three.pop("games_per_s")
    assert one == three


def test_seeded_random_player_is_reproducible():
    a = play_pairs("random:7", "pubeval", seed=5, first_pair=0, n_pairs=50)
    b = play_pairs("random:7", "pubeval", seed=5, first_pair=0, n_pairs=50)
    other = play_pairs("random:8", "pubeval", seed=5, first_pair=0, n_pairs=50)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, other)
    # a single decision, asked twice, gives the same answer
    player = make_player("random:7")
    again = make_player("random:7")
    candidates = np.zeros((9, 2, 25), dtype=np.int8)
    board = np.zeros((2, 25), dtype=np.int8)
    assert player.choose(board, 3, 1, candidates) == again.choose(board, 3, 1, candidates)


def test_python_game_runner_equals_the_numba_kernel():
    buffers = MoveBuffers()
    pub, rnd = PubevalPlayer(), RandomPlayer(11)
    for pair in range(40):
        s = np.uint64(game_seed(12, pair))
        for first, second in ((pub, rnd), (rnd, pub), (pub, pub)):
            python = play_game(PythonOnly(first), PythonOnly(second), s)
            kernel = play_kernel_game(
                first.kernel[0], first.kernel[1], second.kernel[0], second.kernel[1], s, *buffers.args()
            )
            assert python == tuple(int(x) for x in kernel), (pair, first.name, second.name)


def test_duel_python_path_equals_kernel_path(monkeypatch):
    kernel_points = play_pairs("pubeval", "random:2", seed=13, first_pair=0, n_pairs=30)
    real_make = engine.rollout.duel.make_player
    monkeypatch.setattr(engine.rollout.duel, "make_player", lambda spec: PythonOnly(real_make(spec)))
    python_points = play_pairs("pubeval", "random:2", seed=13, first_pair=0, n_pairs=30)
    assert np.array_equal(kernel_points, python_points)


def test_a_duel_needs_a_whole_pair():
    with pytest.raises(ValueError):
        run_duel("pubeval", "random", games=1)


def test_gnubg_duel_player_plays_gnubgs_best_move_on_the_same_dice():
    gnubg_nn = pytest.importorskip("gnubg_nn", reason="gnubg-nn not installed")
    player = make_player("gnubg0")
    buffers = MoveBuffers()
    from engine.rules.moves import generate_moves
    from engine.rules.position import Position

    board = Position.initial().board.copy()
    n = generate_moves(board, 3, 1, *buffers.args())
    best = player.choose(board, 3, 1, buffers.boards[:n])
    assert (
        gnubg_nn.key_of_board(buffers.boards[best].tolist()) == gnubg_nn.best_move(board[::-1].tolist(), 3, 1, b=1)[1]
    )
    points = play_pairs("gnubg0", "pubeval", seed=5, first_pair=0, n_pairs=3)
    assert points.shape == (3, 2) and np.all(np.abs(points) >= 1) and np.all(np.abs(points) <= 3)
    assert np.array_equal(points, play_pairs("gnubg0", "pubeval", seed=5, first_pair=0, n_pairs=3))


def test_gnubg_duel_player_needs_gnubg_nn(monkeypatch, capsys):
    import sys

    from engine.players.registry import PlayerSpecError
    from fibsbot.cli import main

    monkeypatch.setitem(sys.modules, "gnubg_nn", None)
    with pytest.raises(PlayerSpecError, match="pip install gnubg-nn"):
        make_player("gnubg0")
    assert main(["duel", "--a", "gnubg0", "--b", "pubeval", "--games", "2"]) == 2
    assert "gnubg-nn" in capsys.readouterr().err
