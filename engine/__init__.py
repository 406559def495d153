"""The backgammon brain, no IO: packages by job, each importing only those below it:
``rules`` <- ``eval`` <- ``search`` <- ``cube`` <- ``players`` <- ``rollout``.

``jit_cache`` stands beside them, imported first: it keys numba's on-disk cache by
the code before any kernel is defined (its one folder is the engine's only IO).
"""

from engine import jit_cache as _jit_cache

_jit_cache.configure()
