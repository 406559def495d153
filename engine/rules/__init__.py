"""The rules of the game: positions and their IDs, dice, legal moves, notation, match IDs.

The bottom layer: it imports nothing else of the engine.
"""
