"""``fibsbot retrain``: the learning loop of seed 002 around the daemon's records.

1. Collect positions: every queued disagreement (the position, and the results of
   both the 0-ply and the searched choice, with the opponent to roll: exactly the
   pairs the net ranked wrongly), the decisions of logged matches with the results
   the move filter keeps at each (what moved round 8 of the shipped nets), and
   fresh self-play positions so that the net does not forget the rest of the game;
   and the positions after a dance of each (``nets.train.dances``), which no harvest
   of decisions holds and every cube decision after a dance asks about.
2. Label them (in chunks kept on disk, so a killed retrain resumes: ``nets.train.label_chunks``)
   by the strongest labeller installed (``nets.train.labellers.default_labeller``:
   Open Sage's 3-ply, else our variance-reduced pruned rollouts; never the incumbent's
   own search unless asked, whose labels only pull the net towards itself) and add them
   to the training set kept in ``DATA/training/set.npz`` (deduplicated by position).
3. Where asked (``real_life_new``), extend the labelled real-life benchmark
   (``nets.train.real_life``) with logged decisions, for the record.
4. Train a candidate from the incumbent on that set mixed with the shipped training
   sets (``nets.train.mix``), so that it does not forget the rest of the game: per-position
   SGD for a one-layer net, mini-batch AdamW for one of two hidden layers
   (``nets.train.deep_fit``); then keep, rebuild or drop its root and pruning nets by how
   often they hold its choices (``nets.train.companions``).
5. Gate (``nets.train.gate``): both nets choose in every held-out logged decision, the
   differing choices rolled out (``nets.train.choices``); promote only when the candidate
   loses less there by more than the paired standard error and is not worse head to
   head on duplicate dice; then it is promoted atomically into ``DATA/nets``
   (``nets.store``), the old version kept, the card saying how it was made and measured.
   A refused candidate is kept in ``DATA/training/candidate`` (``net:DATA/training/candidate/net``
   plays it), its card saying why it was refused, so that it can be measured further.

A retrain with nothing new (no new games since the last) labels nothing, trains
nothing and keeps the incumbent.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

from engine.eval.evaluator import Evaluator
from engine.players.agent import Agent
from engine.rules.ids import board_from_position_id
from engine.rules.moves import MoveBuffers, apply_steps
from engine.rules.notation import parse_gnubg
from nets import logfiles
from nets.player import load_agent
from nets.store import NetStore, keep_refused
from nets.train.benchmark.scoring import Benchmark, read_benchmark
from nets.train.candidates import decision_candidates
from nets.train.choices import CHOICE_GAMES, MAX_ROLLOUTS, compare_choices
from nets.train.companions import MAX_RECALL_DROP, SAMPLE_DECISIONS, refresh_companions
from nets.train.dances import dance_positions
from nets.train.deep_fit import FINE_TUNE_LR, fit_deep
from nets.train.gate import against, head_to_head, judge, paired_benchmark
from nets.train.label_chunks import clear as clear_chunks
from nets.train.label_chunks import label_in_chunks
from nets.train.labellers import default_labeller, label_spread, parse_labeller
from nets.train.labels import selfplay_positions
from nets.train.mix import DEFAULT_RATIO, mix, shipped_boards, shipped_sets
from nets.train.real_life import REAL_LIFE_LABELLER, held_out, update_real_life
from nets.train.supervised import fit, split_by_net
from nets.train.training_set import TrainingSet, judged_positions, mark_judged


@dataclass
class RetrainConfig:
    data_dir: Path
    net: str = "default"
    # None: the strongest labeller installed (``labellers.default_labeller``); "incumbent":
    # the incumbent's own search at ``label_ply`` (which pulls the net towards itself)
    labeller: str | None = None
    label_ply: int = 2
    # 0: the shipped positions mixed in (``mix_ratio``) already keep the net from forgetting the
    # rest of the game, and 200 games' 11,400 positions were a quarter of a round's labelling
    selfplay_games: int = 0
    # small and cautious: on the 23k positions of 200 arena matches, lr 0.1 (which
    # suits 100k+ harvested positions) fitted the held-out labels better but lost on
    # the benchmark (5.90 -> 6.87) and against pubeval; 0.005 gained a little
    epochs: int = 12
    lr: float = 0.005
    deep_lr: float = FINE_TUNE_LR  # AdamW's step for a net of two hidden layers (``nets.train.deep_fit``)
    lr_decay: float = 0.9
    patience: int = 3
    mix_ratio: float = DEFAULT_RATIO  # shipped positions per position of the retrain's own set
    # the root and pruning nets: kept while they hold the candidate's choices nearly as often
    # as the incumbent's, else rebuilt (a root net that cannot be, dropped): ``nets.train.companions``
    companion_max_drop: float = MAX_RECALL_DROP
    companion_decisions: int = SAMPLE_DECISIONS
    # logged decisions added to the labelled real-life benchmark per retrain, for the record (0: none;
    # 34 CPU s a decision with a roller of two hidden layers); the gate uses ``nets.train.choices``
    real_life_new: int = 0
    real_life_labeller: str = REAL_LIFE_LABELLER
    choice_games: int = CHOICE_GAMES  # rollout games a result where the two nets choose differently
    choice_max_rollouts: int = MAX_ROLLOUTS
    gate_games: int = 10000  # head to head on duplicate dice, and against gnubg 0-ply where installed
    seed: int = 1
    workers: int = 1
    ray_address: str | None = None
    benchmark_set: str | None = None
    promote: bool = True


@dataclass
class RetrainReport:
    labeller: str = ""
    queue_rows: int = 0
    positions_labelled: int = 0
    training_positions: int = 0
    mix: dict = field(default_factory=dict)
    fit: dict = field(default_factory=dict)
    companions: dict = field(default_factory=dict)  # root and pruning nets: recall, kept/rebuilt/dropped
    real_life_choices: dict = field(default_factory=dict)  # the gate's real-life figure (``nets.train.choices``)
    real_life_benchmark: dict = field(default_factory=dict)  # the labelled benchmark, where extended
    head_to_head: dict = field(default_factory=dict)
    vs_gnubg: dict | None = None
    shipped_benchmark: dict = field(default_factory=dict)
    promoted: bool = False
    version: str | None = None
    candidate: str | None = None  # where a refused candidate is kept
    reason: str = ""
    seconds: float = 0.0
    phases: dict = field(default_factory=dict)  # seconds of each step


def queue_positions(rows) -> list[np.ndarray]:
    """The decision position of each row and, for moves, both results (opponent to roll)."""
    boards = []
    for row in rows:
        board = board_from_position_id(row.position_id)
        if row.kind == "move" and held_out(board, row.dice):
            continue  # the real-life benchmark's share: never trained on
        boards.append(board)
        if row.kind != "move" or row.dice is None:
            continue
        for text in (row.choice_ply0, row.choice_search):
            if text and text != "(none)":
                after = apply_steps(board, parse_gnubg(text, board, tuple(row.dice)))
                if after[0].sum() > 0:
                    boards.append(np.ascontiguousarray(after[::-1]))
    return boards


def log_positions(log_dir: Path, limit: int = 20000, evaluator: Evaluator | None = None) -> list[np.ndarray]:
    """Decision positions from the JSON logs of played matches and, given the
    incumbent's ``evaluator``, the results its move filter keeps at each logged move
    (``nets.train.candidates``: the positions the net must rank, from the games the
    bot really plays).  Newest logs first (a stream's current file, then its segments
    newest first), at most ``limit`` positions in all, so that
    a long history does not crowd out the latest games."""
    boards: list[np.ndarray] = []
    buffers = MoveBuffers()
    for path in reversed(logfiles.log_files(log_dir)):  # rotated segments included (``nets.logfiles``)
        for line in logfiles.read_lines(path):
            if '"decision"' not in line:
                continue
            try:
                event = json.loads(line)
                board = board_from_position_id(event["position_id"])
                dice = event.get("dice") if event.get("kind") == "move" else None
                d1, d2 = (int(dice[0]), int(dice[1])) if dice else (0, 0)
            except (ValueError, KeyError, TypeError, IndexError):
                continue
            if dice and held_out(board, (d1, d2)):
                continue  # the real-life benchmark's share: never trained on
            boards.append(board)
            if evaluator is not None and dice and 1 <= d1 <= 6 and 1 <= d2 <= 6:
                boards.extend(decision_candidates(evaluator, board, d1, d2, buffers))
            if len(boards) >= limit:
                return boards[:limit]
    return boards


def incumbent_spec(config: RetrainConfig) -> tuple[str, NetStore]:
    store = NetStore(config.data_dir / "nets")
    current = store.current_path()
    if current is not None and config.net == "default":
        return str(current), store
    from nets.player import resolve_net_path

    return str(resolve_net_path(config.net)), store


def shipped_benchmark_errors(incumbent: Agent, candidate: Agent, benchmark_set: str | None) -> dict:
    """Both nets' move error on the shipped benchmark, for the record (it does not decide)."""
    if benchmark_set is None:
        return {}
    from nets.train.benchmark.scoring import read_benchmark
    from nets.train.gate import paired_benchmark

    return paired_benchmark(incumbent, candidate, read_benchmark(benchmark_set))


def labeller_spec(config: RetrainConfig, incumbent: str) -> str:
    if config.labeller is None:
        return default_labeller()
    if config.labeller == "incumbent":
        return f"net:{incumbent}@{config.label_ply}"
    return config.labeller


def _label(labeller: str, boards: np.ndarray, config: RetrainConfig) -> np.ndarray:
    return label_spread(labeller, boards, seed=config.seed, workers=config.workers, ray_address=config.ray_address)


class DecisionQueue(Protocol):
    """What the loop needs of the daemon's training queue (``fibsbot.records.queue``),
    which the caller opens: the queue belongs to the records, not to the training."""

    def __enter__(self) -> DecisionQueue: ...
    def __exit__(self, *exc) -> None: ...
    def iter_unlabelled(self) -> Iterable: ...
    def mark_labelled(self, ids: list, label: str) -> object: ...  # what it returns goes unused


def retrain(
    config: RetrainConfig, progress=print, open_queue: Callable[[], DecisionQueue] | None = None
) -> RetrainReport:
    """One turn of the loop; ``open_queue`` opens the queue of decisions to learn from
    (None: there is none yet), once to read it and once to mark what was used."""
    start = time.perf_counter()
    report = RetrainReport()
    lap = _Laps(report.phases)
    spec, store = incumbent_spec(config)
    labeller = report.labeller = labeller_spec(config, spec)
    parse_labeller(labeller).require()  # fail before any work
    parse_labeller(config.real_life_labeller).require()
    incumbent = load_agent(spec, ply=0)
    rows = []
    if open_queue is not None:
        with open_queue() as queue:
            rows = list(queue.iter_unlabelled())
    report.queue_rows = len(rows)
    boards = queue_positions(rows) + log_positions(config.data_dir / "log", evaluator=incumbent.evaluator)
    boards += list(selfplay_positions(incumbent, config.selfplay_games, seed=config.seed))
    if boards:
        boards += list(dance_positions(np.stack(boards)))
    training = TrainingSet(config.data_dir / "training" / "set.npz")
    fresh = training.unseen(boards)
    lap("positions")
    unjudged = len(training.boards) - judged_positions(config.data_dir, len(training.boards))
    progress(
        f"labelling {len(fresh)} new positions by {labeller} "
        f"({len(rows)} queued decisions, {config.selfplay_games} self-play games)"
    )
    if len(fresh):  # labelled in chunks kept on disk: a killed retrain resumes its labelling
        pending = config.data_dir / "training" / "labelling"
        setup = {"labeller": labeller, "seed": config.seed}
        labels = label_in_chunks(pending, fresh, lambda part: _label(labeller, part, config), setup, progress=progress)
        dropped = training.add(fresh, labels)
        if dropped:  # the oldest positions made room: the count of judged ones shrinks with them
            judged = judged_positions(config.data_dir, len(training.boards) + dropped - len(fresh))
            mark_judged(config.data_dir, max(0, judged - dropped))
        clear_chunks(pending)
    lap("labelling")
    report.positions_labelled = len(fresh)
    report.training_positions = len(training.boards)
    # nothing new since the last retrain that reached its verdict: the same data would give the same one
    if not len(fresh) and unjudged <= 0:
        report.reason = "nothing new to learn from since the last retrain: kept the incumbent"
        return _finish(report, config, start)
    real_life = None
    if config.real_life_new > 0:
        progress(f"real-life benchmark: labelling up to {config.real_life_new} new logged decisions")
        real_life = update_real_life(
            config.data_dir,
            labeller=config.real_life_labeller,
            max_new=config.real_life_new,
            seed=config.seed,
            workers=config.workers,
        )
        lap("real_life_benchmark")
    candidate = _train_candidate(incumbent, training, config, report, progress, lap)
    candidate_agent = Agent(candidate, 0)
    progress("gate: both nets' choices in the held-out logged decisions, rolled out where they differ")
    report.real_life_choices = compare_choices(
        incumbent,
        candidate_agent,
        config.data_dir,
        games=config.choice_games,
        max_rollouts=config.choice_max_rollouts,
        seed=config.seed,
    ).as_dict()
    lap("real_life_choices")
    if real_life is not None:
        benchmark = read_benchmark(real_life.path) if real_life.path else Benchmark()
        report.real_life_benchmark = {
            **paired_benchmark(incumbent, candidate_agent, benchmark),
            "version": real_life.version,
            "labeller": config.real_life_labeller,
        }
    progress(f"gate: {config.gate_games} games head to head on duplicate dice")
    report.head_to_head = head_to_head(candidate_agent, f"net:{spec}@0", config.gate_games, config.seed)
    lap("head_to_head")
    report.vs_gnubg = _vs_gnubg(incumbent, candidate_agent, config)
    report.shipped_benchmark = shipped_benchmark_errors(incumbent, candidate_agent, config.benchmark_set)
    lap("for_the_record")
    verdict = judge(report.real_life_choices, report.head_to_head)
    report.reason = verdict.reason
    mark_judged(config.data_dir, report.training_positions)
    card = {
        "training": {
            "method": f"supervised from the incumbent on labels by {labeller}, mixed with the shipped sets",
            "labeller": labeller,
            "positions": report.training_positions,
            "mix": report.mix,
            "companions": report.companions,
            "queue_rows": report.queue_rows,
        },
        "strength": {
            "real_life_choices": report.real_life_choices,
            "real_life_benchmark": report.real_life_benchmark,
            "head_to_head_vs_incumbent": report.head_to_head,
            "vs_gnubg0": report.vs_gnubg,
            "shipped_benchmark": report.shipped_benchmark,
        },
    }
    if verdict.promote and config.promote:
        report.version = store.promote(candidate, **card).name
        report.promoted = True
        if rows and open_queue is not None:  # rows come only from an opened queue
            with open_queue() as queue:
                queue.mark_labelled([row.id for row in rows], label=f"retrain {report.version}")
    else:
        if verdict.promote:
            report.reason += " (not promoted: --no-promote)"
        kept = keep_refused(candidate, config.data_dir / "training" / "candidate", **card, verdict=report.reason)
        report.candidate = str(kept / "net")
    return _finish(report, config, start)


class _Laps:
    """Seconds since the last lap, written into ``phases`` under each step's name."""

    def __init__(self, phases: dict) -> None:
        self.phases, self.last = phases, time.perf_counter()

    def __call__(self, name: str) -> None:
        now = time.perf_counter()
        self.phases[name] = round(self.phases.get(name, 0.0) + now - self.last, 1)
        self.last = now


def _train_candidate(
    incumbent: Agent, training: TrainingSet, config: RetrainConfig, report, progress, lap=lambda name: None
) -> Evaluator:
    """A copy of the incumbent trained on the retrain's set mixed with the shipped sets, with
    its root and pruning nets kept, rebuilt or dropped by how well they rank its choices."""
    candidate = Evaluator(
        incumbent.evaluator.contact.copy(),
        incumbent.evaluator.race.copy() if incumbent.evaluator.race else None,
        name="candidate",
        prune=incumbent.evaluator.prune,
        root=incumbent.evaluator.root,
    )
    sets = shipped_sets()
    boards, labels, report.mix = mix(training.boards, training.labels, sets, config.mix_ratio, config.seed)
    parts = split_by_net(boards, labels)
    for role, net in (("contact", candidate.contact), ("race", candidate.race)):
        if net is None or len(parts[role][0]) < 50:
            continue
        fitted = (fit_deep if net.hidden2 else fit)(
            net,
            *parts[role],
            epochs=config.epochs,
            lr=config.deep_lr if net.hidden2 else config.lr,
            lr_decay=config.lr_decay,
            patience=config.patience,
            seed=config.seed,
            progress=lambda e, tr, te, r=role: progress(f"  {r} epoch {e}: train {tr:.5f} held-out {te:.5f}"),
        )
        report.fit[role] = fitted.as_dict()
    lap("training")
    report.companions = refresh_companions(
        incumbent.evaluator,
        candidate,
        boards,
        max_drop=config.companion_max_drop,
        decisions=config.companion_decisions,
        seed=config.seed,
        more_boards=lambda count: shipped_boards(count, sets, config.seed),
        progress=progress,
    )
    lap("companions")
    return candidate


def _vs_gnubg(incumbent: Agent, candidate: Agent, config: RetrainConfig) -> dict | None:
    """Both nets against gnubg's 0-ply on the same dice, where gnubg-nn is installed."""
    theirs = against(candidate, "gnubg0", config.gate_games, config.seed)
    if theirs is None:
        return None
    ours = against(incumbent, "gnubg0", config.gate_games, config.seed)
    return {"games": theirs["games"], "incumbent": ours, "candidate": theirs}


def _finish(report: RetrainReport, config: RetrainConfig, start: float) -> RetrainReport:
    report.seconds = round(time.perf_counter() - start, 1)
    (config.data_dir / "training").mkdir(parents=True, exist_ok=True)
    (config.data_dir / "training" / "last_report.json").write_text(json.dumps(asdict(report), indent=2, default=str))
    return report
