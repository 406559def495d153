"""Reading what GNU Backgammon prints and records about a match, for ``play_vs_gnubg.py``.

``show statistics match`` (fenced by marker lines in gnubg's output) gives each
side's chequer and cube figures, errors as positive costs; gnubg's match record
gives the winner, the score and the games.
"""

from __future__ import annotations

import re

# ``show matchlength`` prints this line and changes nothing: it fences the statistics
MARKER_COMMAND = "show matchlength"
MARKER = re.compile(r"New matches default to \d+ points?\.")
NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")
VALUE = r"[-+]?\d+(?:\.\d+)?%?(?:\s*\((?:[^()]|\([^()]*\))*\))?"  # -0.198 ( -4.959%), 2 (-0.049 ( -0.490%))
CUBE_ERROR_LINES = (
    "Missed doubles below CP",
    "Missed doubles above CP",
    "Wrong doubles below DP",
    "Wrong doubles above TG",
    "Wrong takes",
    "Wrong passes",
)
SIDES = ("gnubg", "ours")  # gnubg's player 0 and player 1: its columns, in that order


class MatchError(RuntimeError):
    """A match that could not be played or read to its end."""


def statistics_block(stdout: str) -> str:
    """The output of ``show statistics match``: between the last two markers."""
    chunks = MARKER.split(stdout)
    if len(chunks) < 3:
        raise MatchError("gnubg printed no match statistics")
    return chunks[-2]


def _cells(rest: str) -> list:
    """The two columns of a statistics line: lists of numbers, or texts (the ratings)."""
    numeric = re.fullmatch(rf"\s*({VALUE})\s+({VALUE})\s*", rest)
    if numeric:
        return [[float(n) for n in NUMBER.findall(cell)] for cell in numeric.groups()]
    return re.split(r"\s{2,}", rest.strip())


def parse_statistics_table(text: str) -> dict[str, dict[str, list]]:
    """``show statistics match`` to {section: {label: [player 0's cell, player 1's cell]}}."""
    table: dict[str, dict[str, list]] = {}
    section = None
    for line in text.splitlines():
        heading = re.fullmatch(r"\s*(\w+) statistics\s*", line)
        if heading:
            section = table.setdefault(heading.group(1).lower(), {})
            continue
        labelled = re.match(r"(\S.*?)\s{2,}(\S.*)$", line.rstrip())
        if section is not None and labelled and len(cells := _cells(labelled.group(2))) == 2:
            section[labelled.group(1)] = cells  # a line with one value (luck rating diff.) is left out
    return table


def _row(section: dict[str, list], prefix: str) -> list:
    cells = next((cells for label, cells in section.items() if label.startswith(prefix)), None)
    if cells is None:
        raise MatchError(f"no line {prefix!r} in gnubg's statistics")
    return cells


def _count(section: dict[str, list], prefix: str, column: int) -> int:
    return int(_row(section, prefix)[column][0])


def _cost(section: dict[str, list], prefix: str, column: int) -> float:
    return -_row(section, prefix)[column][0]  # gnubg prints errors as negative equity


def side_figures(text: str) -> dict[str, dict]:
    """Each side's figures from ``show statistics match``; errors as positive costs."""
    table = parse_statistics_table(text)
    try:
        chequer, cube, overall = table["chequerplay"], table["cube"], table["overall"]
    except KeyError as missing:
        raise MatchError(f"no {missing} section in gnubg's statistics") from None
    marks = ("doubtful", "bad", "very bad")
    return {
        side: {
            "total_moves": _count(chequer, "Total moves", i),
            "unforced_moves": _count(chequer, "Unforced moves", i),
            "chequer_errors": sum(_count(chequer, f"Moves marked {mark}", i) for mark in marks),
            "chequer_error_total_emg": _cost(chequer, "Error total", i),
            "chequer_error_rate_memg": _cost(chequer, "Error rate", i),
            "chequer_rating": _row(chequer, "Chequerplay rating")[i],
            "cube_total_decisions": _count(cube, "Total cube decisions", i),
            "cube_decisions": _count(cube, "Close or actual cube decisions", i),
            "doubles": _count(cube, "Doubles", i),
            "takes": _count(cube, "Takes", i),
            "passes": _count(cube, "Passes", i),
            "cube_errors": sum(_count(cube, label, i) for label in CUBE_ERROR_LINES),
            "cube_error_total_emg": _cost(cube, "Error total", i),
            "cube_error_rate_memg": _cost(cube, "Error rate", i),
            "cube_rating": _row(cube, "Cube decision rating")[i],
            "overall_error_rate_memg": _cost(overall, "Error rate", i),
            "overall_rating": _row(overall, "Overall rating")[i],
            "fibs_rating": _row(overall, "Error based abs. FIBS rating")[i][0],
        }
        for i, side in enumerate(SIDES)
    }


def match_result(record: dict, length: int) -> dict:
    """Winner, final score and games from gnubg's match record (X: gnubg, O: ours)."""
    side = {"X": "gnubg", "O": "ours"}
    score = {"gnubg": 0, "ours": 0}
    games = []
    for game in record.get("games", []):
        info = game["info"]
        winner = side.get(info.get("winner"))
        if winner is None:
            raise MatchError(f"game {len(games) + 1} has no winner: the match stopped")
        games.append({"winner": winner, "points": info["points-won"], "resigned": bool(info.get("resigned"))})
        score[winner] += info["points-won"]
    if max(score.values()) < length:
        raise MatchError(f"the match stopped at gnubg {score['gnubg']}, ours {score['ours']} of {length}")
    return {"winner": max(score, key=score.get), "score": score, "games": games}
