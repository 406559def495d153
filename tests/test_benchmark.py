"""nets.train.benchmark.scoring: the set's format, scoring against hand-made labels, building and the CLI."""

from __future__ import annotations

import gzip
import json
import math
import sys

import numpy as np
import pytest

import fibsbot.cli.benchmark  # noqa: F401  registers `benchmark` and `benchmark-build`
from engine.cube.decision import cube_decision, cube_life
from engine.rules.ids import MatchState, board_from_position_id, match_id, match_state_from_id, position_id
from engine.rules.moves import MoveBuffers, generate_moves, legal_moves
from engine.rules.notation import format_gnubg, parse_gnubg
from engine.rules.position import Position
from fibsbot.cli import main
from nets.train.benchmark.build import arena_decisions, build_benchmark
from nets.train.benchmark.players import make_player, score_spec
from nets.train.benchmark.scoring import (
    Benchmark,
    BenchmarkError,
    CubeRecord,
    MoveOption,
    MoveRecord,
    cube_losses,
    paired_difference,
    read_benchmark,
    score,
    write_benchmark,
)

OPENING = Position.initial().board


def race_board() -> np.ndarray:
    board = np.zeros((2, 25), np.int8)
    board[0, [0, 2, 4, 5, 7]] = [2, 3, 4, 3, 3]
    board[1, [1, 3, 5, 8]] = [4, 4, 4, 3]
    return board


def results(board: np.ndarray, d1: int, d2: int) -> list[tuple[str, str]]:
    """(result ID, move text) of every legal result."""
    return [
        (position_id(after.flip().board), format_gnubg(board, move))
        for move, after in legal_moves(Position(board), d1, d2)
    ]


def hand_record(board, dice, cls, best_text, step=0.01) -> MoveRecord:
    """Every result of the roll, the move ``best_text`` best at 0.2 and the k-th other
    at 0.2 - k * step (all judged at 2-ply)."""
    found = results(board, *dice)
    ordered = sorted(found, key=lambda r: r[1] != best_text)
    assert ordered[0][1] == best_text
    moves = tuple(MoveOption(position_id=rid, equity=0.2 - k * step, ply=2) for k, (rid, _) in enumerate(ordered))
    return MoveRecord(cls=cls, position_id=position_id(board), dice=dice, moves=moves)


class Scripted:
    """Plays a fixed move text per decision; fixed cube probabilities."""

    name = "scripted"

    def __init__(self, plays: dict, probs=None) -> None:
        self.plays = plays
        self.probs = probs

    def result(self, board, d1, d2):
        steps = parse_gnubg(self.plays[position_id(board), (d1, d2)], board, (d1, d2))
        for move, after in legal_moves(Position(board), d1, d2):
            if sorted(move) == sorted(steps):
                return after.board
        raise AssertionError("scripted move is not legal")

    def cube_probs(self, board):
        return None if self.probs is None else np.array(self.probs)


def equity_of(record: MoveRecord, text: str) -> float:
    board = board_from_position_id(record.position_id)
    rid = dict((m, r) for r, m in results(board, *record.dice))[text]
    return record.option_of(rid).equity


@pytest.fixture
def tiny() -> Benchmark:
    contact = hand_record(OPENING, (3, 1), "contact", "8/5 6/5")
    race = hand_record(race_board(), (6, 5), "race", "8/2 6/1")
    cube = CubeRecord(
        cls="contact",
        position_id=position_id(OPENING),
        match_id=match_id(MatchState(jacoby=False)),
        probs=(0.72, 0.2, 0.01, 0.08, 0.005),
    )
    return Benchmark(meta={"labeller": "hand-made"}, moves=(contact, race), cubes=(cube,))


def test_round_trip_gzip_and_plain(tmp_path, tiny):
    for name in ("set.jsonl.gz", "set.jsonl"):
        path = write_benchmark(tmp_path / name, tiny)
        assert read_benchmark(path) == tiny
    with gzip.open(tmp_path / "set.jsonl.gz", "rt") as stream:
        lines = [json.loads(line) for line in stream]
    assert [line["kind"] for line in lines] == ["meta", "move", "move", "cube"]
    assert lines[1]["class"] == "contact" and lines[1]["dice"] == [3, 1] and len(lines[1]["moves"]) == 16


@pytest.mark.parametrize(
    "bad, reason",
    [
        ("{not json", "line 2"),
        (
            '{"kind": "move", "class": "contact", "position_id": "4HPwATDgc/ABMA", "dice": [7, 1], '
            '"moves": [{"position_id": "4HPwATDgc/ABMA", "equity": 0, "ply": 0}, '
            '{"position_id": "4HPwATDgc/ABMB", "equity": 0, "ply": 0}]}',
            "dice",
        ),
        ('{"kind": "riddle"}', "unknown kind"),
        ('{"kind": "meta", "format": 99}', "newer"),
        (
            '{"kind": "cube", "class": "race", "position_id": "4HPwATDgc/ABMA", "match_id": "cAkAAAAAAAAA", '
            '"probs": [1.5, 0, 0, 0, 0]}',
            "probs",
        ),
    ],
)
def test_malformed_records_name_their_line(tmp_path, tiny, bad, reason):
    path = tmp_path / "bad.jsonl"
    write_benchmark(path, Benchmark(moves=tiny.moves[:1]))
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0], bad, lines[1]]) + "\n")
    with pytest.raises(BenchmarkError, match=reason):
        read_benchmark(path)
    with pytest.raises(BenchmarkError, match="no benchmark file"):
        read_benchmark(tmp_path / "missing.jsonl.gz")


def test_scoring_hand_made_losses(tiny):
    contact, race = tiny.moves
    worse = "24/23 24/21"  # a legal move listed below the best
    loss_contact = contact.best_equity - equity_of(contact, worse)
    assert loss_contact > 0
    player = Scripted({(contact.position_id, (3, 1)): worse, (race.position_id, (6, 5)): "8/2 6/1"})
    result = score(player, tiny)
    moves = result["moves"]
    assert moves["contact"]["n"] == 1 and moves["contact"]["error"] == pytest.approx(loss_contact * 1000)
    assert moves["race"]["error"] == 0 and moves["race"]["wrong"] == 0
    assert moves["crashed"] == {"n": 0, "error": None, "stderr": None, "wrong": None, "shallow": None}
    assert moves["contact"]["shallow"] == 0.0  # every hand-made figure is a 2-ply one
    overall = moves["overall"]
    assert overall["error"] == pytest.approx(loss_contact * 500)
    assert overall["stderr"] == pytest.approx(np.std([loss_contact * 1000, 0], ddof=1) / math.sqrt(2))
    assert overall["wrong"] == 0.5
    assert result["cube"] is None  # the scripted player has no cube probabilities


def test_a_shallow_figure_above_the_best_is_no_gain():
    board, dice = OPENING, (3, 1)
    (best_id, _), (other_id, _), *rest = results(board, *dice)
    options = [MoveOption(position_id=best_id, equity=0.1, ply=2), MoveOption(position_id=other_id, equity=0.3, ply=0)]
    options += [MoveOption(position_id=r, equity=-0.5, ply=0) for r, _ in rest]
    record = MoveRecord(cls="contact", position_id=position_id(board), dice=dice, moves=tuple(options))
    from nets.train.benchmark.scoring import move_loss

    assert move_loss(record, board_from_position_id(other_id)[::-1]) == 0.0
    assert move_loss(record, board_from_position_id(rest[0][0])[::-1]) == pytest.approx(0.6)
    with pytest.raises(BenchmarkError, match="not among"):
        move_loss(record, OPENING)  # "no move" is not a result of 31
    with pytest.raises(ValueError, match="deepest ply"):
        MoveRecord(cls="contact", position_id=position_id(board), dice=dice, moves=tuple(reversed(options)))


def test_cube_losses_use_the_labels_equities(tiny):
    record = tiny.cubes[0]
    label = cube_decision(np.array(record.probs), MatchState(jacoby=False), cube_life=cube_life(OPENING))
    eq = label.equities
    assert label.double and label.take  # a hand-made double/take
    assert cube_losses(record, record.probs) == (0.0, 0.0)
    # a player who sees a quiet position: no double (wrong), and would take (right)
    double_loss, take_loss = cube_losses(record, (0.5, 0.1, 0.0, 0.1, 0.0))
    assert double_loss == pytest.approx(eq["double_take"] - eq["no_double"]) and double_loss > 0
    assert take_loss == 0.0
    # a player who sees a gammonless cash: the double is right, the drop wrong
    double_loss, take_loss = cube_losses(record, (0.92, 0.0, 0.0, 0.0, 0.0))
    assert double_loss == pytest.approx(0.0, abs=1e-12)
    assert take_loss == pytest.approx(eq["double_drop"] - eq["double_take"]) and take_loss > 0
    result = score(Scripted({}, probs=(0.5, 0.1, 0.0, 0.1, 0.0)), Benchmark(cubes=tiny.cubes))
    assert result["cube"]["error"] == pytest.approx((eq["double_take"] - eq["no_double"]) * 1000)
    assert result["cube"]["wrong_doubles"] == 1.0 and result["cube"]["wrong_takes"] == 0.0


def test_cli_scores_a_tiny_set(tmp_path, tiny, capsys):
    path = write_benchmark(tmp_path / "tiny.jsonl.gz", tiny)
    assert main(["benchmark", "pubeval", "--set", str(path), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["player"] == "pubeval" and result["cube"] is None
    assert result["moves"]["overall"]["n"] == 2 and result["moves"]["overall"]["error"] >= 0
    assert main(["benchmark", "net:default@0", "--set", str(path), "--limit", "1"]) == 0
    text = capsys.readouterr().out
    assert "contact" in text and "cube: 1 positions" in text
    assert main(["benchmark", "nobody", "--set", str(path)]) == 2
    assert "unknown player" in capsys.readouterr().err


def test_versus_scores_two_players_on_the_same_decisions_paired(tmp_path, tiny, capsys):
    path = write_benchmark(tmp_path / "tiny.jsonl.gz", tiny)
    assert main(["benchmark", "pubeval", "--set", str(path), "--versus", "net:default@0", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    ours, theirs, difference = result["moves"], result["versus"]["moves"], result["difference"]
    assert result["versus"]["player"] == "net:default@0"
    for cls in ("contact", "race", "overall"):
        if ours[cls]["n"]:
            assert difference[cls]["n"] == ours[cls]["n"]
            assert difference[cls]["difference"] == pytest.approx(ours[cls]["error"] - theirs[cls]["error"])
    assert main(["benchmark", "net:default@0", "--set", str(path), "--versus", "net:default@0"]) == 0
    text = capsys.readouterr().out
    assert "minus net:default@0" in text and "overall" in text.split("(paired):")[1]


def test_paired_difference_counts_the_decisions_that_differ(tiny):
    first = [(0.010, False), (0.0, False)]
    second = [(0.0, False), (0.0, False)]
    out = paired_difference(Benchmark(moves=tiny.moves), first, second, None, None)
    assert out["overall"]["n"] == 2 and out["overall"]["differ"] == 1
    assert out["overall"]["difference"] == pytest.approx(5.0) and out["overall"]["stderr"] == pytest.approx(5.0)
    assert "cube" not in out


def test_gnubg_player_skips_cleanly_without_gnubg_nn(tmp_path, tiny, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "gnubg_nn", None)  # import gnubg_nn now fails
    with pytest.raises(BenchmarkError, match="gnubg-nn"):
        make_player("gnubg0")
    path = write_benchmark(tmp_path / "tiny.jsonl.gz", tiny)
    assert main(["benchmark", "gnubg0", "--set", str(path)]) == 2
    assert "gnubg-nn" in capsys.readouterr().err


def test_gnubg_player_is_scored_with_the_same_labels(tiny):
    pytest.importorskip("gnubg_nn", reason="gnubg-nn not installed")
    contact = hand_record(OPENING, (3, 1), "contact", "24/23 24/21")  # so that gnubg's 8/5 6/5 loses
    result = score(make_player("gnubg0"), Benchmark(moves=(contact,), cubes=tiny.cubes))
    expected = contact.best_equity - equity_of(contact, "8/5 6/5")
    assert result["moves"]["contact"]["error"] == pytest.approx(expected * 1000)
    assert result["cube"]["decisions"] == 1


def test_built_set_lists_every_result_and_its_labeller_scores_zero(tmp_path, capsys):
    out = tmp_path / "built.jsonl.gz"
    assert (
        main(
            [
                "benchmark-build",
                "--out",
                str(out),
                "--labeller",
                "net:default@2",
                "--moves",
                "8",
                "--cube",
                "2",
                "--seed",
                "4",
                "--sources",
                "selfplay",
            ]
        )
        == 0
    )
    built = read_benchmark(out)
    assert len(built.moves) == 8 and built.meta["labeller"] == "net:default@2"
    assert built.meta["cube_positions"] == 2 and all(r.probs[0] >= 0.4 for r in built.cubes)
    assert {r.cls for r in built.moves} == {"contact", "crashed", "race"}
    buffers = MoveBuffers()
    for record in built.moves:
        board = board_from_position_id(record.position_id)
        n = generate_moves(board, *record.dice, *buffers.args())
        listed = {m.position_id for m in record.moves}
        assert listed == {position_id(np.ascontiguousarray(buffers.boards[i][::-1])) for i in range(n)}
        # the best is judged deepest: 2-ply unless a filter left it alone, the choice clear
        assert record.moves[0].ply == max(m.ply for m in record.moves)
        assert record.best_equity - min(m.equity for m in record.moves) >= 0.001
    assert len({(r.position_id, r.dice) for r in built.moves}) == len(built.moves)
    assert len({(r.position_id, r.match_id) for r in built.cubes}) == len(built.cubes)
    for record in built.cubes:
        assert match_state_from_id(record.match_id).on_roll == 0
    capsys.readouterr()
    assert main(["benchmark", "net:default@2", "--set", str(out), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["moves"]["overall"]["error"] == 0.0
    assert result["cube"]["error"] < 0.5
    again = build_benchmark(labeller="net:default@2", n_moves=8, n_cube=2, seed=4, sources=("selfplay",))
    assert again.moves == built.moves and again.cubes == built.cubes
    alone, shared = score_spec("net:default@0", built, 1), score_spec("net:default@0", built, workers=2)
    assert shared["moves"] == alone["moves"]
    assert shared["cube"]["error"] == pytest.approx(alone["cube"]["error"])


def test_arena_logs_are_read_with_their_row_order_checked(tmp_path):
    board = race_board()
    move = format_gnubg(board, legal_moves(Position(board), 6, 5)[0][0])
    state = MatchState(match_length=3, score=(1, 0), dice=(0, 0))
    rows = [  # as the arena's recorder writes them: the deciding side's row first
        {
            "event": "decision",
            "kind": "move",
            "position_id": position_id(board[::-1].copy()),
            "dice": [6, 5],
            "move": move,
            "match_id": match_id(state),
        },
        {
            "event": "decision",
            "kind": "double",
            "position_id": position_id(OPENING[::-1].copy()),
            "match_id": match_id(state),
        },
        {"event": "decision", "kind": "move", "serial": 3},
    ]
    log = tmp_path / "arena.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in rows) + 'not json but "decision" "position_id"\n')
    moves, doubles = arena_decisions(str(tmp_path / "*.jsonl"))
    assert len(moves) == 1 and np.array_equal(moves[0].board, board) and moves[0].dice == (6, 5)
    assert len(doubles) == 1 and doubles[0].state.score == (1, 0) and doubles[0].state.on_roll == 0
