"""The layering of the house, read from the code's own import statements.

Three layers, one direction: ``engine`` (the backgammon brain) imports nothing of
``nets`` or ``fibsbot``; ``nets`` (shipped weights and the training that makes
them) imports ``engine`` only; ``fibsbot`` (the daemon and the command line) may
import both.  Inside ``fibsbot`` the protocol package is pure: it never reaches the
network layer, nor sockets and asyncio.  No modules import each other in a circle.

Every import statement counts, the ones inside functions too: a lazy import still
ties the two files together, it only hides the tie from the top of the file.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "nets", "fibsbot")
LAYER = {name: rank for rank, name in enumerate(PACKAGES)}

ENGINE_PACKAGES = ("rules", "eval", "search", "cube", "players", "rollout")
ENGINE_LAYER = {f"engine.{name}": rank for rank, name in enumerate(ENGINE_PACKAGES)}
# below every engine package: imported by engine/__init__.py before any kernel is defined
ENGINE_BASE = ("engine.jit_cache",)

# the pure protocol core may lean on the engine and on itself, nothing else of ours (the
# network layer, records and settings all do IO), and never on what opens connections
PROTOCOL = "fibsbot.protocol"
PROTOCOL_MAY_IMPORT = ("engine", PROTOCOL)
PROTOCOL_FORBIDDEN_EXTERNAL = ("asyncio", "socket", "telnetlib3", "selectors", "ssl")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules() -> dict[str, Path]:
    modules = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            modules[module_name(path)] = path
    return modules


MODULES = project_modules()


def _resolve(name: str) -> str | None:
    """The project module an imported name lands in: the longest known prefix."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in MODULES:
            return candidate
    return None


def imported_names(module: str, path: Path) -> set[str]:
    """Every absolute name the module's import statements reach, relative ones resolved;
    ``from pkg import sub`` names ``pkg.sub`` so that a submodule counts as itself."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                names.add(submodule if submodule in MODULES else source)
    return names


def import_graph() -> dict[str, set[str]]:
    graph = {}
    for module, path in MODULES.items():
        targets = {_resolve(name) for name in imported_names(module, path)}
        graph[module] = {target for target in targets if target is not None and target != module}
    return graph


GRAPH = import_graph()


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = counter
                    counter += 1
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph[succ]))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_graph_is_read_from_every_package():
    assert {module.split(".")[0] for module in MODULES} == set(PACKAGES)
    assert "engine.players.agent" in GRAPH and GRAPH["engine.players.agent"]  # a known module with known imports


def test_imports_point_down_the_layers():
    upward = sorted(
        f"{module} imports {target}"
        for module, targets in GRAPH.items()
        for target in targets
        if LAYER[target.split(".")[0]] > LAYER[module.split(".")[0]]
    )
    assert not upward, "a lower layer imports a higher one:\n" + "\n".join(upward)


def _engine_package(module: str) -> str | None:
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "engine" and len(parts) > 2 else None


def test_every_engine_module_lives_in_a_layered_package():
    loose = sorted(
        module
        for module in MODULES
        if module.startswith("engine.")
        and _engine_package(module) not in ENGINE_LAYER
        and module not in ENGINE_LAYER
        and module not in ENGINE_BASE
    )
    assert not loose, "engine modules outside the layered packages: " + ", ".join(loose)


def test_the_engine_base_imports_nothing_of_the_project():
    reached = sorted(f"{module} imports {target}" for module in ENGINE_BASE for target in GRAPH[module])
    assert not reached, "\n".join(reached)


def test_engine_packages_import_only_those_below_them():
    upward = []
    for module, targets in GRAPH.items():
        package = _engine_package(module) or (module if module in ENGINE_LAYER else None)
        if package is None:
            continue
        for target in targets:
            target_package = _engine_package(target) or (target if target in ENGINE_LAYER else None)
            if target_package and ENGINE_LAYER[target_package] > ENGINE_LAYER[package]:
                upward.append(f"{module} imports {target}")
    assert not upward, "an engine package imports one above it:\n" + "\n".join(sorted(upward))


def test_no_modules_import_each_other_in_a_circle():
    found = cycles(GRAPH)
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_the_protocol_core_stays_pure():
    protocol = {
        module: path for module, path in MODULES.items() if module == PROTOCOL or module.startswith(PROTOCOL + ".")
    }
    assert protocol, f"no {PROTOCOL} package"
    wrong = []
    for module, path in protocol.items():
        for name in imported_names(module, path):
            internal = _resolve(name)
            if internal and not any(internal == ok or internal.startswith(ok + ".") for ok in PROTOCOL_MAY_IMPORT):
                wrong.append(f"{module} imports {internal}")
            elif name.split(".")[0] in PROTOCOL_FORBIDDEN_EXTERNAL:
                wrong.append(f"{module} imports {name}")
    assert not wrong, "the protocol core reaches IO:\n" + "\n".join(sorted(set(wrong)))


@pytest.mark.parametrize(
    "source, expected",
    [
        ("import engine.rules.moves", {"engine.rules.moves"}),
        ("from engine.rules import moves", {"engine.rules.moves"}),
        ("from engine.rules.moves import generate_moves", {"engine.rules.moves"}),
        ("def f():\n    from nets.player import load_agent", {"nets.player"}),
    ],
)
def test_the_reader_sees_every_form_of_import(tmp_path, source, expected):
    path = tmp_path / "probe.py"
    path.write_text(source + "\n")
    assert {_resolve(name) for name in imported_names("engine.probe", path)} - {None} == expected


def test_the_cycle_finder_finds_a_circle_of_three():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
