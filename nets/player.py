"""The shipped nets by name: ``net:NAME[@PLY]`` specs for duels, benchmarks and the bot.

NAME is ``default`` (the shipped net), a net shipped in ``nets/`` (``NAME.npz``
with its card), or a path to a ``.npz``.  A race net ``NAME.race.npz`` beside it is
used for positions without contact.

The engine plays any net it is handed but does not know where nets live: this
module, beside the weights, turns a name into a file and registers the ``net``
spec kind with the engine's players on import.
"""

from __future__ import annotations

from pathlib import Path

from engine.agent import Agent
from engine.evaluator import Evaluator
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


def make_net_player(arg: str) -> Agent:
    """``net:NAME[@PLY]``: the searching agent (0-ply uses the bearoff database too)."""
    name, _, ply = arg.partition("@")
    if ply not in ("", "0", "1", "2"):
        raise PlayerSpecError(f"net:{arg}: the ply must be 0, 1 or 2")
    return Agent(Evaluator.load(resolve_net_path(name)), ply=int(ply or 0), name=f"net:{arg}")


def load_agent(spec: str, ply: int | None = None) -> Agent:
    """``net:NAME@PLY`` (or just ``NAME``) to an agent; ``ply`` overrides the spec's."""
    name = spec[4:] if spec.startswith("net:") else spec
    name, _, ply_text = name.partition("@")
    if ply is None:
        ply = int(ply_text) if ply_text else 0
    return Agent(Evaluator.load(resolve_net_path(name)), ply=ply, name=f"net:{name or 'default'}@{ply}")


register_player("net", make_net_player)
