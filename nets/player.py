"""The neural player: ``net:NAME`` specs for duels, benchmarks and the bot.

NAME is ``default`` (the shipped net), a net shipped in ``nets/`` (``NAME.npz``
with its card), or a path to a ``.npz``.  A race net ``NAME.race.npz`` beside it is
used for positions without contact.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from engine.evaluator import Evaluator, net_choose
from engine.moves import MAX_RESULTS
from engine.players import PlayerSpecError, register_player

NETS_DIR = Path(__file__).resolve().parent
DEFAULT_NET = "default"


def resolve_net_path(name: str) -> Path:
    name = name or DEFAULT_NET
    shipped = NETS_DIR / f"{name}.npz"
    if shipped.exists():
        return shipped
    path = Path(name).expanduser()
    if path.suffix != ".npz":
        path = path.with_suffix(".npz")
    if path.exists():
        return path
    known = sorted(p.stem for p in NETS_DIR.glob("*.npz") if not p.stem.endswith(".race"))
    raise PlayerSpecError(f"no net {name!r}: not shipped in nets/ (shipped: {', '.join(known) or 'none'}) "
                          f"and no file {path}")


class NetPlayer:
    """Chooses the move with the highest 0-ply equity."""

    def __init__(self, evaluator: Evaluator, name: str | None = None) -> None:
        self.evaluator = evaluator
        self.name = name or f"net:{evaluator.name}"
        self.kernel = (net_choose, (evaluator.kernel_params(), np.zeros(MAX_RESULTS, np.float64),
                                    np.zeros((MAX_RESULTS, 5), np.float32)))

    def choose(self, board, d1, d2, candidates) -> int:
        return int(net_choose(self.kernel[1], board, len(candidates), candidates))


def make_net_player(arg: str):
    """``net:NAME[@PLY]``: the searching agent (0-ply uses the bearoff database too)."""
    from engine.agent import Agent

    name, _, ply = arg.partition("@")
    if ply not in ("", "0", "1", "2"):
        raise PlayerSpecError(f"net:{arg}: the ply must be 0, 1 or 2")
    return Agent(Evaluator.load(resolve_net_path(name)), ply=int(ply or 0), name=f"net:{arg}")


register_player("net", make_net_player)
