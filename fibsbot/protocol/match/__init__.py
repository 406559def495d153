"""The match state machine: server events in, commands and decision requests out.

``driver.MatchDriver`` is the machine; ``ending``, ``lobby`` and ``saved`` are its
mixins, ``state`` reads a board line into what the agent needs and its answer back
into a command, and ``outputs`` names everything the driver hands its caller.
"""
