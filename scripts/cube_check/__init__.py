"""The parts of ``scripts/check_cube_vs_gnubg.py``: the positions and our deciders, gnubg's hint, the comparison."""
