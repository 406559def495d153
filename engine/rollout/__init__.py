"""Whole games: self-play, duplicate-dice duels, rollouts and where their chunks
run (here, local processes or Ray).

The top of the engine: it may import every other engine package.
"""
