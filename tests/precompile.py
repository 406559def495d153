"""Compile the kernels the suite shares into numba's cache before its workers start.

From a fresh checkout every xdist worker compiled the search on meeting it (minutes of
CPU each, at the same moment), and the rollouts' kernels likewise.  ``tests/conftest.py``
runs this module twice, one family of kernels to a process, side by side, before the
workers start; the workers then load what the families compiled.  It plays a few tiny
calls of the same kinds the tests make; a kernel a test calls another way still
compiles there, as before.

    python -m tests.precompile search|games
"""

from __future__ import annotations

import sys
import tempfile

import numpy as np

FAMILIES = ("search", "games")


def search() -> None:
    """The lookahead and the 0-ply paths as the bot plays them, then the kernels of the
    training that search (harvest, labelled self-play) on top of them."""
    from fibsbot.warmup import warm
    from nets.player import load_agent
    from nets.train.harvest import harvest
    from nets.train.labels import label_positions, selfplay_positions

    warm("net:default@2")
    agent = load_agent("net:default@0")
    boards = selfplay_positions(agent, 1, seed=1, explore=0.3)
    label_positions(agent, boards[:2], 1)
    with tempfile.TemporaryDirectory() as out:
        harvest("net:default", out, 1, seed=1, ply=1, chunk_games=1)


def games() -> None:
    """The cubeless and cubeful rollouts: plain, variance reduced, truncated, pruned."""
    from engine.rollout.cubeful import CubefulSettings, rollout_cubeful_position
    from engine.rollout.cubeless import rollout_position
    from engine.rules.ids import MatchState
    from engine.rules.position import Position
    from nets.player import load_agent

    agent = load_agent("net:default@0")
    board = np.ascontiguousarray(Position.initial().board)
    for varredn in (False, True):
        rollout_position(board, 2, agent=agent, seed=1, varredn=varredn)
    rollout_position(board, 2, agent=agent, seed=1, max_turns=2)
    for state in (MatchState(jacoby=False), MatchState(match_length=7, score=(2, 3))):
        for settings in (CubefulSettings(prune=8), CubefulSettings(varredn=True)):
            rollout_cubeful_position(board, state, 2, settings, agent=agent)


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in FAMILIES:
        print(f"usage: python -m tests.precompile {'|'.join(FAMILIES)}", file=sys.stderr)
        return 2
    {"search": search, "games": games}[argv[0]]()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
