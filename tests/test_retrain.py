"""The learning loop: net store, queue positions, a retrain run, the daemon's reload."""

from __future__ import annotations

import json
from dataclasses import replace
from functools import partial

import numpy as np
import pytest

from engine.eval.evaluator import Evaluator
from engine.eval.net import Net
from engine.rules.ids import MatchState, match_id, position_id
from engine.rules.position import Position
from fibsbot.arena.play import run_arena
from fibsbot.records.queue import Disagreement, TrainingQueue
from nets.player import TABLE_THINK, load_agent
from nets.store import NetStore
from nets.train.dances import dance_positions
from nets.train.label_chunks import label_in_chunks
from nets.train.labellers import parse_labeller
from nets.train.labels import selfplay_positions
from nets.train.retrain import RetrainConfig, TrainingSet, log_positions, queue_positions, retrain


def tiny_pair(tmp_path) -> str:
    contact = Net.create("gnubg5", "contact", 10, seed=3, scale=0.3)
    race = Net.create("gnubg5", "race", 6, seed=4, scale=0.3)
    contact.save(tmp_path / "tiny.npz")
    race.save(tmp_path / "tiny.race.npz")
    return str(tmp_path / "tiny.npz")


def test_store_promotes_atomically_and_keeps_old_versions(tmp_path):
    store = NetStore(tmp_path / "nets")
    assert store.current_path() is None
    pair = Evaluator(Net.create("gnubg5", "contact", 4), Net.create("gnubg5", "race", 4))
    first = store.promote(pair, note="first")
    second = store.promote(pair, note="second")
    assert store.versions() == sorted([first.name, second.name])
    assert store.current_version() == second.name
    loaded = Evaluator.load(store.current_path())
    assert loaded.race is not None and loaded.contact.card["note"] == "second"


def test_queue_rows_give_the_position_and_both_results(tmp_path):
    board = Position.initial().board
    row = Disagreement(
        position_id=position_id(board),
        match_id=match_id(MatchState()),
        dice=(3, 1),
        kind="move",
        choice_ply0="24/21 6/5",
        choice_search="8/5 6/5",
        equity_ply0=0.1,
        equity_search=0.2,
        ply=2,
        net_version="x",
    )
    boards = queue_positions([row])
    assert len(boards) == 3 and np.array_equal(boards[0], board)
    after = boards[2][::-1]  # back to the mover's view
    assert after[0, 4] == 2 and after[0, 7] == 2 and after[0, 5] == 4  # 5 point made


def test_logged_moves_give_the_results_the_move_filter_keeps(tmp_path):
    """A logged move decision gives its position and, with the incumbent, the results
    its filter keeps (at most 12 within 0.24, opponent on roll, best first); cube
    decisions give their position only; a bad line is skipped."""
    import json

    from engine.rules.moves import MoveBuffers, generate_moves

    board = Position.initial().board
    pid = position_id(board)
    lines = [
        json.dumps({"event": "decision", "kind": "move", "position_id": pid, "dice": [3, 1]}),
        json.dumps({"event": "decision", "kind": "double", "position_id": pid}),
        '{"event": "decision", "kind": "move", "position_id": "not an id", "dice": [3, 1]}',
        json.dumps({"event": "match_start"}),
    ]
    (tmp_path / "2026-11-24.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert len(log_positions(tmp_path)) == 2
    evaluator = load_agent("net:default", ply=0).evaluator
    boards = log_positions(tmp_path, evaluator=evaluator)
    kept = boards[1:-1]
    buffers = MoveBuffers()
    n = generate_moves(board, 3, 1, *buffers.args())
    equities, _ = evaluator.move_equities(buffers.boards[:n])
    within = [i for i in np.argsort(-equities, kind="stable") if equities[i] >= equities.max() - 0.24][:12]
    assert np.array_equal(boards[0], board) and np.array_equal(boards[-1], board)
    assert len(kept) == len(within) > 1
    for got, i in zip(kept, within):
        assert np.array_equal(got, buffers.boards[i][::-1])  # the opponent to roll
    assert len(log_positions(tmp_path, limit=3, evaluator=evaluator)) == 3


def test_training_set_deduplicates_and_survives_reloading(tmp_path):
    path = tmp_path / "set.npz"
    ts = TrainingSet(path)
    board = Position.initial().board
    fresh = ts.unseen([board, board.copy()])
    assert len(fresh) == 1
    ts.add(fresh, np.full((1, 5), 0.5))
    assert len(TrainingSet(path).unseen([board])) == 0


def test_training_set_keeps_the_newest_positions_up_to_its_cap(tmp_path):
    path = tmp_path / "set.npz"
    boards = np.zeros((5, 2, 25), np.int8)
    for i in range(5):
        boards[i, 0, i] = 1  # five different positions
    ts = TrainingSet(path, max_positions=3)
    assert ts.add(boards[:2], np.zeros((2, 5))) == 0
    assert ts.add(boards[2:], np.zeros((3, 5))) == 2  # the two oldest make room
    kept = TrainingSet(path, max_positions=3)
    assert np.array_equal(kept.boards, boards[2:])
    assert len(kept.unseen(list(boards))) == 2  # a dropped position may be labelled again


async def test_retrain_on_arena_play_measures_and_gates(tmp_path):
    net = tiny_pair(tmp_path)
    data = tmp_path / "data"
    # no background warm-up: until it finished, every move would be taken at 0-ply and
    # nothing queued, so the test would depend on what ran before it
    result = await run_arena(length=1, matches=2, ply=1, net=net, data_dir=data, seed=3, warmup=False)
    assert result.queued > 0
    config = RetrainConfig(
        data,
        net=net,
        labeller="incumbent",
        label_ply=1,
        selfplay_games=4,
        epochs=2,
        mix_ratio=0.5,
        real_life_new=8,
        real_life_labeller="net:default@0",
        choice_games=4,
        gate_games=100,
        seed=2,
    )
    open_queue = partial(TrainingQueue, data / "queue.sqlite")
    report = retrain(config, progress=lambda text: None, open_queue=open_queue)
    assert report.labeller == f"net:{net}@1"
    assert report.queue_rows == result.queued and report.positions_labelled > report.queue_rows
    assert report.mix["ratio"] == 0.5 and report.mix["shipped_positions"] == round(0.5 * report.training_positions)
    assert "contact" in report.fit
    assert not (data / "training" / "labelling").exists()  # the labels are in the set: no chunks left
    real = report.real_life_benchmark
    assert 0 < real["positions"] <= 8 and real["version"] == 1 and real["labeller"] == "net:default@0"
    assert {"incumbent_error", "candidate_error", "stderr", "difference"} <= set(real)
    assert report.head_to_head["games"] == 100 and {"ppg", "stderr"} <= set(report.head_to_head)
    store = NetStore(data / "nets")
    assert report.promoted == (store.current_version() is not None)
    choices = report.real_life_choices  # the gate's figure: every held-out decision, rolled out where they differ
    assert choices["positions"] > 0 and choices["games"] == 4 and choices["rolled_out"] == choices["differing"]
    assert report.promoted == (
        choices["difference"] < -choices["stderr"] and report.head_to_head["ppg"] >= -report.head_to_head["stderr"]
    )
    assert set(report.phases) >= {"positions", "labelling", "training", "real_life_choices", "head_to_head"}
    with TrainingQueue(data / "queue.sqlite") as queue:
        assert queue.count(labelled=True) == (report.queue_rows if report.promoted else 0)
    assert (data / "training" / "set.npz").exists() and (data / "training" / "last_report.json").exists()
    # the positions after a dance, which no decision of ours shows, are learned too
    training = TrainingSet(data / "training" / "set.npz")
    after_dances = dance_positions(training.boards)
    assert len(after_dances) > 0 and len(training.unseen(list(after_dances))) == 0
    # a second retrain with no new games changes nothing
    versions_before = store.versions()
    again = retrain(config, progress=lambda text: None, open_queue=open_queue)
    assert again.positions_labelled == 0 and not again.promoted and "nothing new" in again.reason
    assert store.versions() == versions_before and len(TrainingSet(data / "training" / "set.npz").boards) == len(
        training.boards
    )
    # a retrain killed after its labelling (the positions in the set, no verdict on them yet) is finished
    # by the next one, which trains and judges instead of finding nothing new
    (data / "training" / "judged.json").unlink()
    (data / "training" / "last_report.json").unlink()
    resumed = retrain(replace(config, promote=False), progress=lambda text: None, open_queue=open_queue)
    assert resumed.positions_labelled == 0 and "contact" in resumed.fit and "nothing new" not in resumed.reason
    # the refused candidate is kept, with why, where a player spec finds it
    assert resumed.candidate == str(data / "training" / "candidate" / "net") and not resumed.promoted
    card = json.loads((data / "training" / "candidate" / "net.json").read_text())
    assert card["verdict"] == resumed.reason and card["strength"]["head_to_head_vs_incumbent"] == resumed.head_to_head
    kept = load_agent(f"net:{resumed.candidate}@0")
    assert kept.evaluator.race is not None
    assert json.loads((data / "training" / "judged.json").read_text())["positions"] == len(training.boards)


async def test_retrain_labels_with_the_labeller_it_is_given(tmp_path):
    pytest.importorskip("bgsage", reason="bgsage (the optional labeller) is not installed")
    from nets.train.labellers import BgsageLabeller

    net = tiny_pair(tmp_path)
    data = tmp_path / "data"
    await run_arena(length=1, matches=1, ply=0, net=net, data_dir=data, seed=4)
    config = RetrainConfig(
        data,
        net=net,
        labeller="bgsage@1",
        selfplay_games=2,
        epochs=1,
        real_life_new=2,
        real_life_labeller="net:default@0",
        choice_games=2,
        gate_games=20,
        seed=2,
        promote=False,
    )
    report = retrain(config, progress=lambda text: None, open_queue=partial(TrainingQueue, data / "queue.sqlite"))
    training = TrainingSet(data / "training" / "set.npz")
    assert report.positions_labelled == len(training.boards) > 0 and report.labeller == "bgsage@1"
    assert training.labels == pytest.approx(BgsageLabeller(1).label(training.boards), abs=1e-6)


def test_daemon_swaps_in_a_promoted_net_at_the_next_match(tmp_path, monkeypatch):
    from fibsbot.config import load_settings
    from fibsbot.daemon import NetReloader
    from fibsbot.protocol.events import MatchStart

    monkeypatch.setenv("FIBSBOT_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("FIBSBOT_PLAY__PLY", "0")
    settings = load_settings(None)
    reloader = NetReloader(settings, records=type("R", (), {"net_version": ""})())

    class Client:
        agent = None

    reloader.client = Client()
    event = MatchStart(opponent="x", length=3, we_joined=True)
    reloader.on_event(event, None)
    assert Client.agent is None  # nothing promoted yet
    NetStore(tmp_path / "nets").promote(Evaluator(Net.create("gnubg5", "contact", 4), Net.create("gnubg5", "race", 4)))
    reloader.on_event(event, None)
    assert reloader.client.agent is not None and reloader.client.agent.ply == 0
    assert str(NetStore(tmp_path / "nets").current_path()) in reloader.agent_spec()
    assert load_agent(reloader.agent_spec()).evaluator.race is not None


def test_the_daemons_agent_gets_the_configured_threads(tmp_path, monkeypatch):
    from fibsbot.config import load_settings
    from fibsbot.daemon import NetReloader

    monkeypatch.setenv("FIBSBOT_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("FIBSBOT_PLAY__LEVEL", "table")
    monkeypatch.setenv("FIBSBOT_PLAY__WORKERS", "2")
    agent = NetReloader(load_settings(None), records=type("R", (), {"net_version": ""})()).load_agent()
    assert agent.workers == 2 and agent.think == TABLE_THINK and len(agent.tree.workers) == 2


def test_a_promoted_net_can_be_rolled_back_from_the_command_line(tmp_path, capsys):
    from fibsbot.cli import main

    store = NetStore(tmp_path / "nets")
    pair = Evaluator(Net.create("gnubg5", "contact", 4), Net.create("gnubg5", "race", 4))
    first, second = store.promote(pair).name, store.promote(pair).name
    assert store.current_version() == second
    assert main(["retrain", "--data-dir", str(tmp_path), "--roll-back", first]) == 0
    assert store.current_version() == first and first in capsys.readouterr().out
    assert main(["retrain", "--data-dir", str(tmp_path), "--roll-back", "no-such-version"]) == 2
    assert "no version 'no-such-version'" in capsys.readouterr().err and store.current_version() == first
    assert main(["retrain", "--data-dir", str(tmp_path), "--roll-back", "shipped"]) == 0
    assert store.current_path() is None and store.versions() == sorted([first, second])


def test_log_lines_of_a_command_go_to_stderr_so_its_json_stays_one_object(capsys):
    # the acceptance round's `retrain --json` printed its labelling progress lines on stdout
    # before the JSON object; they belong on stderr
    import structlog

    from fibsbot.cli.app import log_to_stderr

    old = structlog.get_config()
    try:
        log_to_stderr()
        structlog.get_logger().info("benchmark.labelling", done=100, of=379)
        print('{"promoted": false}')
        captured = capsys.readouterr()
        assert json.loads(captured.out) == {"promoted": False}
        assert "benchmark.labelling" in captured.err
    finally:
        structlog.configure(**old)


def test_a_command_run_in_process_leaves_the_logging_as_it_found_it(capsys):
    # main() once bound structlog to the stderr of the test that called it; every later
    # test's log line then hit a closed file ("I/O operation on closed file")
    import structlog

    from fibsbot.cli.app import main

    before = structlog.get_config()
    assert main(["hint", "--batch", "/no/such/file"]) == 2
    assert structlog.get_config() == before
    assert "no such file" in capsys.readouterr().err


def test_a_killed_labelling_resumes_from_its_chunks_and_labels_nothing_twice(tmp_path):
    boards = selfplay_positions(load_agent("net:default@0"), 2, seed=17)[:25]
    labeller = parse_labeller("net:default@0")
    seen: list[int] = []

    def label(part, fail_after=None):
        if fail_after is not None and len(seen) >= fail_after:
            raise KeyboardInterrupt  # the retrain killed mid-labelling
        seen.append(len(part))
        return labeller.label(part)

    setup = {"labeller": "net:default@0", "seed": 1}
    with pytest.raises(KeyboardInterrupt):
        label_in_chunks(tmp_path, boards, lambda part: label(part, fail_after=2), setup, chunk=10)
    assert seen == [10, 10] and len(list(tmp_path.glob("chunk-*.npz"))) == 2
    labels = label_in_chunks(tmp_path, boards, label, setup, chunk=10)
    assert seen == [10, 10, 5]  # only the positions no chunk held
    assert np.allclose(labels, labeller.label(boards))
    # chunks of another labeller are never used
    label_in_chunks(tmp_path, boards, label, {**setup, "labeller": "net:default@1"}, chunk=10)
    assert seen[3:] == [10, 10, 5]
