"""Where benchmark decisions come from (``nets.train.benchmark.build``): self-play of our
net at 0-ply with a little exploration, and the bot's own decisions in arena logs.

Self-play positions get one random roll each and are split by class (gnubg's contact,
crashed, race); arena logs give the bot's move and double decisions as they came.
Only rolls with more than one distinct legal result are candidates, and a decision
met twice counts once.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, replace

import numpy as np

from engine.cube.decision import may_double
from engine.rules.boards import kernel_board
from engine.rules.ids import CENTRED, MatchState, board_from_position_id, match_state_from_id, position_id
from engine.rules.moves import MoveBuffers, generate_moves
from engine.rules.notation import parse_gnubg
from engine.rules.position import Phase, classify
from nets import logfiles

CLASS_SHARES = {"contact": 0.5, "crashed": 0.2, "race": 0.3}
EXPLORE = 0.05


def phase_class(board: np.ndarray) -> str:
    """The benchmark class: gnubg's contact, crashed, or race (bear-offs included)."""
    phase = classify(board)
    names: dict[int, str] = {Phase.CONTACT: "contact", Phase.CRASHED: "crashed"}  # Phase is an IntEnum
    return names.get(phase, "race")


@dataclass(frozen=True)
class Candidate:
    board: np.ndarray  # side on roll (to move, or to double) in row 0
    source: str
    dice: tuple[int, int] | None = None
    state: MatchState | None = None  # an arena cube decision's real score

    @property
    def key(self) -> tuple:
        return position_id(self.board), self.dice


def selfplay_pool(agent_spec: str, games: int, seed: int) -> np.ndarray:
    """Positions before their roll from ``games`` self-play games of the net at 0-ply."""
    from nets.player import load_agent
    from nets.train.labels import selfplay_positions

    return selfplay_positions(load_agent(agent_spec, ply=0), games, seed=seed, explore=EXPLORE)


def choice_count(board: np.ndarray, d1: int, d2: int, buffers: MoveBuffers) -> int:
    return generate_moves(kernel_board(board), d1, d2, *buffers.args())


def selfplay_move_candidates(boards: np.ndarray, rng: np.random.Generator) -> dict[str, list[Candidate]]:
    """Each position once with a random roll, shuffled, split by class; only real choices."""
    buffers = MoveBuffers()
    pools: dict[str, list[Candidate]] = {c: [] for c in CLASS_SHARES}
    seen = set()
    for i in rng.permutation(len(boards)):
        d1, d2 = (int(d) for d in rng.integers(1, 7, 2))
        candidate = Candidate(boards[i], "selfplay", (d1, d2))
        if candidate.key in seen or choice_count(boards[i], d1, d2, buffers) < 2:
            continue
        seen.add(candidate.key)
        pools[phase_class(boards[i])].append(candidate)
    return pools


def arena_decisions(pattern: str) -> tuple[list[Candidate], list[Candidate]]:
    """The bot's move and double decisions in arena logs (JSON lines, event "decision"), in
    the files ``pattern`` names and their rotated segments.

    The logs write each decision's Position ID with the deciding side's row first,
    the reverse of gnubg's order; which way a log writes them is checked on its
    move decisions (the logged move must be legal for the side in row 0) and applied
    to its double decisions too.
    """
    moves: list[Candidate] = []
    doubles: list[Candidate] = []
    for path in logfiles.matching(pattern):  # with their rotated segments (``nets.logfiles``)
        rows = []
        for line in logfiles.read_lines(path):
            if '"decision"' not in line or '"position_id"' not in line:
                continue
            try:
                row = json.loads(line)
                board = board_from_position_id(row["position_id"])
            except (ValueError, KeyError):
                continue
            if row.get("event") == "decision" and row.get("kind") in ("move", "double"):
                rows.append((row, board))
        flip = _log_rows_reversed(rows)
        for row, board in rows:
            board = np.ascontiguousarray(board[::-1] if flip else board)
            if row["kind"] == "move" and len(row.get("dice", ())) == 2:
                moves.append(Candidate(board, "arena", (int(row["dice"][0]), int(row["dice"][1]))))
            elif row["kind"] == "double":
                state = _roller_state(row.get("match_id", ""))
                if state is not None:
                    doubles.append(Candidate(board, "arena", None, state))
    return moves, doubles


def _log_rows_reversed(rows) -> bool:
    votes: Counter[bool] = Counter()
    for row, board in rows[:400]:
        if row["kind"] != "move" or row.get("move") in (None, "(none)"):
            continue
        for flip, view in ((False, board), (True, board[::-1])):
            try:
                votes[flip] += _playable(view, parse_gnubg(row["move"], np.ascontiguousarray(view), tuple(row["dice"])))
            except (ValueError, KeyError, TypeError):
                pass
    return votes[True] > votes[False]


def _playable(board: np.ndarray, steps) -> bool:
    """Whether the steps move row 0's own checkers to points row 1 does not block."""
    row = board[0].astype(np.int64)
    for src, dst in steps:
        col = 24 if src == 25 else src - 1
        if not 0 <= col <= 24 or row[col] <= 0 or (dst > 0 and board[1, 24 - dst] >= 2):
            return False
        row[col] -= 1
        if dst > 0:
            row[dst - 1] += 1
    return True


def _roller_state(mid: str) -> MatchState | None:
    try:
        state = match_state_from_id(mid)
    except ValueError:
        return None
    if state.on_roll == 1:  # name the roller player 0, as every cube record does
        owner = state.cube_owner if state.cube_owner == CENTRED else 1 - state.cube_owner
        state = replace(state, on_roll=0, cube_owner=owner, score=state.score[::-1])
    state = replace(state, to_decide=0, doubled=False, dice=(0, 0))
    return state if may_double(state) else None


def unique_candidates(candidates: list[Candidate], rng: np.random.Generator) -> list[Candidate]:
    seen, out = set(), []
    for i in rng.permutation(len(candidates)):
        if candidates[i].key not in seen:
            seen.add(candidates[i].key)
            out.append(candidates[i])
    return out
