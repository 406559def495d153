"""The shipped nets: ``NAME.npz`` weights beside their ``NAME.json`` model cards.

``player`` finds a net by name and registers the ``net:NAME[@PLY]`` player spec
with the engine; ``store`` keeps the versions a retrain promotes; ``train`` is the
training that makes the nets, and ``runs/`` holds its run directories (learning
curves, checkpoints, the nets of earlier rounds).
"""

# first, before any kernel here is defined: the engine keys numba's cache by the code
import engine  # noqa: F401, E402
