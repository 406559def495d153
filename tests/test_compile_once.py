"""The search's large kernels are compiled once per kind of call, not once per call site.

numba compiles a kernel again for each distinct set of argument types, and a call from
one kernel to another that passes a literal constant (``0``, ``True``) or leaves out a
defaulted argument is a type of its own: the whole search was compiled a second time
for the rollouts' literal ``0`` ply, and the reply choice five times.  Compiling from a
fresh cache to see it would take minutes, so this reads the engine's source instead:
every call of these kernels passes every parameter, none as a literal.  The nets the
kernels take are checked by their numba types: a one-layer net and a deep one must
hand the search the same types, or every kernel below it compiles once for each.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import numba
import pytest

import engine
from engine.eval import forward
from engine.eval.evaluator import Evaluator
from engine.search import context, nply, replies
from nets.player import resolve_net_path
from nets.train.dense import DenseNet

ENGINE = Path(engine.__file__).parent
# the search's kernels that each compile minutes of code below them, and the batched
# misses whose count argument once arrived as a literal 4, 1 or 0
LARGE_KERNELS = {
    "rank_candidates": nply.rank_candidates,
    "rank_root": nply.rank_root,
    "choose_replies": replies.choose_replies,
    "best_reply0": replies.best_reply0,
    "evaluate0_many": context.evaluate0_many,
    "_store_quad": context._store_quad,
    "deep_probs_some": forward.deep_probs_some,
    "deep_probs_quad": forward.deep_probs_quad,
}


def is_kernel(function: ast.FunctionDef) -> bool:
    """Whether ``@njit`` (bare or called) decorates the function."""
    for decorator in function.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if getattr(target, "id", None) == "njit" or getattr(target, "attr", None) == "njit":
            return True
    return False


def calls_in_engine():
    """The calls of the large kernels from inside the engine's kernels (a call from
    Python types an ``int`` as int64 whatever it is, so only these matter)."""
    for path in sorted(ENGINE.rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for function in ast.walk(tree):
            if not (isinstance(function, ast.FunctionDef) and is_kernel(function)):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Call):
                    name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                    if name in LARGE_KERNELS:
                        yield path.relative_to(ENGINE.parent), node.lineno, name, node


def test_the_engine_calls_the_large_kernels():
    assert {name for *_, name, _ in calls_in_engine()} >= {
        "rank_candidates",
        "rank_root",
        "choose_replies",
        "evaluate0_many",
    }


@pytest.mark.parametrize("name", sorted(LARGE_KERNELS))
def test_every_call_passes_every_argument_and_no_literal(name):
    parameters = len(inspect.signature(LARGE_KERNELS[name].py_func).parameters)
    for where, line, called, call in calls_in_engine():
        if called != name:
            continue
        assert not call.keywords, f"{where}:{line}: {name} called with keywords"
        assert len(call.args) == parameters, f"{where}:{line}: {name} called without all {parameters} arguments"
        literals = [ast.unparse(a) for a in call.args if isinstance(a, ast.Constant) and a.value is not None]
        assert not literals, f"{where}:{line}: {name} called with the literal(s) {literals}"


def test_no_large_kernel_has_a_default_to_leave_out():
    for name, kernel in LARGE_KERNELS.items():
        defaults = [p for p in inspect.signature(kernel.py_func).parameters.values() if p.default is not p.empty]
        assert not defaults, f"{name} has defaults {defaults}: a call that omits one is compiled apart"


def test_one_layer_and_deep_nets_hand_the_kernels_the_same_types():
    """The shipped one-layer net, a deep net, and a deep net with a root net: one type of
    context and of net pair, so the search compiles once whichever a process meets."""
    shipped = Evaluator.load(resolve_net_path("default"))
    deep = DenseNet.create("contact2", (24, 10), seed=7).as_net()
    evaluators = [
        shipped,
        Evaluator(deep, shipped.race, "deep", shipped.prune),
        Evaluator(deep, shipped.race, "deep", shipped.prune, root=shipped.contact),
        Evaluator(shipped.contact),  # no race net: the contact net stands in for it
    ]
    assert len({numba.typeof(e.kernel_params()) for e in evaluators}) == 1
    assert len({numba.typeof(context.make_context(e)) for e in evaluators}) == 1
