"""The cube and match play: the match equity table, Janowski's cubeful interpolation,
cube and resignation decisions, and cubeful values n plies deep.

Imports ``engine.rules``, ``engine.eval`` and ``engine.search``.
"""
