# first, before any kernel here is defined: the engine keys numba's cache by the code
import engine  # noqa: F401
