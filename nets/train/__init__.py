"""The training that makes the shipped nets, and the benchmark that judges them.

TD self-play (``td``, ``td_kernel``), positions and their labels (``labels``,
``labellers``, ``harvest``, ``relabel``), supervised fits (``supervised``,
``adam``, ``expand``, ``distill``, ``pruning``), the learning loop around the
daemon's records (``retrain``) and the benchmark sets (``benchmark``).  Nothing
here is needed to play: the bot loads its weights through ``nets.player``.
"""
