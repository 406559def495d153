"""n-ply lookahead (0, 1, 2 plies) with gnubg-style move filters and a position cache.

Imports ``engine.rules`` and ``engine.eval``.
"""
