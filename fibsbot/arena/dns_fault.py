"""A resolver that fails on demand, for outage drills (``fibsbot.arena.outage``).

``install()`` wraps ``socket.getaddrinfo``, which asyncio's connections resolve through:
the name ``FAKE_HOST`` fails with the resolver error written in the file that the
environment variable ``ENV`` names (``EAI_AGAIN``, or ``EAI_NONAME`` as a boot without
network says) while that file exists, and resolves as 127.0.0.1 once it is gone; every
other name resolves as usual.  A daemon gets it from a ``sitecustomize`` on its PYTHONPATH
(``write_sitecustomize``), so the code under test is the daemon's own, unchanged, and a
daemon started without the variable has no fault at all.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Any

ENV = "FIBSBOT_DNS_FAULT_FILE"
FAKE_HOST = "fibs.test"  # .test: reserved for testing, never a real name (RFC 6761)
# the texts glibc gives these errors
ERRORS = {
    "EAI_AGAIN": (socket.EAI_AGAIN, "Temporary failure in name resolution"),
    "EAI_NONAME": (socket.EAI_NONAME, "Name or service not known"),
}


def install() -> None:
    path = os.environ.get(ENV)
    if not path:
        return
    real = socket.getaddrinfo

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host not in (FAKE_HOST, FAKE_HOST.encode()):
            return real(host, port, *args, **kwargs)
        try:
            name = Path(path).read_text().strip()
        except FileNotFoundError:  # the network is up
            return real("127.0.0.1", port, *args, **kwargs)
        number, text = ERRORS[name]
        raise socket.gaierror(number, text)

    socket.getaddrinfo = getaddrinfo


def write_sitecustomize(folder: Path) -> Path:
    """A folder to put first on a child's PYTHONPATH: its ``sitecustomize`` installs the fault."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text("from fibsbot.arena.dns_fault import install\n\ninstall()\n")
    return folder
