"""Start `fibsbot run` while its server cannot be reached, bring the server back after
--outage-s seconds, and say how long the daemon took to log in (fibsbot.arena.outage).

    .venv/bin/python scripts/checks/outage_drill.py --fault refused --outage-s 180
    .venv/bin/python scripts/checks/outage_drill.py --fault lookup --outage-s 180   # EAI_NONAME, then EAI_AGAIN

The daemon runs with the default backoff (2 s doubling up to [server] reconnect_backoff_max,
30 s) unless --backoff-max says otherwise.  Exit 0 when the daemon never exited during the
outage and logged in within --deadline-s of the server's return, 1 otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import tempfile
from pathlib import Path

import structlog

from fibsbot.arena.outage import FAULTS, run_outage


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--fault", choices=FAULTS, default="refused")
    p.add_argument("--outage-s", type=float, default=180.0, help="how long the server stays away (default 180)")
    p.add_argument("--backoff-base", type=float, default=2.0)
    p.add_argument("--backoff-max", type=float, default=30.0)
    p.add_argument("--deadline-s", type=float, default=60.0, help="the longest acceptable wait for the login")
    p.add_argument("--dir", type=Path, help="keep the daemon's files here (default: a temporary folder)")
    args = p.parse_args(argv)
    if args.outage_s <= 0 or args.deadline_s <= 0 or not 0 < args.backoff_base <= args.backoff_max:
        p.error("--outage-s and --deadline-s must be positive, and 0 < --backoff-base <= --backoff-max")
    # the local server logs every command: only its warnings here
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    with tempfile.TemporaryDirectory(prefix="fibsbot-outage-") as scratch:
        folder = args.dir or Path(scratch)
        result = asyncio.run(
            run_outage(
                args.fault,
                args.outage_s,
                folder,
                backoff=(args.backoff_base, args.backoff_max),
                login_wait_s=max(args.deadline_s, args.backoff_max) * 2,
            )
        )
    for line in result.console:
        print(f"  daemon: {line}")
    if result.exit_during_outage is not None:
        print(f"FAIL: the daemon exited with {result.exit_during_outage} during the outage")
        return 1
    if result.login_after_s is None:
        print("FAIL: the daemon did not log in after the server came back")
        return 1
    verdict = "ok" if result.login_after_s <= args.deadline_s else "FAIL"
    print(
        f"{verdict}: fault {result.fault}, outage {result.outage_s:g} s, {result.attempts} failed attempts, "
        f"logged in {result.login_after_s:.1f} s after the server came back; exit {result.exit_code} on SIGTERM"
    )
    return 0 if verdict == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
