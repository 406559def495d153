"""Duplicate cubeless games between our net's 0-ply and gnubg's 0-ply, and the
decisions where the two would choose differently.

Pair ``p`` plays the dice of ``game_seed(seed, p)`` twice, our net in seat 0 and then
in seat 1, as ``engine.rollout.duel`` does.  At every decision with more than one legal
result both players are asked, whichever of them is on roll (the one on roll plays its
choice); every such decision is counted under its tags, and those where the choices
differ are kept, once per position and roll with the number of times they came up.
"""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from engine.players.registry import install_players, make_player, registered_players
from engine.rollout.cubeless import rollout_agent
from engine.rollout.game import game_turns
from engine.rollout.parallel import split_range
from engine.rules.dice import game_seed
from engine.rules.moves import MoveBuffers, steps_to_move
from engine.rules.notation import format_gnubg
from engine.rules.position import position_id
from scripts.diagnosis.tags import labels, position_tags

THEIRS = "gnubg0"


def decision_key(board: np.ndarray, dice: tuple[int, int]) -> str:
    return f"{position_id(board)}:{max(dice)}{min(dice)}"


class Collector:
    """Both players' choices at every decision of the games it plays."""

    def __init__(self, net: str) -> None:
        self.ours = rollout_agent(f"net:{net}")  # our net's searching agent: its 0-ply chooses and ranks
        self.theirs = make_player(THEIRS)
        self.buffers = MoveBuffers()
        self.counts: Counter[str] = Counter()
        self.found: dict[str, dict] = {}
        self.choices = 0

    def chooser(self, ours_plays: bool):
        def choose(board, d1, d2, candidates) -> int:
            ours = self.ours.choose(board, d1, d2, candidates)
            theirs = self.theirs.choose(board, d1, d2, candidates)
            self.note(board, (int(d1), int(d2)), candidates, ours, theirs)
            return ours if ours_plays else theirs

        return choose

    def note(self, board, dice: tuple[int, int], candidates, ours: int, theirs: int) -> None:
        tags = position_tags(board)
        self.choices += 1
        self.counts.update(labels(tags))
        if ours == theirs:
            return
        key = decision_key(board, dice)
        if key in self.found:
            self.found[key]["count"] += 1
            return
        equities = {
            np.ascontiguousarray(m.board).tobytes(): m.equity for m in self.ours.rank_moves(board, *dice, ply=0)
        }
        row = {"key": key, "position": position_id(board), "dice": list(dice), "count": 1, **tags}
        for name, index in (("ours", ours), ("theirs", theirs)):
            after = candidates[index]
            row[name] = {
                "move": format_gnubg(board, steps_to_move(self.buffers.steps[index])),
                "after": position_id(np.ascontiguousarray(after[::-1])),  # the opponent on roll
                "equity0": float(equities[np.ascontiguousarray(after).tobytes()]),
            }
        self.found[key] = row

    def play_pairs(self, seed: int, first: int, count: int) -> None:
        for pair in range(first, first + count):
            value = int(game_seed(seed, pair))
            for ours_seat in (0, 1):
                seats = (self.chooser(ours_seat == 0), self.chooser(ours_seat == 1))
                for _turn in game_turns(*seats, value, self.buffers):
                    pass


def _collect(players: dict, net: str, seed: int, first: int, count: int) -> tuple[list[dict], dict, int]:
    install_players(players)
    collector = Collector(net)
    collector.play_pairs(seed, first, count)
    return list(collector.found.values()), dict(collector.counts), collector.choices


def merge(parts: list[tuple[list[dict], dict, int]]) -> tuple[list[dict], Counter, int]:
    """The parts in pair order as one: a decision met in several parts keeps its first
    place and adds up its count."""
    found: dict[str, dict] = {}
    counts: Counter[str] = Counter()
    choices = 0
    for rows, part_counts, part_choices in parts:
        counts.update(part_counts)
        choices += part_choices
        for row in rows:
            if row["key"] in found:
                found[row["key"]]["count"] += row["count"]
            else:
                found[row["key"]] = dict(row)
    return list(found.values()), counts, choices


def collect(net: str, seed: int, pairs: int, workers: int) -> dict:
    """The disagreements of ``pairs`` duplicate pairs and the counts of every decision."""
    ranges = split_range(pairs, workers)
    tasks = [(registered_players(), net, seed, first, count) for first, count in ranges]
    if workers > 1 and len(tasks) > 1:
        with ProcessPoolExecutor(len(tasks)) as pool:
            parts = list(pool.map(_collect, *zip(*tasks)))
    else:
        parts = [_collect(*task) for task in tasks]
    rows, counts, choices = merge(parts)
    return {
        "net": f"net:{net}",
        "theirs": THEIRS,
        "seed": seed,
        "pairs": pairs,
        "games": 2 * pairs,
        "choice_decisions": choices,
        "differing_decisions": sum(row["count"] for row in rows),
        "counts": dict(sorted(counts.items())),
        "decisions": rows,
    }
