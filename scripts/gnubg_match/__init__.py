"""Matches against GNU Backgammon 1.07, ``play_vs_gnubg.py``; the rest are its parts: one match against gnubg,
what gnubg prints about it, the summary."""
