"""Who decides: the move choosers a duel or rollout plays with (net, pubeval,
random, gnubg) and the agent that takes every decision of a match.

May import every engine package below it (rules, eval, search, cube).
"""
