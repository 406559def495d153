"""Evaluation at 0-ply: input encodings, the nets' forward pass, evaluating a roll's
results at once, the bearoff database and pubeval.

Imports ``engine.rules`` only.
"""
