"""A local FIBS-style server: the loopback test bed of the client and the arena's server.

``ServerCore`` (sans-IO, all the rules) and ``start_server`` (asyncio TCP around it);
``fibsbot.server.testing.run_local_server`` starts one for a test.
"""

from fibsbot.server.config import ServerConfig
from fibsbot.server.core import ServerCore
from fibsbot.server.dice import ScriptedDice, SeededDice
from fibsbot.server.net import FibsServer, start_server
from fibsbot.server.outputs import Close, Output, Send, SetEcho

__all__ = [
    "Close",
    "FibsServer",
    "Output",
    "ScriptedDice",
    "SeededDice",
    "Send",
    "ServerConfig",
    "ServerCore",
    "SetEcho",
    "start_server",
]
