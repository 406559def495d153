"""The gate's real-life figure: two nets' choices in the held-out logged decisions,
rolled out where they differ (``nets.train.choices``)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from engine.players.agent import Agent
from engine.rollout.cubeless import ROLLOUT_PRUNE_KEEP
from engine.rules.ids import position_id
from nets.player import load_agent
from nets.train.benchmark.labelling import mover_equities
from nets.train.choices import compare_choices
from nets.train.labellers import rollout_labels
from nets.train.labels import selfplay_positions
from nets.train.real_life import held_out_pool


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    """A data dir whose log holds 400 move decisions of real games, as the daemon writes them."""
    boards = selfplay_positions(load_agent("net:e400w@0"), 8, seed=31)
    rng = np.random.default_rng(3)
    lines = [
        json.dumps(
            {"event": "decision", "kind": "move", "position_id": position_id(b), "dice": rng.integers(1, 7, 2).tolist()}
        )
        for b in boards[:400]
    ]
    data = tmp_path_factory.mktemp("data")
    (data / "log").mkdir()
    (data / "log" / "fibsbot.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return data


def test_a_net_against_itself_differs_nowhere_and_rolls_nothing_out(data_dir):
    net = load_agent("net:e400w@0")
    same = compare_choices(net, Agent(net.evaluator, 0), data_dir, games=4)
    pool = held_out_pool(data_dir, np.random.default_rng(1))
    assert same.positions == len(pool) > 20  # one held-out decision in five, each with a choice
    assert same.differing == same.rolled_out == 0
    assert same.difference == same.incumbent_error == same.candidate_error == same.stderr == 0.0


def test_differing_choices_are_rolled_out_on_the_same_dice_and_averaged_over_every_decision(data_dir):
    strong, weak = load_agent("net:e400w@0"), load_agent("net:benchmark1@0")
    result = compare_choices(strong, weak, data_dir, games=6, seed=5)
    assert 0 < result.differing == result.rolled_out < result.positions
    assert result.difference == pytest.approx(result.candidate_error - result.incumbent_error, abs=2e-4)
    assert result.incumbent_error >= 0 and result.candidate_error >= 0 and result.stderr > 0

    again = compare_choices(strong, weak, data_dir, games=6, seed=5)
    assert again == result.__class__(**{**result.as_dict(), "seconds": again.seconds})  # the same dice every time


def test_one_differing_decision_is_the_difference_of_its_two_rollouts(data_dir, tmp_path):
    strong, weak = load_agent("net:e400w@0"), load_agent("net:benchmark1@0")
    for c in held_out_pool(data_dir, np.random.default_rng(1)):
        ours = strong.rank_moves(c.board, *c.dice, ply=0)[0].board
        theirs = weak.rank_moves(c.board, *c.dice, ply=0)[0].board
        if not np.array_equal(ours, theirs):
            break
    (tmp_path / "log").mkdir()
    line = {"event": "decision", "kind": "move", "position_id": position_id(c.board), "dice": list(c.dice)}
    (tmp_path / "log" / "fibsbot.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    result = compare_choices(strong, weak, tmp_path, games=6, seed=7)
    assert (result.positions, result.differing, result.rolled_out) == (1, 1, 1)
    afters = np.stack([ours[::-1], theirs[::-1]]).copy()  # the opponent on roll after each move
    equity = mover_equities(rollout_labels(strong, afters, 6, 7 * 1_000_003, varredn=True, prune=ROLLOUT_PRUNE_KEEP))
    assert result.difference == pytest.approx(1000 * (equity[0] - equity[1]), abs=1e-3)
    assert min(result.incumbent_error, result.candidate_error) == 0.0


def test_more_differing_decisions_than_the_cap_are_sampled_and_scaled(data_dir):
    strong, weak = load_agent("net:e400w@0"), load_agent("net:benchmark1@0")
    full = compare_choices(strong, weak, data_dir, games=4, seed=5)
    sampled = compare_choices(strong, weak, data_dir, games=4, seed=5, max_rollouts=3)
    assert sampled.differing == full.differing > 3 and sampled.rolled_out == 3
    assert sampled.positions == full.positions
    # three decisions stand for all that differ: the estimate is scaled by differing / 3
    assert math.isfinite(sampled.difference) and sampled.stderr >= 0
