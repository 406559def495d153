"""Search benchmarks: 0-ply decisions per second and 2-ply decision latency.

Positions come from pubeval self-play games (consecutive turns, so the evaluation
cache sees what it would see in a real game).  The reference is GNU Backgammon's
own 2-ply, asked through its ``external`` move server on the same positions in the
same run; it is skipped, and said so, where gnubg is not installed.
"""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from engine.rules.moves import MoveBuffers, generate_moves
from engine.search.nply import rank_candidates
from fibsbot.bench.speed import _rate, real_game_positions, register_benchmark

GNUBG = Path("/usr/games/gnubg")


@njit(cache=True)
def _decide_all(ctx, positions, dice, ply, filters, weights, root, buf2, buf1, equities, probs, plies):
    boards, steps, tk, st, stack = root
    total = 0
    for i in range(positions.shape[0]):
        n = generate_moves(positions[i], dice[i, 0], dice[i, 1], boards, steps, tk, st, stack)
        total += rank_candidates(ctx, boards, n, ply, filters, weights, buf2, buf1, equities, probs, plies)
    return total


def _agent(ply: int, name: str | None = None):
    from engine.players.agent import Agent
    from fibsbot.bench.speed import shipped_net_evaluator

    evaluator, what = shipped_net_evaluator(name)
    return Agent(evaluator, ply=ply), what


def _versus_agent(ply: int):
    """The net ``fibsbot bench --versus`` names, at ``ply``, or None."""
    from fibsbot.bench import speed

    return None if speed.VERSUS_NET is None else _agent(ply, speed.VERSUS_NET)


def _versus_figures(what: str, ours: list[float], versus: list[float], count: int) -> dict:
    """The second net's rate and its time over the first's, repeat by repeat (timed in
    turn with it, so each ratio compares runs made under the same load)."""
    ratios = sorted(v / o for o, v in zip(ours, versus))
    return {
        "net": what,
        "decisions_per_s": _rate(count, versus)["median"],
        "time_ratio_to_first": statistics.median(ratios),
        "time_ratio_range": [ratios[0], ratios[-1]],
        "repeats": len(ratios),
        "note": "this net's seconds over the first net's on the same decisions, each repeat's own, timed in turn",
    }


def decision_positions(count: int, seed: int = 2024) -> tuple[np.ndarray, np.ndarray]:
    """Consecutive turns of self-play games where the roll leaves a real choice."""
    positions, dice = real_game_positions(games=max(20, count // 20), seed=seed)
    buffers = MoveBuffers()
    keep = [
        i
        for i in range(len(positions))
        if generate_moves(positions[i], int(dice[i, 0]), int(dice[i, 1]), *buffers.args()) > 1
    ]
    keep = keep[:count]
    return positions[keep], dice[keep]


def bench_ply0(repeats: int = 5) -> dict:
    """Our 0-ply decisions a second, and gnubg-nn's on the same decisions: the two
    timed in turn, repeat by repeat, so that the ratio compares runs made under the
    same load (this kind of machine's speed drifts by 10-30% within minutes); the
    ratio is the median of the repeats' own ratios."""
    agent, what = _agent(0)
    versus = _versus_agent(0)
    positions, dice = decision_positions(4000)

    def deciding(player):
        def run():
            player.clear_cache()  # a fresh position every time, as at the root of a real game
            _decide_all(player.ctx, positions, dice, 0, *player.self_play_scratch())

        return run

    theirs = gnubg_nn_decider(positions, dice)
    ours_times, theirs_times, versus_times = in_turn(
        [deciding(agent), theirs, None if versus is None else deciding(versus[0])], repeats
    )
    rate = _rate(len(positions), ours_times)
    result = {
        "ply0_decisions_per_s": rate["median"],
        "ply0": {
            **rate,
            "decisions": len(positions),
            "net": what,
            "sample": "pubeval self-play turns with more than one legal move",
        },
    }
    if versus is not None:
        result["ply0"]["versus"] = _versus_figures(versus[1], ours_times, versus_times, len(positions))
    if theirs is None:
        result["ply0"]["reference_gnubg_nn"] = "skipped: gnubg-nn not installed"
        return result
    reference = _rate(len(positions), theirs_times)
    result["ply0"]["reference_gnubg_nn"] = {
        "decisions_per_s": reference["median"],
        "min": reference["min"],
        "max": reference["max"],
        "decisions": len(positions),
        "note": "gnubg-nn best_move(board, d1, d2) at 0-ply, one Python call per decision, "
        "timed in turn with ours",
    }
    pair_ratios = sorted(t / o for o, t in zip(ours_times, theirs_times))
    result["ply0"]["ratio_vs_gnubg_nn"] = statistics.median(pair_ratios)
    result["ply0"]["ratio_range"] = [pair_ratios[0], pair_ratios[-1]]
    if versus is not None:
        versus_ratios = sorted(t / v for v, t in zip(versus_times, theirs_times))
        result["ply0"]["versus"]["ratio_vs_gnubg_nn"] = statistics.median(versus_ratios)
    return result


def in_turn(runs: list, repeats: int) -> list[list[float]]:
    """Seconds of ``repeats`` runs of each callable, timed in turn, repeat by repeat (a
    None in ``runs`` is not timed: its list stays empty); each is run once first, untimed."""
    for fn in runs:
        if fn is not None:
            fn()
    times: list[list[float]] = [[] for _ in runs]
    for _ in range(repeats):
        for fn, out in zip(runs, times):
            if fn is None:
                continue
            start = time.perf_counter()
            fn()
            out.append(time.perf_counter() - start)
    return times


def gnubg_nn_decider(positions: np.ndarray, dice: np.ndarray):
    """The reference: gnubg's own 0-ply move choice in-process (gnubg-nn's
    ``best_move``, its nets and pruning) of every decision, as one callable; None
    where gnubg-nn is not installed."""
    try:
        import gnubg_nn
    except ImportError:
        return None
    # gnubg-nn takes the side not on roll first
    sample = [(b[::-1].tolist(), int(d[0]), int(d[1])) for b, d in zip(positions, dice)]

    def run():
        for board, d1, d2 in sample:
            gnubg_nn.best_move(board, d1, d2)

    return run


def _filters_text(filters) -> str:
    k1, w1, k2, w2 = filters
    return f"{int(k1)} within {w1:g} for 1-ply, {int(k2)} within {w2:g} for 2-ply"


def bench_ply2(decisions: int = 200, reference_decisions: int = 60, repeats: int = 3) -> dict:
    """The latency of our 2-ply decisions over consecutive turns (one cache kept across
    them), and our rate against gnubg's 2-ply on the first ``reference_decisions``:
    the two timed in turn, ``repeats`` times, the ratio the median of the repeats' own
    ratios (as ``bench_ply0``: this kind of machine's speed drifts within minutes)."""
    agent, what = _agent(2)
    positions, dice = decision_positions(decisions, seed=77)
    agent.choose_move(positions[0], int(dice[0, 0]), int(dice[0, 1]))  # compile outside the timing
    agent.clear_cache()
    times = []
    for board, (d1, d2) in zip(positions, dice):
        start = time.perf_counter()
        agent.choose_move(board, int(d1), int(d2))
        times.append(time.perf_counter() - start)
    cache = agent.cache_stats()  # the 200 turns, one cache kept across them
    times_sorted = sorted(times)
    p99 = times_sorted[min(len(times) - 1, int(round(0.99 * (len(times) - 1))))]
    median = statistics.median(times)
    result: dict[str, Any]  # nested figures, filled in below
    result = {
        "ply2_decision_median_s": median,
        "ply2_decision_p99_s": p99,
        "ply2": {
            "decisions": len(times),
            "mean_s": statistics.fmean(times),
            "max_s": times_sorted[-1],
            "net": what,
            "filters": _filters_text(agent.filters),
            "sample": "consecutive pubeval self-play turns with a choice, cache kept across turns",
            "cache": cache,
        },
    }
    versus = _versus_agent(2)
    reference = _ply2_in_turn(
        agent, positions[:reference_decisions], dice[:reference_decisions], repeats, None if versus is None else versus[0]
    )
    if reference is None:
        result["ply2"]["reference_gnubg"] = "skipped: GNU Backgammon not installed (apt-get install gnubg)"
    else:
        ours_times, theirs_times, versus_times = reference
        count = min(reference_decisions, len(positions))
        theirs = _rate(count, theirs_times)
        result["ply2"]["reference_gnubg"] = {
            "decisions_per_s": theirs["median"],
            "min": theirs["min"],
            "max": theirs["max"],
            "decisions": count,
            "repeats": len(theirs_times),
            "note": "gnubg 'external' move server at 2-ply, same positions, one request at a time; "
            "a fresh server each repeat, timed in turn with ours (cold cache each repeat)",
        }
        result["ply2"]["ours_on_reference_positions_per_s"] = _rate(count, ours_times)["median"]
        pair_ratios = sorted(t / o for o, t in zip(ours_times, theirs_times))
        result["ply2"]["ratio_vs_gnubg_2ply"] = statistics.median(pair_ratios)
        result["ply2"]["ratio_range"] = [pair_ratios[0], pair_ratios[-1]]
        if versus is not None:
            figures = _versus_figures(versus[1], ours_times, versus_times, count)
            figures["ratio_vs_gnubg_2ply"] = statistics.median(sorted(t / v for v, t in zip(versus_times, theirs_times)))
            result["ply2"]["versus"] = figures
    return result


def board_line(board: np.ndarray, d1: int, d2: int) -> str:
    """A FIBS board line of ``board`` (side on roll in row 0) with its roll, as gnubg's
    move server reads it."""
    from engine.rules.position import Position
    from fibsbot.protocol.board import format_board_line

    return format_board_line(
        Position(board), we_are_on_roll=True, opponent="gnubg", match_length=0, player_dice=(d1, d2)
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def gnubg_move_server(plies: int):
    """GNU Backgammon's ``external`` move server at ``plies``, as a function from a
    board line to gnubg's answer line; None where gnubg is missing or does not listen."""
    if not (GNUBG.is_file() and os.access(GNUBG, os.X_OK)):
        yield None
        return
    port = _free_port()
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "serve.txt"
        script.write_text(
            f"set evaluation chequerplay evaluation plies {plies}\n"
            f"set evaluation cubedecision evaluation plies {plies}\n"
            f"external localhost:{port}\n"
        )
        proc = subprocess.Popen(
            [str(GNUBG), "-t", "-q", "-r", "-c", str(script)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "HOME": tmp},
        )
        try:
            sock = _connect(port)
            if sock is None:
                yield None
                return
            with sock, sock.makefile("rb") as reader:

                def ask(line: str) -> str:
                    sock.sendall((line + "\n").encode())
                    return reader.readline().decode().strip()

                yield ask
        finally:
            proc.kill()
            proc.wait()


def _ply2_in_turn(agent, positions: np.ndarray, dice: np.ndarray, repeats: int, versus=None):
    """Seconds of gnubg's 2-ply and of ours on the same decisions, ``repeats`` times in
    turn: (ours, gnubg's, the ``versus`` agent's or []), or None where gnubg is missing.
    Each repeat starts a fresh gnubg server (its cache empty; the start and one warm-up
    request are not timed) and clears our caches, so nobody replays what it saw in the
    repeat before."""
    lines = [board_line(b, int(d[0]), int(d[1])) for b, d in zip(positions, dice)]
    ours: list[float] = []
    theirs: list[float] = []
    second: list[float] = []
    if versus is not None:  # compile outside the timing, as the first agent was
        versus.choose_move(positions[0], int(dice[0, 0]), int(dice[0, 1]))
    for _ in range(repeats):
        with gnubg_move_server(2) as ask:
            if ask is None:
                return None
            ask(lines[0])  # warm up: nets load
            start = time.perf_counter()
            for line in lines:
                ask(line)
            theirs.append(time.perf_counter() - start)
        for player, out in ((agent, ours), (versus, second)):
            if player is None:
                continue
            player.clear_cache()
            start = time.perf_counter()
            for board, (d1, d2) in zip(positions, dice):
                player.choose_move(board, int(d1), int(d2))
            out.append(time.perf_counter() - start)
    return ours, theirs, second


def _connect(port: int, timeout: float = 20.0) -> socket.socket | None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            return socket.create_connection(("127.0.0.1", port), timeout=120)
        except OSError:
            time.sleep(0.1)
    return None


register_benchmark("ply0", bench_ply0)
register_benchmark("ply2", bench_ply2)
