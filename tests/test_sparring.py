"""The arena's sparring partners: a style of their own, the net's cube."""

from __future__ import annotations

import numpy as np

from engine.rules.ids import board_from_position_id
from engine.rules.moves import MoveBuffers, generate_moves
from fibsbot.arena import sparring
from fibsbot.arena.play import run_arena
from fibsbot.arena.sparring import BlitzSparring, blitz_bonus
from nets.player import load_agent

OPENING = "4HPwATDgc/ABMA"


def test_the_blitz_bonus_counts_checkers_on_the_bar_and_home_points():
    after = np.zeros((2, 25), np.int8)
    after[0, [0, 2, 5]] = (2, 3, 1)  # two home points made, a blot on the 6
    after[1, 24] = 2
    assert blitz_bonus(after) == 2 * sparring.BLITZ_HIT + 2 * sparring.BLITZ_POINT


def test_without_its_taste_the_blitzer_plays_the_nets_0_ply_move(monkeypatch):
    agent = load_agent("net:default@0")
    monkeypatch.setattr(sparring, "BLITZ_HIT", 0.0)
    monkeypatch.setattr(sparring, "BLITZ_POINT", 0.0)
    board = board_from_position_id(OPENING)
    for d1, d2 in ((3, 1), (6, 4), (5, 2)):
        mine = BlitzSparring(agent).choose_move(board, d1, d2)
        assert np.array_equal(mine.board, agent.choose_move(board, d1, d2).board)


def test_with_a_strong_taste_for_hitting_the_blitzer_hits_whenever_it_can(monkeypatch):
    monkeypatch.setattr(sparring, "BLITZ_HIT", 10.0)
    board = board_from_position_id(OPENING)
    board[1, 23] -= 1  # one of the opponent's back checkers steps up to our 5 point: a blot in our home
    board[1, 19] += 1
    buffers = MoveBuffers()
    for d1, d2 in ((4, 1), (6, 3), (2, 2)):
        n = generate_moves(board, d1, d2, *buffers.args())
        most = int(buffers.boards[:n, 1, 24].max())
        assert most >= 1
        chosen = BlitzSparring(load_agent("net:default@0")).choose_move(board, d1, d2)
        assert chosen.board[1, 24] == most


async def test_the_arena_plays_whole_matches_against_the_blitzer(tmp_path):
    result = await run_arena(length=1, matches=1, opponent="blitz", ply=0, data_dir=tmp_path, seed=5, warmup=False)
    assert result.matches == 1 and result.stuck == 0 and result.won + result.lost == 1


def test_in_a_duel_the_blitzer_plays_its_own_move_not_the_nets():
    from engine.players.registry import make_player

    blitzer = make_player("blitz")  # registered by fibsbot.arena.sparring
    assert blitzer.kernel is None and blitzer.name == "blitz"
    board = board_from_position_id(OPENING)
    board[1, 23] -= 1  # a blot of theirs on our 5 point: hitting it is the blitzer's taste
    board[1, 19] += 1
    buffers = MoveBuffers()
    for d1, d2 in ((4, 1), (6, 3), (2, 2)):
        n = generate_moves(board, d1, d2, *buffers.args())
        candidates = buffers.boards[:n].copy()
        chosen = blitzer.choose(board, d1, d2, candidates)
        assert np.array_equal(candidates[chosen], blitzer.choose_move(board, d1, d2).board)


def test_a_duel_against_the_blitzer_runs_on_duplicate_dice():
    from engine.rollout.duel import run_duel

    result = run_duel("blitz", "net:default@0", 20, seed=3)
    assert result.games == 20 and result.player_a == "blitz"
    assert -3.0 <= result.ppg <= 3.0
