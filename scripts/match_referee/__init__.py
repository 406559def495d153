"""The parts of ``scripts/judge_match_play.py``: decisions, gnubg's answers, judging, summary."""
