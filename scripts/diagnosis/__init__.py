"""Where our play loses equity, and to what: ``diagnose_gap.py`` (with its parts: class tags, collection,
judging, the summary), ``gap_by_class.py`` and ``rollout_bias.py``."""
