"""Whole matches on the local server, for real: our bot and a sparring bot as clients.

``play`` runs matches (``fibsbot arena``); ``chaos`` runs them while faults are
injected and ``audit`` checks afterwards that the records hold what the server saw.
It composes the server, the client, the records and the agent, so it lives apart
from each of them.
"""
