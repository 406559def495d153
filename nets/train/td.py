"""`fibsbot train td`: TD(lambda) self-play training with checkpoints and a running benchmark."""

from __future__ import annotations

import csv
import json
import math
import os
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from engine.eval.evaluator import Evaluator
from engine.eval.net import Net, NetError, swap_permutation
from engine.rules.moves import MoveBuffers
from nets.train.td_kernel import td_games


@dataclass
class TDConfig:
    arch: str = "tesauro3"
    encoding: str = "tesauro"
    hidden: int = 80
    race_arch: str | None = None  # a separate race net when set
    race_encoding: str = "race"
    race_hidden: int = 64
    lam: float = 0.0
    schedule: list = field(default_factory=lambda: [[200_000, 0.1], [None, 0.02]])
    games: int = 200_000
    seed: int = 1
    init_scale: float = 0.1
    checkpoint_every: int = 10_000
    bench_every: int = 10_000
    bench_games: int = 2_000

    def lr_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        until = np.array([u if u is not None else 2**62 for u, _ in self.schedule], dtype=np.int64)
        values = np.array([lr for _, lr in self.schedule], dtype=np.float32)
        return until, values


def _traces(net: Net, lam: float):
    n_out, n_in, H = net.W2.shape[1], net.W1.shape[0], net.hidden
    if lam == 0.0:
        n_out = n_in = H = 1
    return (
        np.zeros((n_out, n_in, H), np.float32),
        np.zeros((n_out, H), np.float32),
        np.zeros((n_out, H), np.float32),
        np.zeros(n_out, np.float32),
    )


def _perm(net: Net) -> np.ndarray:
    if net.arch == "symmetric":
        return swap_permutation(net.encoding).astype(np.int64)
    return np.zeros(1, np.int64)


class TDTrainer:
    """Owns the nets of one run directory: ``RUN/contact.npz`` (+ ``race.npz``),
    ``RUN/state.json`` (config and games done) and ``RUN/progress.csv``."""

    def __init__(self, run_dir: str | Path, config: TDConfig | None = None) -> None:
        self.run_dir = Path(run_dir)
        state_path = self.run_dir / "state.json"
        if state_path.exists():
            state = json.loads(state_path.read_text())
            self.config = TDConfig(**state["config"])
            self.games_done = int(state["games_done"])
            self.contact = Net.load(self.run_dir / "contact.npz")
            self.race = Net.load(self.run_dir / "race.npz") if self.config.race_arch else None
        else:
            if config is None:
                raise NetError(f"{self.run_dir} holds no training run; give a configuration")
            if config.lam > 0 and "symmetric" in (config.arch, config.race_arch):
                raise NetError("lambda > 0 is not supported for the symmetric architecture")
            self.config = config
            self.games_done = 0
            self.contact = Net.create(config.arch, config.encoding, config.hidden, config.seed, config.init_scale)
            self.race = (
                Net.create(
                    config.race_arch, config.race_encoding, config.race_hidden, config.seed + 1, config.init_scale
                )
                if config.race_arch
                else None
            )
        self.buffers = MoveBuffers()

    def evaluator(self) -> Evaluator:
        return Evaluator(self.contact, self.race, name=self.run_dir.name)

    def train_chunk(self, n_games: int) -> int:
        cfg = self.config
        until, values = cfg.lr_arrays()
        race = self.race or self.contact
        turns = td_games(
            self.evaluator().kernel_params(),
            _perm(self.contact),
            _perm(race),
            until,
            values,
            np.float32(cfg.lam),
            cfg.seed,
            self.games_done,
            n_games,
            _traces(self.contact, cfg.lam),
            _traces(race, cfg.lam),
            *self.buffers.args(),
        )
        self.games_done += n_games
        return turns

    def checkpoint(self) -> None:
        """Weights first, then the state that points at them: a kill between the two
        resumes from the previous state with weights one chunk newer at worst...
        so the state is written last and names the games those weights have seen."""
        card = {"training": {"method": "TD(lambda) self-play", **asdict(self.config), "games": self.games_done}}
        self.contact.save(self.run_dir / "contact.npz", **card)
        if self.race is not None:
            self.race.save(self.run_dir / "race.npz", **card)
        state = {"config": asdict(self.config), "games_done": self.games_done}
        tmp = self.run_dir / "state.json.tmp"
        tmp.write_text(json.dumps(state, indent=2))
        os.replace(tmp, self.run_dir / "state.json")

    def benchmark(self, games: int) -> dict:
        from engine.rollout.duel import run_duel_players

        return run_duel_players(self.evaluator(), "pubeval", games, seed=12345)

    def run(self, games: int | None = None, chunk: int = 1000, quiet: bool = False) -> None:
        cfg = self.config
        target = games if games is not None else cfg.games
        self.run_dir.mkdir(parents=True, exist_ok=True)
        csv_path = self.run_dir / "progress.csv"
        new_csv = not csv_path.exists()
        start = time.perf_counter()
        start_games = self.games_done
        with open(csv_path, "a", newline="") as fh:
            writer = csv.writer(fh)
            if new_csv:
                writer.writerow(["games", "seconds", "games_per_s", "ppg_vs_pubeval", "stderr", "win_rate"])
            while self.games_done < target:
                # stop at every checkpoint and benchmark boundary, so none is skipped
                n = min(
                    chunk,
                    target - self.games_done,
                    cfg.checkpoint_every - self.games_done % cfg.checkpoint_every,
                    cfg.bench_every - self.games_done % cfg.bench_every,
                )
                self.train_chunk(n)
                elapsed = time.perf_counter() - start
                rate = (self.games_done - start_games) / elapsed
                if not quiet:
                    _progress(self.games_done, target, rate)
                if self.games_done % cfg.checkpoint_every == 0 or self.games_done >= target:
                    self.checkpoint()
                if self.games_done % cfg.bench_every == 0 or self.games_done >= target:
                    res = self.benchmark(cfg.bench_games)
                    writer.writerow(
                        [
                            self.games_done,
                            round(elapsed, 1),
                            round(rate, 1),
                            round(res["ppg"], 4),
                            round(res["stderr"], 4),
                            round(res["win_rate"], 4),
                        ]
                    )
                    fh.flush()
                    if not quiet:
                        print(
                            f"\n  games {self.games_done}: {res['ppg']:+.3f} +/- {res['stderr']:.3f} ppg "
                            f"vs pubeval ({cfg.bench_games} games)",
                            file=sys.stderr,
                        )
        if not quiet:
            print(file=sys.stderr)


def _progress(done: int, total: int, rate: float) -> None:
    width = 30
    filled = int(width * done / max(total, 1))
    eta = (total - done) / rate if rate > 0 else math.inf
    sys.stderr.write(
        f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} games {rate:,.0f} games/s eta {eta / 60:,.1f} min "
    )
    sys.stderr.flush()
