"""Cube decisions against GNU Backgammon's (``check_cube_vs_gnubg.py``) and Open Sage's cubeful 3-ply as a
second judge (``cube_referee.py``); the rest are their parts: the positions and our deciders, gnubg's hint,
the comparison."""
