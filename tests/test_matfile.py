"""The .mat recorder: layout, bookkeeping, crash safety, and the real gnubg reading it back."""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path

import numpy as np
import pytest

from engine.players.registry import PubevalPlayer, RandomPlayer
from engine.rules.moves import legal_moves
from engine.rules.position import Position
from fibsbot.records.matfile import RIGHT_COLUMN, MatchRecorder, MatRecordError
from tests.gnubg_cli import GNUBG, require_gnubg

# ---------------------------------------------------------------- a match played by the engine


def _cube_script(game: int, turn: int) -> str | None:
    """Cube and resignation actions of the generated match, by (game, turn) before the roll."""
    return {(1, 4): "double-take", (1, 7): "double-drop", (2, 5): "resign-gammon", (3, 6): "double-take"}.get(
        (game, turn)
    )


def play_recorded_match(path: Path, seed: int, length: int = 7) -> tuple[MatchRecorder, list[dict]]:
    """Pubeval (player 0, left) against a random player, with scripted cube actions.

    Returns the recorder and, per game, what was recorded: the actions in order
    and the result, in the shape gnubg's ``gnubg.match()`` reports them.
    """
    rng = random.Random(seed)
    players = (PubevalPlayer(), RandomPlayer(seed))
    recorder = MatchRecorder(path, ("pubeval", "random"), length)
    games: list[dict] = []
    while not recorder.is_over:
        recorder.start_game()
        number = len(recorder.games)
        crawford = recorder.games[-1].crawford
        actions: list[tuple] = []
        position, cube, owner = Position.initial(), 1, None
        d0 = d1 = 0
        while d0 == d1:
            d0, d1 = rng.randint(1, 6), rng.randint(1, 6)
        seat, dice = (0, (d0, d1)) if d0 > d1 else (1, (d1, d0))
        result = None
        for turn in range(1, 400):
            if turn > 1:
                script = _cube_script(number, turn)
                may_double = not crawford and owner in (None, seat)
                if script and script.startswith("double") and may_double:
                    recorder.double(seat)
                    actions.append(("double", seat))
                    if script.endswith("take"):
                        recorder.take(1 - seat)
                        actions.append(("take", 1 - seat))
                        cube, owner = cube * 2, 1 - seat
                    else:
                        recorder.drop(1 - seat)
                        actions.append(("drop", 1 - seat))
                        result = (seat, cube, False)
                        break
                elif script == "resign-gammon":
                    recorder.resign(seat, 2 * cube)
                    actions.append(("resign", seat))
                    result = (1 - seat, 2 * cube, True)
                    break
                dice = (rng.randint(1, 6), rng.randint(1, 6))
            options = legal_moves(position, *dice)
            if len(options) == 1:
                move, after = options[0]
            else:
                candidates = np.stack([after.board for _, after in options])
                move, after = options[players[seat].choose(position.board, *dice, candidates)]
            recorder.roll_and_move(seat, dice, move)
            actions.append(("move", seat, tuple(sorted(dice)), tuple(sorted(move))))
            if after.is_game_over():
                points = int(after.result()) * cube
                recorder.win(seat, points)
                result = (seat, points, False)
                break
            position, seat = after.flip(), 1 - seat
        assert result is not None, "a generated game did not end"
        games.append({"actions": actions, "winner": result[0], "points": result[1], "resigned": result[2]})
    return recorder, games


# ---------------------------------------------------------------- layout


def test_layout_follows_gnubg_export(tmp_path):
    recorder = MatchRecorder(tmp_path / "m.mat", ("alice", "bob"), 3, site="fibs.com")
    recorder.start_game()
    recorder.roll_and_move(1, (6, 5), [(24, 18), (18, 13)])
    recorder.roll_and_move(0, (3, 1), [(8, 5), (6, 5)])
    recorder.double(1)
    recorder.take(0)
    recorder.roll_and_move(1, (4, 3), [(13, 9), (9, 6)])
    recorder.double(0)
    recorder.drop(1)
    lines = (tmp_path / "m.mat").read_text().splitlines()
    assert '; [Site "fibs.com"]' in lines
    game = lines.index(" Game 1")
    assert lines[game - 2] == " 3 point match"
    score = lines[game + 1]
    assert score.startswith(" alice : 0") and score.index("bob : 0") == 32
    moves = lines[game + 2 : game + 7]
    assert moves[0] == "  1)" + " " * 29 + "65: 24/18 18/13"  # the right player opened
    assert moves[1].startswith("  2) 31: 8/5 6/5 ") and moves[1].endswith(" Doubles => 2")
    assert moves[1].index("Doubles") == RIGHT_COLUMN + 1
    assert moves[2].startswith("  3)  Takes ") and moves[2][RIGHT_COLUMN:] == "43: 13/9 9/6"
    assert moves[3].startswith("  4)  Doubles => 4") and moves[3].endswith(" Drops")
    assert moves[4] == "      Wins 2 points"  # the doubler (left) wins the cube before the double
    assert recorder.score == (2, 0)


def test_hits_dances_resignations_and_the_match(tmp_path):
    recorder = MatchRecorder(tmp_path / "m.mat", ("a", "b"), 3)
    recorder.start_game()
    recorder.roll_and_move(0, (6, 4), [(24, 18), (18, 14)])
    recorder.roll_and_move(1, (6, 5), [(24, 18), (18, 13)])
    recorder.roll_and_move(0, (1, 1), [(6, 5), (6, 5), (8, 7), (8, 7)])
    recorder.resign(1, 1)
    assert recorder.score == (1, 0)
    recorder.start_game()
    recorder.roll_and_move(0, (3, 1), [(8, 5), (6, 5)])
    recorder.roll_and_move(1, (5, 5), [])  # recorded as a dance whatever the board says
    recorder.resign(0, 2)  # b wins a gammon: 1-2
    recorder.start_game()
    recorder.roll_and_move(0, (6, 5), [(24, 18), (18, 13)])
    recorder.resign(0, 1)
    text = (tmp_path / "m.mat").read_text()
    assert recorder.score == (1, 3) and recorder.is_over
    assert "  2) 11: 6/5 6/5 8/7 8/7" in text
    assert "55:" in text and "55: " not in text
    # right winner on a line holding only a left entry: same line, right column
    last = [line for line in text.splitlines() if "Wins" in line]
    assert last[0] == "      Wins 1 point"
    assert last[-1].endswith("Wins 1 point and the match") and last[-1].index("Wins") == RIGHT_COLUMN + 1
    assert not recorder.games[1].crawford and recorder.games[2].crawford  # b is 1-away at 1-2


def test_hit_marks_follow_the_checkers(tmp_path):
    recorder = MatchRecorder(tmp_path / "m.mat", ("a", "b"), 0)
    recorder.start_game()
    recorder.roll_and_move(0, (6, 2), [(24, 18), (13, 11)])  # blot on a's 11 = b's 14
    recorder.roll_and_move(1, (6, 4), [(24, 18), (18, 14)])  # hits it
    recorder.roll_and_move(0, (3, 2), [(25, 22), (13, 11)])  # enters, hits back on b's 14
    recorder.roll_and_move(1, (3, 1), [(25, 22), (6, 5)])
    body = recorder.text()
    assert "64: 24/18 18/14*" in body and "32: 25/22 13/11*" in body and "31: 25/22 6/5" in body
    assert recorder.games[0].board[0, 24] == recorder.games[0].board[1, 24] == 0
    with pytest.raises(MatRecordError, match="no checker on the bar"):
        recorder.roll_and_move(0, (4, 3), [(25, 21)])


@pytest.mark.parametrize(
    "calls, message",
    [
        ([("roll_and_move", 0, (3, 1), [(8, 5)])], "no game in progress"),
        ([("start_game",), ("take", 0)], "did not offer"),
        ([("start_game",), ("double", 0), ("double", 1)], "already awaits"),
        ([("start_game",), ("double", 0), ("roll_and_move", 0, (3, 1), [(8, 5)])], "awaits an answer"),
        ([("start_game",), ("double", 0), ("take", 1), ("double", 0)], "owned by the opponent"),
        ([("start_game",), ("double", 0, 8)], "offers 2, not 8"),
        ([("start_game",), ("roll_and_move", 0, (7, 1), [(8, 1)])], "dice"),
        ([("start_game",), ("roll_and_move", 0, (6, 1), [(13, 7), (7, 7)])], "downwards"),
        ([("start_game",), ("roll_and_move", 0, (6, 5), [(24, 18), (18, 13), (13, 7), (7, 2), (6, 1)])], "at most 4"),
        (
            [
                ("start_game",),
                ("roll_and_move", 0, (1, 1), [(24, 23), (23, 22), (22, 21), (21, 20)]),
                ("roll_and_move", 1, (6, 5), [(1, 0)]),
            ],
            "no checker",
        ),
        ([("start_game",), ("roll_and_move", 0, (5, 5), [(6, 1)])], "held by the opponent"),
        ([("start_game",), ("win", 0, 1), ("win", 1, 1)], "already ended"),
        ([("start_game",), ("start_game",)], "has not ended"),
        ([("start_game",), ("win", 2, 1)], "must be 0"),
    ],
)
def test_calls_that_do_not_fit_are_refused(tmp_path, calls, message):
    recorder = MatchRecorder(tmp_path / "m.mat", ("a", "b"), 5)
    with pytest.raises(MatRecordError, match=message):
        for name, *args in calls:
            getattr(recorder, name)(*args)


def test_crawford_game_keeps_a_double_the_server_allowed_and_repeated_result_is_ignored(tmp_path):
    recorder = MatchRecorder(tmp_path / "m.mat", ("a", "b"), 3)
    recorder.start_game(score=(2, 0))  # a resumed match: the server's score counts
    assert recorder.games[0].crawford
    recorder.double(1)  # the rules forbid it; a server that let it through is noted in the file
    recorder.drop(0)
    assert '; [Server rule breach "Game 1: b doubled to 2 in the Crawford game, which the server allowed"]' in (
        recorder.text().splitlines()
    )
    recorder.win(1, 1)
    recorder.win(1, 1)  # the server's announcement after the recorder already knew
    recorder.start_game()
    assert not recorder.games[1].crawford and recorder.games[1].score == (2, 1)
    recorder.double(0)
    recorder.drop(1)
    recorder.win(0, 1)
    assert recorder.is_over and recorder.score == (3, 1)
    with pytest.raises(MatRecordError, match="over"):
        recorder.start_game()


def test_file_is_rewritten_atomically_after_each_game(tmp_path):
    path = tmp_path / "sub" / "m.mat"
    recorder = MatchRecorder(path, ("a", "b"), 5)
    recorder.start_game()
    recorder.roll_and_move(0, (3, 1), [(8, 5), (6, 5)])
    assert not path.exists()  # nothing finished yet
    recorder.win(0, 1)
    after_one = path.read_text()
    assert "Wins 1 point" in after_one
    recorder.start_game()
    recorder.roll_and_move(1, (4, 2), [(8, 4), (6, 4)])
    assert path.read_text() == after_one  # an unfinished game waits for the end or a flush
    recorder.flush()
    assert "42: 8/4 6/4" in path.read_text()
    assert [p.name for p in path.parent.iterdir()] == ["m.mat"]  # no temporary files left


def test_names_cannot_break_the_layout(tmp_path):
    recorder = MatchRecorder(tmp_path / "m.mat", ("evil: name", ""), 1)
    assert recorder.players == ("evil__name", "player1")


# ---------------------------------------------------------------- the real gnubg reads it back

_DUMP_SCRIPT = """
import gnubg, json, os
gnubg.command("import mat " + os.environ["FIBSBOT_MAT_IN"])
with open(os.environ["FIBSBOT_JSON_OUT"], "w") as out:
    json.dump(gnubg.match(0, 0, 0, 0), out)
"""


def gnubg_read_match(mat: Path, workdir: Path) -> tuple[dict, str]:
    """gnubg's own idea of a match file: ``gnubg.match()`` after ``import mat``, and its output."""
    script = workdir / "dump.py"
    script.write_text(_DUMP_SCRIPT)
    out = workdir / "match.json"
    env = dict(os.environ, FIBSBOT_MAT_IN=str(mat), FIBSBOT_JSON_OUT=str(out))
    result = subprocess.run(
        [str(GNUBG), "-t", "-q", "-r", "-p", str(script)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert out.exists(), f"gnubg wrote nothing; stderr: {result.stderr[-2000:]}"
    return json.loads(out.read_text()), result.stdout + result.stderr


def test_gnubg_imports_an_engine_played_match_move_for_move(tmp_path):
    require_gnubg()
    recorder, expected = play_recorded_match(tmp_path / "match.mat", seed=1)
    kinds = [action[0] for game in expected for action in game["actions"]]
    assert {"double", "take", "drop", "resign"} <= set(kinds), "the script must exercise every entry"
    assert "and the match" in (tmp_path / "match.mat").read_text()

    match, output = gnubg_read_match(tmp_path / "match.mat", tmp_path)
    assert "WARNING" not in output and "Unrecognised" not in output, output[-2000:]
    assert match["match-info"]["X"]["name"] == "pubeval" and match["match-info"]["match-length"] == 7
    seat = {"X": 0, "O": 1}  # gnubg's player 0 (our left column) is X
    assert len(match["games"]) == len(expected)
    for number, (got, want) in enumerate(zip(match["games"], expected), 1):
        actions = []
        for record in got["game"]:
            if record["action"] == "move":
                steps = tuple(sorted(tuple(step) for step in record.get("move") or ()))
                actions.append(("move", seat[record["player"]], tuple(sorted(record["dice"])), steps))
            else:
                actions.append((record["action"], seat[record["player"]]))
        assert actions == want["actions"], f"game {number}"
        info = got["info"]
        assert (seat[info["winner"]], info["points-won"]) == (want["winner"], want["points"]), f"game {number}"
        assert info["resigned"] == want["resigned"], f"game {number}"
    moves = sum(kind == "move" for kind in kinds)
    assert moves == sum(r["action"] == "move" for g in match["games"] for r in g["game"]) > 100
