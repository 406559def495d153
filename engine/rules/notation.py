"""Move notation: gnubg's (``24/18 13/11``, ``bar/22*``, ``8/5(2)``, ``24/18*/13``) and FIBS's.

A move is a tuple of steps ``((from, to), ...)`` in the mover's own numbering (it
moves from 24 towards 1), one step per die: 25 is the bar, 0 is borne off, and the
empty tuple is "no move".  Nothing here knows the rules of movement; legality is
``engine.rules.moves``'s business.

gnubg prints a move (checked against gnubg 1.07's ``hint`` listings) by

1. sorting the steps by from-point, highest first (ties: higher to-point first);
2. joining the steps of one checker: the intermediate point is dropped
   (``24/18 18/13`` -> ``24/13``) unless the opponent had a checker there before the
   move, which keeps it with a hit mark (``24/18*/13``);
3. counting identical paths (``8/5 8/5`` -> ``8/5(2)``);
4. marking a final point with ``*`` if the opponent had a checker there before the
   move, unless that point already carries a ``*`` earlier in the string
   (``13/7* 8/7``, ``6/2*(2)``).
"""

from __future__ import annotations

import re
from itertools import permutations

import numpy as np

BAR_POINT = 25
OFF_POINT = 0
MAX_STEPS = 4
DIE_SIDES = 6

Step = tuple[int, int]
Move = tuple[Step, ...]


class NotationError(ValueError):
    """Text that is not a move, or a move that cannot be written as asked."""


def _opponent_checkers(board: np.ndarray, point: int) -> int:
    """Opponent checkers on the mover's point 1..24 (their column 24 - point)."""
    return int(board[1, 24 - point]) if 1 <= point <= 24 else 0


def _check_step(step: Step, single_die: bool = False) -> None:
    try:
        start, end = (int(x) for x in step)
    except (TypeError, ValueError):
        raise NotationError(f"step {step!r} must be a pair of points (from, to)") from None
    if not 1 <= start <= BAR_POINT:
        raise NotationError(f"step {start}/{end}: a step starts on points 1..24 or the bar (25)")
    if not OFF_POINT <= end <= 24:
        raise NotationError(f"step {start}/{end}: a step ends on points 1..24 or off (0)")
    if end >= start:
        raise NotationError(f"step {start}/{end}: checkers move from higher to lower points")
    if single_die and (start - end > DIE_SIDES if end else start > DIE_SIDES):
        raise NotationError(f"step {start}/{end} is longer than one die; give one step per die")


def _point_text(point: int) -> str:
    return {BAR_POINT: "bar", OFF_POINT: "off"}.get(point, str(point))


# ---------------------------------------------------------------- gnubg: writing


def format_gnubg(board: np.ndarray, move: Move) -> str:
    """The move as gnubg writes it; ``board`` is the position before the move (mover in row 0)."""
    if len(move) > MAX_STEPS:
        raise NotationError(f"a move has at most {MAX_STEPS} steps, got {len(move)}")
    for step in move:
        _check_step(step)
    steps = sorted(((int(a), int(b)) for a, b in move), reverse=True)
    paths: list[list[int]] = []
    used = [False] * len(steps)
    for i, (start, end) in enumerate(steps):
        if used[i]:
            continue
        path = [start, end]
        for j in range(i + 1, len(steps)):
            if not used[j] and steps[j][0] == path[-1]:
                if not _opponent_checkers(board, path[-1]):
                    path.pop()
                path.append(steps[j][1])
                used[j] = True
        paths.append(path)

    groups: list[tuple[list[int], int]] = []
    for path in paths:
        for k, (seen, count) in enumerate(groups):
            if seen == path:
                groups[k] = (seen, count + 1)
                break
        else:
            groups.append((path, 1))

    marked: set[int] = set()
    words = []
    for path, count in groups:
        text = _point_text(path[0])
        for point in path[1:-1]:
            text += f"/{point}*"
            marked.add(point)
        end = path[-1]
        text += "/" + _point_text(end)
        if end != OFF_POINT and _opponent_checkers(board, end) and end not in marked:
            text += "*"
            marked.add(end)
        if count > 1:
            text += f"({count})"
        words.append(text)
    return " ".join(words)


# ---------------------------------------------------------------- gnubg: reading

_GNUBG_POINT = r"(?:bar|off|\d{1,2})"
_GNUBG_WORD = re.compile(rf"({_GNUBG_POINT}(?:/{_GNUBG_POINT}\*?)+)(?:\((\d)\))?", re.IGNORECASE)


def _gnubg_point(text: str, word: str) -> int:
    lowered = text.lower()
    if lowered == "bar":
        return BAR_POINT
    if lowered == "off":
        return OFF_POINT
    value = int(text)
    if value > BAR_POINT:
        raise NotationError(f"{word!r}: point {value} does not exist (1..24, bar = 25, off = 0)")
    return value


def _parse_gnubg_word(word: str) -> tuple[list[int], set[int], int]:
    """(points of the path, points marked '*', repeat count) of one word like ``24/18*/13(2)``."""
    match = _GNUBG_WORD.fullmatch(word)
    if not match:
        raise NotationError(f"{word!r} is not a gnubg move like 24/18, bar/22*, 6/off or 8/5(2)")
    body, repeat = match.group(1), int(match.group(2) or 1)
    if not 1 <= repeat <= MAX_STEPS:
        raise NotationError(f"{word!r}: repeat count must be 1..{MAX_STEPS}")
    points, hits = [], set()
    for part in body.split("/"):
        point = _gnubg_point(part.rstrip("*"), word)
        if part.endswith("*"):
            hits.add(point)
        points.append(point)
    for start, end in zip(points, points[1:]):
        try:
            _check_step((start, end))
        except NotationError as exc:
            raise NotationError(f"{word!r}: {exc}") from None
    return points, hits, repeat


def parse_gnubg(text: str, board: np.ndarray | None = None, dice: tuple[int, int] | None = None) -> Move:
    """Read gnubg notation.

    Without ``dice`` each ``a/b`` becomes one step, however far it goes.  With dice,
    every step is split into single-die steps; ``board`` (before the move, mover in
    row 0) then steers the split around blocked points and unmarked hits, and a ``*``
    on a point where the opponent has no checker is refused.  Where two splits both
    fit, the larger die goes first.
    """
    if not isinstance(text, str):
        raise NotationError(f"a move must be text, got {type(text).__name__}")
    words = text.split()
    hops: list[Step] = []
    for word in words:
        points, hits, repeat = _parse_gnubg_word(word)
        if board is not None:
            for point in hits:
                if not _opponent_checkers(board, point):
                    raise NotationError(f"{word!r} marks a hit on {point}, where the opponent has no checker")
        for _ in range(repeat):
            hops.extend(zip(points, points[1:]))
    if dice is None:
        if len(hops) > MAX_STEPS:
            raise NotationError(f"{text!r} has {len(hops)} steps, a move has at most {MAX_STEPS}")
        return tuple(hops)
    return _split_by_dice(text, hops, board, _dice_pool(dice))


def _dice_pool(dice: tuple[int, int]) -> tuple[int, ...]:
    if isinstance(dice, str):
        raise NotationError(f"dice {dice!r} must be a pair of numbers, not text")
    try:
        first, second = (int(d) for d in dice)
    except (TypeError, ValueError):
        raise NotationError(f"dice {dice!r} must be a pair of numbers 1..6") from None
    if not (1 <= first <= DIE_SIDES and 1 <= second <= DIE_SIDES):
        raise NotationError(f"dice {dice!r} must be a pair of numbers 1..6")
    return (first,) * 4 if first == second else (max(first, second), min(first, second))


def _hop_splits(start: int, end: int, pool: tuple[int, ...], board: np.ndarray | None):
    """Ways to cover one hop with some of the dice, best first: (single-die steps, dice left)."""
    options: list[tuple[int, int, int, tuple[tuple[int, int], ...], tuple[int, ...]]] = []
    seen = set()
    for size in range(1, len(pool) + 1):
        for order in permutations(range(len(pool)), size):
            dice = tuple(pool[k] for k in order)
            if dice in seen:
                continue
            seen.add(dice)
            landing, steps, cost = start, [], 0
            for k, die in enumerate(dice):
                last = k == len(dice) - 1
                target = landing - die
                if not last and target <= end:
                    break
                if last:
                    if end == OFF_POINT and target < 0:
                        cost += 1  # bearing off with a bigger die than needed: fine, but second choice
                    elif target != end:
                        break
                    target = end
                elif board is not None:
                    opponent = _opponent_checkers(board, target)
                    if opponent >= 2:
                        break
                    cost += 2 * opponent  # an unmarked hit on the way: gnubg would have shown it
                steps.append((landing, target))
                landing = target
            else:
                used: list[int | None] = list(pool)
                for k in order:
                    used[k] = None
                rest = tuple(d for d in used if d is not None)
                options.append((cost, size, len(options), tuple(steps), rest))
    options.sort()
    return [(steps, rest) for _, _, _, steps, rest in options]


def _split_by_dice(text: str, hops, board, pool) -> Move:
    def search(index: int, remaining: tuple[int, ...]) -> list[Step] | None:
        if index == len(hops):
            return []
        start, end = hops[index]
        for steps, rest in _hop_splits(start, end, remaining, board):
            tail = search(index + 1, rest)
            if tail is not None:
                return list(steps) + tail
        return None

    result = search(0, pool)
    if result is None:
        raise NotationError(f"{text!r} cannot be played with dice {pool[0]}-{pool[-1]}")
    return tuple(result)


# ---------------------------------------------------------------- FIBS

_FIBS_FROM_WORDS = {"bar": BAR_POINT, "b": BAR_POINT}
_FIBS_TO_WORDS = {"off": OFF_POINT, "o": OFF_POINT, "home": OFF_POINT, "h": OFF_POINT}
_FIBS_WORD = re.compile(r"([a-z]+|\d{1,2})-([a-z]+|\d{1,2})")


def _check_direction(direction: int) -> None:
    if direction not in (-1, 1):
        raise NotationError(f"direction must be -1 (moving 24 -> 1) or 1 (moving 1 -> 24), got {direction!r}")


def _to_server(point: int, direction: int) -> int:
    return point if direction == -1 else 25 - point


def format_fibs(move: Move, direction: int) -> str:
    """The FIBS command for a move, e.g. ``move 24-18 13-11``, in server point numbers.

    ``direction`` is the board line's: -1 when we move from server point 24 to 1
    (server point = our point), 1 when we move from 1 to 24 (server = 25 - ours).
    Steps keep their order, one ``from-to`` per die.
    """
    _check_direction(direction)
    if not move:
        raise NotationError("FIBS has no move command for 'no move'; the server passes by itself")
    if len(move) > MAX_STEPS:
        raise NotationError(f"a move has at most {MAX_STEPS} steps, got {len(move)}")
    words = []
    for step in move:
        _check_step(step, single_die=True)
        start, end = int(step[0]), int(step[1])
        start_text = "bar" if start == BAR_POINT else str(_to_server(start, direction))
        end_text = "off" if end == OFF_POINT else str(_to_server(end, direction))
        words.append(f"{start_text}-{end_text}")
    return "move " + " ".join(words)


def _fibs_point(text: str, words: dict[str, int], direction: int, word: str) -> int:
    if text.isdigit():
        server = int(text)
        if server > 25:
            raise NotationError(f"{word!r}: point {server} does not exist on the server board (0..25)")
        return server if direction == -1 else 25 - server  # 0 and 25 are the bars and homes
    if text not in words:
        raise NotationError(f"{word!r}: {text!r} is not a point here (expected a number or {'/'.join(words)})")
    return words[text]


def parse_fibs(text: str, direction: int) -> Move:
    """Read a FIBS move (``move 24-18 13-11``, ``m bar-22 6-o``, ``U moves 19-23 17-22 .``).

    Points are server numbers; ``direction`` as in ``format_fibs``.  Returns single
    steps in our numbering.
    """
    _check_direction(direction)
    if not isinstance(text, str):
        raise NotationError(f"a move must be text, got {type(text).__name__}")
    tokens = text.strip().lower().split()
    if tokens and tokens[-1] == ".":
        tokens.pop()
    if len(tokens) >= 2 and tokens[1] == "moves":  # the server's echo: "<name> moves ..."
        tokens = tokens[2:]
    elif tokens and tokens[0] in ("move", "m"):
        tokens = tokens[1:]
    if not tokens:
        raise NotationError(f"{text!r} contains no steps")
    if len(tokens) > MAX_STEPS:
        raise NotationError(f"{text!r} has {len(tokens)} steps, a move has at most {MAX_STEPS}")
    steps = []
    for word in tokens:
        match = _FIBS_WORD.fullmatch(word.rstrip(".,"))
        if not match:
            raise NotationError(f"{word!r} in {text!r} is not a FIBS step like 24-18, bar-22 or 6-off")
        start = _fibs_point(match.group(1), _FIBS_FROM_WORDS, direction, word)
        end = _fibs_point(match.group(2), _FIBS_TO_WORDS, direction, word)
        try:
            _check_step((start, end), single_die=True)
        except NotationError as exc:
            raise NotationError(f"{word!r} in {text!r}: {exc}") from None
        steps.append((start, end))
    return tuple(steps)
