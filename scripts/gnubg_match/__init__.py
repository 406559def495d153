"""The parts of ``scripts/play_vs_gnubg.py``: one match against gnubg, its statistics, the summary."""
