"""The bot's network layer: the telnet connection, login, reconnects, and whom it plays.

``connection.BotClient`` is the only code that talks to a FIBS server; it feeds
the pure protocol core (``fibsbot.protocol``) and carries out its commands.
``options`` are its settings, ``settings`` builds it from the daemon's settings
file, and ``policy`` decides invitations and replies to tells.
"""
