"""Rollout options: luck adjustment (variance reduction), truncation after N turns, pruning."""

from __future__ import annotations

import numpy as np
import pytest

from engine.eval.bearoff import bearoff_probabilities
from engine.eval.net import cubeless_equities
from engine.rollout.cubeless import _play, rollout_position
from engine.rules.position import Position
from nets.player import load_agent


@pytest.fixture(scope="module")
def agent():
    return load_agent("net:default@0")


def test_luck_adjustment_keeps_the_mean_and_cuts_the_spread(agent):
    board = Position.initial().board
    plain = rollout_position(board, 144, agent=agent, seed=5)
    reduced = rollout_position(board, 144, agent=agent, seed=5, varredn=True)
    # the same games, less each roll's luck: the spread falls, the mean stays within the noise
    assert reduced.equity_stderr < 0.5 * plain.equity_stderr
    assert abs(reduced.equity - plain.equity) < 3 * plain.equity_stderr


def test_luck_adjusted_bearoff_stays_near_the_database(agent):
    """Played-out bearoff games: the adjusted results scatter far less than the
    plain wins and losses and average to the database's value."""
    board = np.zeros((2, 25), np.int8)
    board[0, :6] = [2, 2, 2, 1, 1, 0]
    board[1, :6] = [1, 2, 2, 2, 1, 1]
    plain = _play(agent, board, 3, 0, 200, False)
    reduced = _play(agent, board, 3, 0, 200, False, True)
    exact = bearoff_probabilities(board)
    assert reduced[:, 0].std() < 0.25 * plain[:, 0].std()
    assert abs(reduced[:, 0].mean() - exact[0]) < 0.02


def test_one_turn_then_the_nets_figures(agent):
    """max_turns=1: game g plays first roll g mod 36 by the 0-ply choice and scores the
    result with the net: the mover's figures of that choice."""
    board = Position.initial().board
    out = _play(agent, board, 1, 0, 36, True, False, 1)
    for g in range(36):
        d1, d2 = g // 6 + 1, g % 6 + 1
        best = agent.rank_moves(board, d1, d2, ply=0)[0]
        assert np.abs(out[g] - np.array(best.probs)).max() < 1e-5


def test_rollout_benchmark_reports_its_keys_and_gnubgs_reference():
    from fibsbot.bench.rollout import bench_rollout
    from fibsbot.bench.search import GNUBG

    result = bench_rollout(positions=1, games=36, reference_games=36)
    assert result["rollout_games_per_s"] > 0 and result["rollout"]["games"] == 36
    assert result["rollout_pruned_games_per_s"] > 0 and result["rollout"]["pruned"]["games"] == 36
    reference = result["rollout"]["reference_gnubg_rollout"]
    if GNUBG.exists():
        assert reference["games"] == 36 and reference["games_per_s"] > 0
        assert result["rollout"]["ratio_vs_gnubg_rollout"] > 0
        assert result["rollout"]["pruned"]["ratio_vs_gnubg_rollout"] > 0
    else:
        assert reference.startswith("skipped")


@pytest.mark.parametrize("keep", [4, 8])
def test_a_pruned_rollout_plays_the_full_nets_best_of_the_pruning_nets_favourites(agent, keep):
    """--prune K: of each roll's moves the pruning net keeps its K favourites and the
    full net picks among them; one turn, then the net's figures of that choice."""
    board = Position.initial().board
    out = _play(agent, board, 1, 0, 36, True, False, 1, keep)
    small = agent.evaluator.prune
    assert small is not None
    narrowed = 0
    for g in range(36):
        d1, d2 = g // 6 + 1, g % 6 + 1
        ranked = agent.rank_moves(board, d1, d2, ply=0)
        # the pruning net scores each result from the opponent's side, before its roll
        cheap = [-cubeless_equities(small.probabilities(np.ascontiguousarray(m.board[::-1]))) for m in ranked]
        favourites = sorted(range(len(ranked)), key=lambda i: -cheap[i])[:keep]
        best = max(favourites, key=lambda i: cubeless_equities(ranked[i].probs))
        narrowed += best != 0
        assert np.abs(out[g] - np.array(ranked[best].probs)).max() < 1e-5
    if keep == 4:
        assert narrowed > 0  # the pruning net did leave out the full net's choice on some roll


def test_pruning_is_a_no_op_for_a_net_without_a_pruning_net():
    from engine.eval.evaluator import Evaluator
    from engine.players.agent import Agent
    from nets.player import resolve_net_path

    full = Evaluator.load(resolve_net_path("default"))
    bare = Agent(Evaluator(full.contact, full.race, "bare"), ply=0)
    board = Position.initial().board
    assert np.array_equal(_play(bare, board, 2, 0, 20, True, False, 0, 8), _play(bare, board, 2, 0, 20, True))


@pytest.mark.parametrize("flags, keep", [(["--prune"], 8), (["--prune", "4"], 4), ([], 0)])
def test_the_rollout_command_passes_its_prune_setting_on(agent, capsys, flags, keep):
    """`fibsbot rollout --prune` keeps the engine's usual number of moves; `--prune K`
    keeps K; without it every move goes to the full net."""
    import json

    from engine.rollout.cubeless import ROLLOUT_PRUNE_KEEP
    from fibsbot.cli import main

    board = Position.initial().board
    assert main(["rollout", "--position-id", "4HPwATDgc/ABMA", "--games", "36", "--seed", "3", "--json", *flags]) == 0
    shown = json.loads(capsys.readouterr().out)
    expected = rollout_position(board, 36, agent=agent, seed=3, prune=keep)
    assert ROLLOUT_PRUNE_KEEP == 8  # the command's help text names this default
    assert shown["equity"] == pytest.approx(expected.equity, abs=1e-9)


def test_prune_must_be_a_number_of_moves(agent):
    with pytest.raises(ValueError, match="number of moves"):
        _play(agent, Position.initial().board, 1, 0, 2, True, False, 0, True)
