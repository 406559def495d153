"""The shipped nets by name: ``net:NAME[@LEVEL]`` specs (LEVEL 0, 1, 2 or ``table``) for duels, benchmarks and the bot.

NAME is ``default`` (the shipped net), a net shipped in ``nets/`` (``NAME.npz``
with its card), or a path to a ``.npz``.  A race net ``NAME.race.npz`` beside it is
used for positions without contact.

The engine plays any net it is handed but does not know where nets live: this
module, beside the weights, turns a name into a file and registers the ``net``
spec kind with the engine's players on import.
"""

from __future__ import annotations

from pathlib import Path

from engine.eval.evaluator import Evaluator
from engine.players.agent import Agent
from engine.players.registry import PlayerSpecError, register_player
from engine.rollout.roller import Roller

NETS_DIR = Path(__file__).resolve().parent
DEFAULT_NET = "default"
COMPANION_SUFFIXES = (".race", ".prune", ".root")


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
    known = shipped_nets()
    raise PlayerSpecError(
        f"no net {name!r}: not shipped in nets/ (shipped: {', '.join(known) or 'none'}) and no file {path}"
    )


def shipped_nets() -> list[str]:
    """The names a player spec may use: each shipped net without its companions
    (``NAME.race``, ``NAME.prune`` and ``NAME.root`` serve the net beside them and play nothing alone)."""
    return sorted(p.stem for p in NETS_DIR.glob("*.npz") if not p.stem.endswith(COMPANION_SUFFIXES))


TABLE = "table"
ROLLER = "roller"  # the table level with short cubeful rollouts of close decisions instead of 3-ply
# the table level's safety cap, seconds: its deeper look is bounded by work (engine.players.table),
# and a look still running this long into a decision stops there (logged); a decision takes
# under 1 s on two cores, so the cap only guards against a machine stalled by something else
TABLE_THINK = 10.0


def agent_for(name: str, level: str, think: float = TABLE_THINK, label: str | None = None, workers: int = 1) -> Agent:
    """The agent of net ``name`` at ``level``: ``0``, ``1``, ``2`` plies, ``table``
    (cubeful 2-ply with a deeper look at close decisions, ``think``: its safety cap in seconds), or
    ``roller`` (the table level whose deeper look is short cubeful rollouts); ``workers``:
    threads of the cubeful lookahead."""
    level = level or "0"
    if level not in ("0", "1", "2", TABLE, ROLLER):
        raise PlayerSpecError(f"net:{name}@{level}: the level must be 0, 1, 2, {TABLE} or {ROLLER}")
    evaluator = Evaluator.load(resolve_net_path(name))
    label = label or f"net:{name or DEFAULT_NET}@{level}"
    if level == TABLE:
        return Agent(evaluator, ply=2, name=label, think=think, workers=workers)
    if level == ROLLER:
        return Agent(evaluator, ply=2, name=label, think=think, look=Roller(), workers=workers)
    return Agent(evaluator, ply=int(level), name=label, workers=workers)


def make_net_player(arg: str) -> Agent:
    """``net:NAME[@LEVEL]``: the searching agent (0-ply uses the bearoff database too)."""
    name, _, level = arg.partition("@")
    return agent_for(name, level, label=f"net:{arg}")


def load_agent(spec: str, ply: int | str | None = None, workers: int = 1) -> Agent:
    """``net:NAME@LEVEL`` (or just ``NAME``) to an agent; ``ply`` overrides the spec's level;
    ``workers``: threads of its cubeful lookahead."""
    name = spec[4:] if spec.startswith("net:") else spec
    name, _, level = name.partition("@")
    return agent_for(name, str(ply) if ply is not None else level, workers=workers)


register_player("net", make_net_player)
