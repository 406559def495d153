"""Benchmark sets of checker and cube decisions: their format and scoring
(``scoring``), the players they score (``players``), and how a set is built
(``build`` from ``sources``, labelled by ``labelling``, resumable by ``journal``).
"""
