"""The learning loop with a net of the shipped default's shape: two hidden layers (deep5)
with a race, a pruning and a root net, through labelling, fine-tuning, the companion
nets' check, the gate, promotion, the daemon's reload and a roll-back."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import nets.train.retrain as retrain_module
from engine.eval.evaluator import Evaluator
from engine.eval.net import Net
from engine.players.agent import Agent
from engine.rules.ids import position_id
from engine.search.context import ROOT_PRUNE_KEEP, make_context
from fibsbot.records.queue import TrainingQueue
from nets.player import load_agent
from nets.store import NetStore
from nets.train.companions import decision_sample, distil_like, recall, refresh_companions
from nets.train.dense import DenseNet
from nets.train.gate import Verdict
from nets.train.labels import selfplay_positions
from nets.train.mix import FALLBACK_LABELS, shipped_sets
from nets.train.pruning import distil_net
from nets.train.retrain import RetrainConfig, retrain

QUEUE = Path(__file__).resolve().parent / "fixtures" / "datadir-0.1.0" / "data" / "queue.sqlite"
COMPANIONS = ("net.npz", "net.race.npz", "net.prune.npz", "net.root.npz")


@pytest.fixture(scope="module")
def played():
    """Positions of a few games of the shipped net, the stuff of logs and companions."""
    return selfplay_positions(load_agent("net:default@0"), 4, seed=11)


def deep_incumbent(boards: np.ndarray) -> Evaluator:
    """A tiny net of s1k400's make: contact2 inputs, two hidden layers, a race net, a
    Tesauro-input pruning net and a root net distilled from its own 0-ply."""
    contact = DenseNet.create("contact2", (16, 8), seed=2).as_net()
    race = Net.create("gnubg5", "race", 6, seed=4, scale=0.3)
    prune = Net.create("gnubg5", "tesauro", 8, seed=5, scale=0.3)
    root, _ = distil_net(Agent(Evaluator(contact, race, "deep"), 0), boards, "tesauro", 12, epochs=6, seed=6, lr=0.3)
    return Evaluator(contact, race, "deep", prune, root=root)


def write_log(log_dir: Path, boards: np.ndarray, seed: int = 5) -> None:
    """Logged move decisions as the daemon writes them (what the real-life benchmark reads)."""
    rng = np.random.default_rng(seed)
    rolls = rng.integers(1, 7, (len(boards), 2)).tolist()
    lines = [
        json.dumps({"event": "decision", "kind": "move", "position_id": position_id(b), "dice": dice})
        for b, dice in zip(boards, rolls)
    ]
    log_dir.mkdir(parents=True)
    (log_dir / "fibsbot.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_a_deep_net_with_its_companions_goes_round_the_whole_loop(tmp_path, played, monkeypatch, capsys):
    from fibsbot.cli import main
    from fibsbot.config import load_settings
    from fibsbot.daemon import NetReloader
    from fibsbot.protocol.events import MatchStart

    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(QUEUE, data / "queue.sqlite")  # the decisions release 0.1.0 queued
    write_log(data / "log", played)
    incumbent = deep_incumbent(played)
    store = NetStore(data / "nets")
    first = store.promote(incumbent, note="the incumbent").name
    monkeypatch.setenv("FIBSBOT_DATA_DIR", str(data))
    monkeypatch.setenv("FIBSBOT_PLAY__PLY", "0")
    reloader = NetReloader(load_settings(None), records=type("R", (), {"net_version": ""})())

    class Client:
        agent = None

    reloader.client = Client()

    verdicts: list[Verdict] = []

    def gate_then_promote(real_life, duel):  # the gate runs; its verdict on tiny nets is forced
        verdicts.append(judge(real_life, duel))
        return Verdict(True, verdicts[-1].reason + " (promoted by the test)")

    judge = retrain_module.judge
    monkeypatch.setattr(retrain_module, "judge", gate_then_promote)
    config = RetrainConfig(
        data,
        labeller="net:default@0",
        selfplay_games=3,
        epochs=2,
        deep_lr=3e-3,
        mix_ratio=0.0,
        real_life_new=6,
        real_life_labeller="net:default@0",
        choice_games=4,
        gate_games=40,
        companion_decisions=300,
        seed=2,
    )
    report = retrain(config, progress=lambda text: None, open_queue=lambda: TrainingQueue(data / "queue.sqlite"))

    assert verdicts and report.real_life_choices["positions"] > 0 and report.real_life_benchmark["positions"] > 0
    assert report.head_to_head["games"] == 40
    assert report.promoted and report.version == store.current_version() != first
    assert report.queue_rows > 0 and report.fit["contact"]["epochs"] >= 1 and "race" in report.fit
    assert set(report.companions) == {"root", "prune"}
    for role, entry in report.companions.items():
        assert entry["decisions"] > 100 and entry["keep"] == 4 and 0 <= entry["recall"]["4"] <= 1
        assert entry["action"] in ("kept", "rebuilt", "kept: the rebuilt one ranked no better"), (role, entry)
    version = data / "nets" / "versions" / report.version
    assert all((version / name).exists() for name in COMPANIONS)  # promoted with every companion net
    card = json.loads((version / "net.json").read_text())
    assert card["training"]["companions"] == report.companions and card["hidden2"] == 8
    with TrainingQueue(data / "queue.sqlite") as queue:
        assert queue.count(labelled=True) == report.queue_rows

    # the daemon takes it at its next match, root net and all
    reloader.on_event(MatchStart(opponent="x", length=3, we_joined=True), None)
    playing = reloader.client.agent.evaluator
    promoted = Evaluator.load(version / "net.npz")
    assert reloader.version == report.version and playing.contact.hidden2 == 8
    assert playing.contact.weights_digest() == promoted.contact.weights_digest()
    assert playing.contact.weights_digest() != incumbent.contact.weights_digest()
    assert playing.root is not None and playing.root.weights_digest() == promoted.root.weights_digest()
    assert make_context(playing).root_keep == ROOT_PRUNE_KEEP

    # rolled back, the incumbent plays again, its companions with it
    assert main(["retrain", "--data-dir", str(data), "--roll-back", first]) == 0
    capsys.readouterr()
    reloader.on_event(MatchStart(opponent="y", length=3, we_joined=True), None)
    back = reloader.client.agent.evaluator
    assert store.current_version() == first and reloader.version == first
    for role in ("contact", "race", "prune", "root"):
        assert getattr(back, role).weights_digest() == getattr(incumbent, role).weights_digest(), role


def test_a_root_net_that_misses_the_candidates_choices_is_rebuilt_or_dropped(played):
    """The rule of ``nets.train.companions``: the recall of the full net's choices among a
    companion's 4 favourites, against its recall of the incumbent's less the allowed drop."""
    one_layer = Net.create("gnubg5", "tesauro", 12, seed=8, scale=0.3)
    scrambled = Net.create("gnubg5", "tesauro", 12, seed=9, scale=0.3)
    race = Net.create("gnubg5", "race", 6, seed=4, scale=0.3)
    # the incumbent's root net ranks as the incumbent does (it is the same net): recall 1
    incumbent = Evaluator(scrambled, race, "incumbent", scrambled, root=scrambled)

    def candidate():
        return Evaluator(one_layer, race, "candidate", scrambled, root=scrambled)

    sample, _ = decision_sample(played, 300, seed=1)
    missed = recall(candidate(), scrambled, sample)["4"]
    assert len(sample.boards) > 100 and missed < 0.99

    kept = candidate()
    done = refresh_companions(incumbent, kept, played, max_drop=1.0, decisions=300, progress=lambda _: None)
    assert kept.root is scrambled and done["root"]["action"] == "kept" and done["root"]["incumbent_recall"]["4"] == 1

    def same_as_the_full_net(agent, rest, like, role):
        return one_layer.copy()

    rebuilt = candidate()
    done = refresh_companions(
        incumbent, rebuilt, played, decisions=300, rebuild=same_as_the_full_net, progress=lambda _: None
    )
    assert done["root"]["recall"]["4"] == missed and done["root"]["rebuilt_recall"]["4"] == 1
    assert done["root"]["action"] == done["prune"]["action"] == "rebuilt"
    assert rebuilt.root.weights_digest() == rebuilt.prune.weights_digest() == one_layer.weights_digest()

    dropped = candidate()
    done = refresh_companions(
        incumbent, dropped, played, decisions=300, rebuild=lambda *_: scrambled.copy(), progress=lambda _: None
    )
    assert dropped.root is None and done["root"]["action"].startswith("dropped")
    assert dropped.prune is scrambled and done["prune"]["action"] == "kept: the rebuilt one ranked no better"
    assert make_context(dropped).root_keep == 0  # the full net scores every move at the root


def test_a_rebuilt_companion_keeps_the_shape_and_inputs_of_the_one_it_replaces(played):
    full = Evaluator(DenseNet.create("contact2", (16, 8), seed=2).as_net(), Net.create("gnubg5", "race", 6, seed=4))
    like = Net.create("gnubg5", "tesauro", 10, seed=3)
    net = distil_like(Agent(full, 0), played, like, "root")
    assert (net.arch, net.encoding, net.hidden) == ("gnubg5", "tesauro", 10)
    assert net.card["distilled_from"] == "the retrained candidate's own 0-ply"


def test_the_mix_reads_the_sets_open_sage_labels_where_the_card_names_labels_they_lack(tmp_path):
    # s1k400's card names k1, its parent's 1-ply, written to copies of the sets outside the repository
    boards = np.zeros((4, 2, 25), np.int8)
    np.savez(tmp_path / "own.npz", boards=boards, k1=np.zeros((4, 5)))
    np.savez(tmp_path / "sage.npz", boards=boards, sage1=np.zeros((4, 5)), sage2=np.zeros((4, 5)))
    np.savez(tmp_path / "neither.npz", boards=boards, other=np.zeros((4, 5)))
    card = {"training": {"data": [{"file": f"{n}.npz", "labels": "k1"} for n in ("own", "sage", "neither", "absent")]}}
    (tmp_path / "card.json").write_text(json.dumps(card))
    assert shipped_sets(tmp_path / "card.json", tmp_path) == [
        f"{tmp_path / 'own.npz'}:k1",
        f"{tmp_path / 'sage.npz'}:{FALLBACK_LABELS}",
    ]


def test_a_card_that_names_its_retrain_sets_is_mixed_from_those_once_each(tmp_path):
    boards = np.zeros((4, 2, 25), np.int8)
    (tmp_path / "runs").mkdir()
    np.savez(tmp_path / "runs" / "sage.npz", boards=boards, sage1=np.zeros((4, 5)), sage2=np.zeros((4, 5)))
    np.savez(tmp_path / "runs" / "back.npz", boards=boards, rollout36=np.zeros((4, 5)))
    card = {
        # what the fine-tune itself learned (given 20 times, beside an uncommitted anchor) is not what is mixed in
        "training": {
            "data": [{"file": "back.npz", "labels": "rollout36"}] * 20 + [{"file": "anchor.npz", "labels": "own0"}]
        },
        "retrain_sets": [
            {"file": "runs/sage.npz", "labels": "k1"},
            {"file": "runs/back.npz", "labels": "rollout36"},
            {"file": "runs/back.npz", "labels": "rollout36"},
            {"file": "runs/absent.npz", "labels": "k1"},
        ],
    }
    (tmp_path / "card.json").write_text(json.dumps(card))
    assert shipped_sets(tmp_path / "card.json", tmp_path / "elsewhere", nets_dir=tmp_path) == [
        f"{tmp_path / 'runs' / 'sage.npz'}:{FALLBACK_LABELS}",
        f"{tmp_path / 'runs' / 'back.npz'}:rollout36",
    ]
