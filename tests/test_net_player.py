"""The neural player: `net:PATH` specs in duels, its move choice, and its errors."""

from __future__ import annotations

import numpy as np
import pytest
from board_builder import make_board

import nets.player
from engine.eval.evaluator import Evaluator, net_choose
from engine.eval.net import Net
from engine.players.agent import Agent
from engine.players.registry import NetPlayer, PlayerSpecError, make_player
from engine.rollout.duel import run_duel
from engine.rollout.selfplay_sample import sample_positions
from engine.rules.moves import MoveBuffers, generate_moves


def tiny_net(arch: str = "tesauro3", encoding: str = "tesauro", seed: int = 0) -> Net:
    return Net.create(arch, encoding, 6, seed=seed, scale=0.5)


def sure_gammon_loss_net() -> Net:
    """A net certain that the side on roll loses a gammon, wherever it stands: it
    rates handing the opponent the roll at +2, more than the point a win brings."""
    net = tiny_net()
    net.b2[:] = [-30.0, -30.0, 30.0]
    return net


@pytest.mark.parametrize("with_race_net", [False, True])
def test_net_player_duels_random(tmp_path, with_race_net):
    path = tiny_net().save(tmp_path / "tiny.npz")
    if with_race_net:
        tiny_net("gnubg5", "race", seed=1).save(tmp_path / "tiny.race.npz")
    spec = f"net:{path}"
    player = make_player(spec)
    assert isinstance(player, Agent) and player.name == spec
    assert (player.evaluator.race is not None) == with_race_net
    result = run_duel(spec, "random", games=6, seed=3)
    assert result.games == 6 and result.player_a == spec and result.player_b == "random"
    assert np.isfinite(result.ppg) and -3 <= result.ppg <= 3


def test_a_path_without_the_suffix_is_found(tmp_path):
    tiny_net().save(tmp_path / "plain.npz")
    assert isinstance(make_player(f"net:{tmp_path / 'plain'}"), Agent)


def decisions(count: int, seed: int):
    """(board, d1, d2, candidates) of self-play positions with a real choice."""
    buffers = MoveBuffers()
    for sample in sample_positions(count, seed):
        n = generate_moves(sample.board, *sample.dice, *buffers.args())
        if n > 1:
            yield sample.board, *sample.dice, buffers.boards[:n].copy()


def reference_choice(evaluator: Evaluator, candidates: np.ndarray) -> int:
    """Python-level: the argmax of the mover's equities, a finished game first."""
    equities, _ = evaluator.move_equities(candidates)
    finished = [i for i in range(len(candidates)) if candidates[i, 0].sum() == 0]
    if finished:
        return max(finished, key=lambda i: equities[i])
    return int(np.argmax(equities))


@pytest.mark.parametrize(
    "arch, encoding", [("tesauro3", "tesauro"), ("gnubg5", "contact"), ("symmetric", "tesauro-turn")]
)
def test_kernel_choice_is_the_argmax_of_move_equities(arch, encoding):
    evaluator = Evaluator(tiny_net(arch, encoding, seed=2), tiny_net("tesauro3", "race", seed=3))
    player = NetPlayer(evaluator)
    seen = 0
    for board, d1, d2, candidates in decisions(300, seed=17):
        choice = player.choose(board, d1, d2, candidates)
        assert choice == reference_choice(evaluator, candidates)
        assert choice == net_choose(player.kernel[1], board, len(candidates), candidates)
        equities, _ = evaluator.move_equities(candidates)
        seen += len(set(np.round(equities, 9))) > 1
    assert seen > 100  # many decisions where the equities really differ


def test_move_equities_are_the_negated_opponent_view():
    evaluator = Evaluator(tiny_net("gnubg5", "contact", seed=4))
    for _board, _d1, _d2, candidates in decisions(40, seed=5):
        equities, probs = evaluator.move_equities(candidates)
        for cand, equity, mover in zip(candidates, equities, probs):
            if cand[0].sum() == 0:
                continue
            opponent = evaluator.probabilities(cand[::-1].copy())
            np.testing.assert_allclose(
                mover, [1 - opponent[0], opponent[3], opponent[4], opponent[1], opponent[2]], atol=1e-6
            )
            assert equity == pytest.approx(2 * mover[0] - 1 + mover[1] - mover[3] + mover[2] - mover[4], abs=1e-5)


# the mover bears off its last checkers with some rolls but has other moves too
WINNABLE = [
    (make_board({2: 1, 1: 1}, {6: 10}), 2, 1),  # both off (a single game), or 2/1 1/off
    (make_board({3: 1, 1: 1}, {6: 15}), 3, 1),  # both off (a gammon), or 3/2 2/off
    (make_board({3: 1, 2: 1}, {6: 12, 24: 1}), 3, 2),  # a backgammon, or 3/1* 2/off
    (make_board({6: 1, 2: 1}, {6: 5, 5: 5}), 6, 2),  # both off, or 6/4 4/off
]


@pytest.mark.parametrize("make_net", [tiny_net, sure_gammon_loss_net], ids=["random", "pessimistic"])
@pytest.mark.parametrize("board, d1, d2", WINNABLE)
def test_a_winning_move_is_always_chosen(board, d1, d2, make_net):
    buffers = MoveBuffers()
    n = generate_moves(board, d1, d2, *buffers.args())
    candidates = buffers.boards[:n].copy()
    winning = [i for i in range(n) if candidates[i, 0].sum() == 0]
    assert winning and n > len(winning)  # a real choice
    player = NetPlayer(Evaluator(make_net()))
    assert player.choose(board, d1, d2, candidates) in winning


@pytest.mark.parametrize("board, d1, d2", WINNABLE)
def test_within_what_the_board_allows_playing_on_is_never_worth_more_than_the_win(board, d1, d2):
    """Why the choice still puts a finished game first: the pessimistic net rates handing
    over the roll at +2 (a gammon the other side loses); kept within what each board allows
    (``engine.eval.sanity``), that is no gammon where the other side has borne a checker
    off, and at best a tie with the win, which a tie-break could still pass over."""
    buffers = MoveBuffers()
    n = generate_moves(board, d1, d2, *buffers.args())
    equities, _ = Evaluator(sure_gammon_loss_net()).move_equities(buffers.boards[:n])
    winning = [i for i in range(n) if buffers.boards[i, 0].sum() == 0]
    playing_on = [i for i in range(n) if i not in winning]
    assert max(equities[i] for i in playing_on) <= max(equities[i] for i in winning) + 1e-9


# ---- spec errors -----------------------------------------------------------------


def test_unknown_net_lists_the_shipped_nets(tmp_path, monkeypatch):
    shipped = tmp_path / "shipped"
    for name in ("alpha", "beta"):
        tiny_net().save(shipped / f"{name}.npz")
    tiny_net("tesauro3", "race").save(shipped / "alpha.race.npz")
    tiny_net().save(shipped / "alpha.prune.npz")
    monkeypatch.setattr(nets.player, "NETS_DIR", shipped)
    with pytest.raises(PlayerSpecError, match=r"no net 'nosuch'.*shipped: alpha, beta\)") as err:
        make_player("net:nosuch")
    assert "alpha.race" not in str(err.value) and "alpha.prune" not in str(err.value)
    assert isinstance(make_player("net:beta"), Agent)  # a shipped net by name
    with pytest.raises(PlayerSpecError, match="no net 'nosuch'"):
        run_duel("net:nosuch", "random", games=2)


def test_no_shipped_nets_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(nets.player, "NETS_DIR", tmp_path)
    with pytest.raises(PlayerSpecError, match=r"no net 'default'.*shipped: none"):
        make_player("net:")


@pytest.mark.parametrize("spec", ["net:default@3", "net:default@-1", "net:X@fast"])
def test_a_bad_ply_is_a_clear_error(spec):
    with pytest.raises(PlayerSpecError, match="the level must be 0, 1, 2, table or roller"):
        make_player(spec)


def test_zero_ply_may_be_spelled_out(tmp_path):
    path = tiny_net().save(tmp_path / "z.npz")
    assert isinstance(make_player(f"net:{path}@0"), Agent) and make_player(f"net:{path}@2").ply == 2


def test_shipped_nets_load_and_are_listed_without_their_race_pruning_and_root_nets():
    files = sorted(p.stem for p in nets.player.NETS_DIR.glob("*.npz"))
    shipped = [name for name in files if not name.endswith((".race", ".prune", ".root"))]
    if not shipped:
        pytest.skip("no nets shipped in nets/ yet")
    for name in shipped:
        assert isinstance(make_player(f"net:{name}"), Agent)  # checksums and cards hold
    with pytest.raises(PlayerSpecError, match=f"shipped: {', '.join(shipped)}\\)") as refused:
        make_player("net:nosuch")
    for companion in (".prune", ".race", ".root"):
        assert companion not in str(refused.value)


# a fresh interpreter that imports the engine alone, as a Ray or spawned worker does
FRESH_WORKER = """
import pickle, sys
from engine.players.registry import PlayerSpecError, install_players, make_player
try:
    make_player("net:default")
except PlayerSpecError as exc:
    print("unknown:", "nets.player" in str(exc))
install_players(pickle.loads(sys.stdin.buffer.read()))
print(make_player("net:default@1").name, "nets.player" in sys.modules)
"""


def test_a_worker_knows_net_specs_from_the_registry_it_is_handed():
    import pickle
    import subprocess
    import sys
    from pathlib import Path

    from engine.players.registry import registered_players

    child = subprocess.run(
        [sys.executable, "-c", FRESH_WORKER],
        input=pickle.dumps(registered_players()),
        capture_output=True,
        cwd=Path(__file__).resolve().parents[1],
        timeout=300,
    )
    assert child.returncode == 0, child.stderr.decode()[-2000:]
    # the engine alone does not know where nets live; the registry it receives does
    assert child.stdout.decode().split() == ["unknown:", "True", "net:default@1", "True"]
