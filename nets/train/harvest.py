"""Training positions harvested from 2-ply self-play decisions (seed 002's recipe).

GNUbg's 0-ply improved most when it was trained on the candidates of decisions
where its 2-ply saw further: the net must learn to *rank* the moves of one roll,
so the useful labels are those of sibling positions.  Each self-play decision
here is searched at 2-ply (1-ply when asked: cheaper, for tests and quick
looks) with the usual move filters; every candidate that
reached 2-ply becomes a training position (the board after the move, seen by
the opponent who is about to roll) labelled with its 2-ply probabilities.  The
game goes on with the 2-ply choice, or now and then a random legal move, so the
positions are not only those the net already likes.

Work is cut into chunks of games; each chunk is one file ``chunk-FIRSTGAME.npz``
written atomically, so a killed run resumes where it stopped and a chunk's
content depends only on its games (the same for any number of workers).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from numba import njit

from engine.rollout.game import kernel_game
from engine.rollout.parallel import map_chunks
from engine.rules.boards import flip_into
from engine.rules.dice import game_seed
from engine.search.nply import invert_probs
from nets.train.labels import random_move, search_choose

MAX_TURNS = 500


@njit(cache=True)
def _search_keep_and_explore(state, board, d0, d1, turn, seat, n, candidates):
    """Search the turn, keep every candidate that reached the ply (from the view of
    the side to roll next, with its probabilities) while there is room, and play the
    search's choice or now and then a random move (``kernel_turns``' hook)."""
    player, out_boards, out_probs, count, label, explore, game_seed_value = state
    if n <= 1:
        return 0
    best = search_choose(player, board, n, candidates)
    ply, probs, plies = player[1], player[7], player[8]
    for i in range(n):
        if plies[i] != ply or count[0] >= out_boards.shape[0]:
            continue
        flip_into(candidates[i], out_boards[count[0]])
        invert_probs(probs[i], label)
        for k in range(5):
            out_probs[count[0], k] = label[k]
        count[0] += 1
    explored = random_move(game_seed_value, turn, n, explore)
    return explored if explored >= 0 else best


@njit(cache=True)
def _harvest(
    ctx,
    seed,
    first_game,
    n_games,
    explore,
    ply,
    filters,
    weights,
    root,
    buf2,
    buf1,
    equities,
    probs,
    plies,
    out_boards,
    out_probs,
):
    player = (ctx, ply, filters, weights, buf2, buf1, equities, probs, plies)
    label = np.empty(5, np.float32)
    count = np.zeros(1, np.int64)
    for g in range(first_game, first_game + n_games):
        s = game_seed(seed, g)
        # the hook plays every move, so the players are never asked
        kernel_game(
            search_choose,
            player,
            search_choose,
            player,
            _search_keep_and_explore,
            (player, out_boards, out_probs, count, label, explore, s),
            s,
            MAX_TURNS,
            root,
        )
    return count[0]


def harvest_games(
    agent, games: int, seed: int = 1, explore: float = 0.05, first_game: int = 0, ply: int = 2
) -> tuple[np.ndarray, np.ndarray]:
    """(boards, labels) of every candidate that reached ``ply`` (1 or 2) in ``games``
    self-play games searched to that ply."""
    if ply not in (1, 2):
        raise ValueError(f"harvest searches to 1 or 2 plies, not {ply}")
    capacity = max(games, 1) * 400
    while True:
        boards = np.zeros((capacity, 2, 25), np.int8)
        labels = np.zeros((capacity, 5), np.float32)
        start = (agent.ctx, np.uint64(seed), first_game, games, explore, ply)
        arguments: tuple = (*start, *agent.self_play_scratch(), boards, labels)
        n = _harvest(*arguments)
        if n < capacity:  # a full buffer may have dropped positions: play again with room
            return boards[:n].copy(), labels[:n].copy()
        capacity *= 2


def chunk_path(out_dir: Path, first_game: int) -> Path:
    return out_dir / f"chunk-{first_game:08d}.npz"


def _harvest_chunk(
    spec: str, out_dir: str, seed: int, explore: float, first_game: int, games: int, ply: int = 2
) -> int:
    from nets.train.labels import _agent

    boards, labels = harvest_games(_agent(spec), games, seed, explore, first_game, ply)
    path = chunk_path(Path(out_dir), first_game)
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, boards=boards, labels=labels, games=np.array([first_game, games]), ply=np.array(ply))
    os.replace(tmp, path)
    return len(boards)


def harvest(
    spec: str,
    out_dir: str | Path,
    games: int,
    *,
    seed: int = 1,
    explore: float = 0.05,
    ply: int = 2,
    chunk_games: int = 20,
    workers: int = 1,
    ray_address: str | None = None,
    progress=None,
) -> int:
    """Harvest games ``0 .. games - 1`` into ``out_dir``, skipping chunks already
    there; returns the number of positions in the directory's chunks."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    todo = [
        (first, min(chunk_games, games - first))
        for first in range(0, games, chunk_games)
        if not chunk_path(out_dir, first).exists()
    ]
    # a handful of chunks per call, so the progress line moves and a kill loses little
    step = max(1, workers) * 2
    for i in range(0, len(todo), step):
        batch = todo[i : i + step]
        map_chunks(
            _harvest_chunk,
            [(spec, str(out_dir), seed, explore, first, count, ply) for first, count in batch],
            workers=workers,
            ray_address=ray_address,
        )
        if progress:
            progress(min(i + step, len(todo)), len(todo))
    return len(load_harvest(out_dir)[0])


def load_harvest(out_dir: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """Every chunk's (boards, labels) in game order."""
    parts = sorted(Path(out_dir).glob("chunk-*[0-9].npz"))
    if not parts:
        return np.zeros((0, 2, 25), np.int8), np.zeros((0, 5), np.float32)
    boards, labels = [], []
    for path in parts:
        with np.load(path) as data:
            boards.append(data["boards"])
            labels.append(data["labels"])
    return np.concatenate(boards), np.concatenate(labels)


def harvest_extent(out_dir: str | Path) -> dict:
    """What a harvest directory holds: its chunk count and the games they cover."""
    games: list[int] = []
    plies: set[int] = set()
    for path in sorted(Path(out_dir).glob("chunk-*[0-9].npz")):
        with np.load(path) as data:
            if "labeller" in data.files or "rollout_games" in data.files:
                return _relabel_extent(out_dir)
            first, count = (int(v) for v in data["games"])
            plies.add(int(data["ply"]) if "ply" in data.files else 2)  # chunks from before the option were 2-ply
        games.extend(range(first, first + count))
    contiguous = bool(games) and games == list(range(games[0], games[0] + len(games)))
    return {
        "dir": str(out_dir),
        "games": len(games),
        "range": [games[0], games[-1] + 1] if contiguous else None,
        "ply": sorted(plies),
    }


def _relabel_extent(out_dir: str | Path) -> dict:
    """What a directory of relabelled positions (``nets.train.relabel``) holds, and who labelled them."""
    positions, labellers = 0, set()
    for path in sorted(Path(out_dir).glob("chunk-*[0-9].npz")):
        with np.load(path) as data:
            positions += int(data["positions"][1])
            # chunks from before labellers were a setting were rollouts of the default net
            labellers.add(
                str(data["labeller"]) if "labeller" in data.files else f"rollout:{int(data['rollout_games'])}"
            )
    return {"dir": str(out_dir), "positions": positions, "labeller": sorted(labellers)}
