"""Interpreted twins of numba kernels: the same source, run by Python, compiled by no one.

numba compiles a kernel, and everything it calls, the first time it is called: for
the net's evaluation (encoders, hand-made features, layers) that is over ten CPU
seconds and a hundred MB on a fresh install.  ``twin(kernel)`` gives a plain Python
function with the kernel's own code, in which every numba function it reaches is
replaced by its twin in turn: slow (milliseconds a board) but ready at once, and
computing what the kernel computes, from the same source.

Two differences from numba to keep in mind: integers do not widen (NumPy keeps
``int8 * int`` in int8 where numba computes in int64), so boards go in as int64; and
float sums are not reordered (numba's ``fastmath`` may), so results agree to float32
rounding, not bit for bit.
"""

from __future__ import annotations

import threading
import types

from numba.core.dispatcher import Dispatcher

_FUNCTIONS: dict[int, types.FunctionType] = {}
_GLOBALS: dict[int, dict] = {}
_LOCK = threading.RLock()  # agents decide in threads: no one may see a namespace half filled


def twin(kernel):
    """The interpreted twin of a numba function (a plain function stays itself)."""
    if not isinstance(kernel, Dispatcher):
        return kernel
    with _LOCK:  # called once a decision, not once a board: the lock costs nothing
        return _make(kernel)


def _make(kernel):
    found = _FUNCTIONS.get(id(kernel))
    if found is not None:
        return found
    fn = kernel.py_func
    namespace = _namespace(fn.__globals__)
    found = _FUNCTIONS.get(id(kernel))  # made while the namespace was filled (a recursion)
    if found is None:
        found = types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__, fn.__closure__)
        found.__kwdefaults__ = fn.__kwdefaults__
        found.__doc__ = fn.__doc__
        _FUNCTIONS[id(kernel)] = found
    return found


def _namespace(module_globals: dict) -> dict:
    """A copy of a module's globals in which every numba function is its twin."""
    found = _GLOBALS.get(id(module_globals))
    if found is not None:
        return found
    namespace = dict(module_globals)
    _GLOBALS[id(module_globals)] = namespace  # before filling it: kernels call each other
    for name, value in module_globals.items():
        if isinstance(value, Dispatcher):
            namespace[name] = _make(value)
    return namespace
