"""The parts of ``scripts/diagnose_gap.py``: class tags, collection, judging, the summary."""
