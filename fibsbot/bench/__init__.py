"""`fibsbot bench`: the engine's speed on one core.

``speed`` holds the registry of benchmarks and the engine's hot paths (move
generation, self-play, evaluation, TD); ``search`` adds the 0-ply and 2-ply decisions,
``rollout`` the rollout games and ``start`` the first start of the bot.
"""
