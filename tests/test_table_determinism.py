"""The table level decides by work, not by the clock: the same match-play decisions give
the same moves, plies and cube actions whatever ``time.perf_counter`` says and with any
number of threads, every close decision gets the deeper look its rule promises, and the
clock's safety cap says so when it fires."""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np
import pytest
from structlog.testing import capture_logs

from engine.players import table
from engine.players.agent import Agent
from engine.players.table import PROMISED_MOVES, close_leaders, deeper_count, rerank
from fibsbot.bench.search import decision_positions
from fibsbot.bench.table import _states
from nets.player import TABLE_THINK, load_agent

DECISIONS = 10  # consecutive self-play turns of the table bench (seed 91), at its match scores


@pytest.fixture(scope="module")
def decisions():
    positions, dice = decision_positions(DECISIONS, seed=91)
    return list(zip(positions, [(int(d1), int(d2)) for d1, d2 in dice], _states(len(positions))))


def play(agent: Agent, decisions) -> list[tuple]:
    """What the agent does in each decision: the move, the ply of every ranked move, the cube."""
    out = []
    for board, (d1, d2), state in decisions:
        choice = agent.choose_move(board, d1, d2, state)
        cube = agent.double_decision(np.ascontiguousarray(board), state)
        out.append((choice.steps, tuple((m.steps, m.ply) for m in choice.ranked), cube.action, cube.ply))
    return out


@pytest.fixture(scope="module")
def reference(decisions):
    return play(load_agent("net:default@table"), decisions)


def scaled_clock(factor: float):
    """``time.perf_counter`` running ``factor`` times as fast as the real one."""
    real, base = time.perf_counter, time.perf_counter()
    return lambda: base + factor * (real() - base)


def stalled_clock(step: float):
    """A clock that moves ``step`` seconds at every reading, as on a machine so loaded that
    each step of a decision takes that long."""
    now = [time.perf_counter()]

    def read() -> float:
        now[0] += step
        return now[0]

    return read


@pytest.mark.parametrize(
    ("clock", "workers"),
    [(scaled_clock(0.01), 1), (stalled_clock(0.6), 1), (stalled_clock(0.6), 2)],
    ids=["100x-slow", "stalled-0.6s-a-reading", "stalled-two-threads"],
)
def test_the_same_decisions_whatever_the_clock_says(decisions, reference, monkeypatch, clock, workers):
    agent = load_agent("net:default@table", workers=workers)
    monkeypatch.setattr(time, "perf_counter", clock)
    with capture_logs() as logs:
        assert play(agent, decisions) == reference
    assert not [entry for entry in logs if entry["event"] == "table_look_cut"]  # the cap never decided


def test_every_close_decision_gets_its_deeper_look(decisions, reference):
    plain = load_agent("net:default@2")
    close_ones = 0
    for (board, (d1, d2), state), (_, plies, _, cube_ply) in zip(decisions, reference):
        ranked = plain.rank_moves(board, d1, d2)
        two_ply = rerank(plain.tree, ranked, replace(state, on_roll=0), None)
        top = [m for m in two_ply if m.ply == two_ply[0].ply]
        leaders = {m.steps for m in close_leaders(top)} if len(top) > 1 else set()
        deeper = {steps for steps, ply in plies if ply == 3}
        assert deeper == (leaders if len(leaders) > 1 else set())  # the shipped net's work fits every leader
        close_ones += len(leaders) > 1
        assert cube_ply in (0, 3)  # every cube decision that may turn is looked at a ply deeper
    assert 0 < close_ones < len(decisions)  # the set holds close and clear decisions both


def test_the_work_estimate_cuts_the_third_move_never_the_best_two(decisions, monkeypatch):
    assert deeper_count(3, per_move=1e9) == PROMISED_MOVES == 2
    assert deeper_count(3, per_move=table.DEEPER_WORK / 3) == 3
    assert deeper_count(1, per_move=0) == 1
    monkeypatch.setattr(table, "DEEPER_WORK", 1)
    agent = load_agent("net:default@table")
    looked = [sum(m.ply == 3 for m in agent.choose_move(b, *dice, s).ranked) for b, dice, s in decisions]
    assert set(looked) == {0, 2}


def test_the_cube_looks_deeper_whatever_the_cap(decisions, monkeypatch):
    board, _, state = decisions[0]
    agent = load_agent("net:default@table")
    agent.think = 0.01  # a cap far below a deeper look's time: the cube does not read the clock
    monkeypatch.setattr(time, "perf_counter", stalled_clock(100.0))
    assert agent.double_decision(np.ascontiguousarray(board), state).ply == 3


def test_the_safety_cap_is_logged_when_it_fires(decisions, reference, monkeypatch):
    agent = load_agent("net:default@table")
    assert agent.think == TABLE_THINK
    close = next(i for i, (_, plies, _, _) in enumerate(reference) if any(ply == 3 for _, ply in plies))
    board, dice, state = decisions[close]
    monkeypatch.setattr(time, "perf_counter", stalled_clock(TABLE_THINK))
    with capture_logs() as logs:
        ranked = agent.choose_move(board, *dice, state).ranked
    cut = [entry for entry in logs if entry["event"] == "table_look_cut"]
    assert len(cut) == 1 and cut[0]["log_level"] == "warning" and cut[0]["cap_s"] == TABLE_THINK
    assert all(m.ply <= 2 for m in ranked)  # one deeper figure alone would outrank its rivals unfairly
