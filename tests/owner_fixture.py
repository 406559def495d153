"""A small data directory as the daemon leaves it, built by the project's own writers.

Matches are played with seeded dice: player 0 (the bot) plays a given chooser
(random by default), player 1 random legal moves; game 1 of each match has a double
and a take.  Records go through ``MatchJournal`` (journal + ``.mat``), the queue
through ``TrainingQueue``, ratings and the daemon's state through ``OwnerRecords``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import numpy as np

from engine.cube.decision import may_double
from engine.rules.ids import CENTRED, MatchState
from engine.rules.moves import legal_moves
from engine.rules.position import Position, game_result
from fibsbot.owner.live import OwnerRecords, record_retrain
from fibsbot.records.journal import MatchJournal
from fibsbot.records.queue import Disagreement, TrainingQueue

SITE = "127.0.0.1:4321"  # the server of the daemon state make_data_dir writes: one account

Chooser = Callable[[np.ndarray, int, int, MatchState, random.Random], tuple]


def random_chooser(board, d1, d2, state, rng):
    return rng.choice(legal_moves(Position(board), d1, d2))[0]


def play_game(
    journal: MatchJournal,
    rng: random.Random,
    score,
    length: int,
    chooser: Chooser,
    crawford: bool,
    double_at: int | None,
) -> None:
    journal.record("game", score[0], score[1], crawford)
    board0 = Position.initial().board.copy()
    d1, d2 = 0, 0
    while d1 == d2:
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
    player = 0 if d1 > d2 else 1
    journal.record("opening", player, max(d1, d2), min(d1, d2))
    dice = (max(d1, d2), min(d1, d2))
    cube, owner, turn = 1, CENTRED, 0
    while True:
        view = np.ascontiguousarray(board0 if player == 0 else board0[::-1])
        if turn:
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            state = MatchState(
                cube=cube, cube_owner=owner, on_roll=player, crawford=crawford, match_length=length, score=score
            )
            if turn == double_at and may_double(state):
                journal.record("double", player)
                journal.record("take", 1 - player)
                cube, owner = cube * 2, 1 - player
            journal.record("roll", player, *dice)
        state = MatchState(
            cube=cube, cube_owner=owner, on_roll=player, crawford=crawford, match_length=length, score=score, dice=dice
        )
        steps = chooser(view, dice[0], dice[1], state, rng) if player == 0 else random_chooser(view, *dice, state, rng)
        journal.record("move", player, dice[0], dice[1], [list(s) for s in steps])
        for move, position in legal_moves(Position(view), *dice):
            if move == tuple(steps):
                after = position.board
                break
        board0 = after if player == 0 else after[::-1].copy()
        if after[0].sum() == 0:
            journal.record("win", player, cube * int(game_result(after, 0)))
            return
        player, turn = 1 - player, turn + 1


def record_match(
    matches_dir: Path,
    rng: random.Random,
    length: int,
    chooser: Chooser = random_chooser,
    opponent: str = "sparring",
    finish: bool = True,
) -> MatchJournal:
    journal = MatchJournal.create(matches_dir, "fibsbot", opponent, length, site=SITE)
    score, crawford_done, game = [0, 0], False, 0
    while max(score) < length:
        crawford = not crawford_done and length - 1 in score
        crawford_done |= crawford
        play_game(journal, rng, tuple(score), length, chooser, crawford, 3 if game == 0 else None)
        score = list(journal.recorder.score)
        game += 1
        if not finish:
            return journal
    journal.finish()
    return journal


def make_data_dir(root: Path, matches: int = 3, seed: int = 5, with_owner_files: bool = True) -> Path:
    rng = random.Random(seed)
    data_dir = Path(root)
    for _ in range(matches):
        record_match(data_dir / "matches", rng, length=3)
    with TrainingQueue(data_dir / "queue.sqlite") as queue:
        ids = [
            queue.add(
                Disagreement(
                    position_id="4HPwATDgc/ABMA",
                    match_id="cAkAAAAAAAAA",
                    dice=(3, 1),
                    kind="move",
                    choice_ply0="24/21 6/5",
                    choice_search="8/5 6/5",
                    equity_ply0=0.1,
                    equity_search=0.2,
                    ply=2,
                    net_version="test",
                )
            )
            for _ in range(5)
        ]
        queue.mark_labelled(ids[:2], label="test")
    if with_owner_files:
        owner = OwnerRecords(data_dir, "fibsbot", server=SITE)
        for rating, experience in ((1500.0, 0), (1500.0, 0), (1512.5, 3), (1507.25, 6)):
            owner.rating(rating, experience)
        owner.started(server="127.0.0.1", port=4321, agent="net:default@2")
        owner.stopped()
        from engine.eval.evaluator import Evaluator
        from nets.player import resolve_net_path
        from nets.store import NetStore

        evaluator = Evaluator.load(resolve_net_path("default"))
        for ppg in (0.45, 0.47):
            NetStore(data_dir / "nets").promote(
                evaluator, strength={"benchmark_error": 5.9, "ppg_vs_pubeval": ppg, "stderr": 0.013, "games": 10000}
            )
        record_retrain(
            data_dir,
            {
                "promoted": False,
                "version": None,
                "training_positions": 1234,
                "incumbent": {"error": 5.9, "ppg": 0.455},
                "candidate": {"error": 5.95, "ppg": 0.45},
                "reason": "benchmark error 5.9 -> 5.95",
            },
        )
    return data_dir
