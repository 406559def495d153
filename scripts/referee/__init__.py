"""The neutral referee: decisions judged by rollouts (``judge_match_play.py``, ``judge_checker_play.py``,
``compare_looks.py``, ``confirm_disagreements.py``); the rest are their parts: decisions, gnubg's answers,
judging, summary."""
