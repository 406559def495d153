"""Memory counters of a soaking daemon, without changing what they count.

Put this folder on PYTHONPATH of a soak (``fibsbot arena --soak``) and the daemon
process alone (its command line runs ``fibsbot.cli.run``) writes a JSON line every
60 s to ``$SOAK_DIAG``: resident memory, pymalloc's live blocks
(``sys.getallocatedblocks``: Python objects), glibc's heap in use and free and its
mmapped chunks (``mallinfo2``: C allocations and fragmentation), SQLite's own heap
(``sqlite3_memory_used``) and the thread count. Nothing here allocates enough to move
the resident figure it reports (no tracemalloc, no ``gc.get_objects``), so the soak's
own samples stay valid beside it.

    PYTHONPATH=scripts/diagnosis/soak_counters SOAK_DIAG=counters.jsonl \
        fibsbot arena --soak samples.jsonl --matches 3000 --length 1 --ply 0 --seed S

Which counter moves with the resident memory says where to look: Python objects
(then tracemalloc), C heap, free heap (fragmentation) or SQLite.
"""

import sys

if any("fibsbot.cli.run" in a for a in getattr(sys, "orig_argv", [])):
    import ctypes
    import ctypes.util
    import json
    import os
    import threading
    import time

    class _Mallinfo2(ctypes.Structure):
        _fields_ = [
            (n, ctypes.c_size_t)
            for n in (
                "arena",
                "ordblks",
                "smblks",
                "hblks",
                "hblkhd",
                "usmblks",
                "fsmblks",
                "uordblks",
                "fordblks",
                "keepcost",
            )
        ]

    def _loop():
        libc = ctypes.CDLL(None)
        libc.mallinfo2.restype = _Mallinfo2

        sqlite = ctypes.CDLL(ctypes.util.find_library("sqlite3") or "libsqlite3.so.0")
        sqlite.sqlite3_memory_used.restype = ctypes.c_int64
        out = os.environ.get("SOAK_DIAG", "/dev/shm/soak/diag.jsonl")
        started = time.monotonic()
        while True:
            time.sleep(60)
            m = libc.mallinfo2()
            rss = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmRSS:"))
            row = {
                "t": round(time.monotonic() - started),
                "rss_kib": rss,
                "py_blocks": sys.getallocatedblocks(),
                "heap_arena": m.arena,
                "heap_used": m.uordblks,
                "heap_free": m.fordblks,
                "mmapped": m.hblkhd,
                "sqlite_used": sqlite.sqlite3_memory_used(),
                "threads": threading.active_count(),
            }
            with open(out, "a") as f:
                f.write(json.dumps(row) + "\n")

    threading.Thread(target=_loop, name="soak-diag", daemon=True).start()
