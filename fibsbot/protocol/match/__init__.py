"""The match state machine: server events in, commands and decision requests out.

``driver.MatchDriver`` is the machine and ``memory.DriverMemory`` all it knows; ``play``,
``ending`` and ``lobby`` hold its event handlers, ``situation`` says what a board waits
for from us, ``state`` reads a board line into what the agent needs and its answer back
into a command, and ``outputs`` names everything the driver hands its caller.
"""
