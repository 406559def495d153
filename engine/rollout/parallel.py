"""Where independent chunks of work run: here, in local processes, or on a Ray cluster.

Rollout and self-play games depend only on their index, so callers split the
indices into chunks and every backend gives the same results; only the speed
changes.  Ray is optional and imported only when a Ray address is given, so the
package runs without it.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

log = logging.getLogger(__name__)

RAY_INSTALL_HINT = "pip install 'fibsbot[ray]'"
# seconds to wait for a TCP answer from a cluster address before giving up: Ray
# itself retries an unreachable address for minutes without saying why
CONNECT_TIMEOUT = 5.0

_remote_functions: dict[Callable, Any] = {}


class ParallelBackendError(RuntimeError):
    """The requested backend cannot run: Ray is missing or the cluster does not answer."""


def split_range(total: int, parts: int) -> list[tuple[int, int]]:
    """``(first, count)`` of up to ``parts`` contiguous non-empty chunks of ``range(total)``,
    in order, the first ones one larger when ``total`` does not divide evenly."""
    if total < 0:
        raise ValueError("cannot split a negative number of items")
    parts = max(1, min(parts, total))
    size, extra = divmod(total, parts)
    chunks, first = [], 0
    for i in range(parts):
        count = size + (1 if i < extra else 0)
        if count:
            chunks.append((first, count))
        first += count
    return chunks


def import_ray():
    try:
        import ray
    except ImportError as exc:
        raise ParallelBackendError(f"the Ray backend needs Ray, which is not installed: {RAY_INSTALL_HINT}") from exc
    return ray


def _check_reachable(address: str) -> None:
    """Fail fast on a ``HOST:PORT`` or ``ray://HOST:PORT`` address nobody listens at."""
    if address in ("auto", "local"):
        return
    hostport = address.removeprefix("ray://").rstrip("/")
    host, sep, port = hostport.rpartition(":")
    if not sep or not port.isdigit():
        raise ParallelBackendError(
            f"bad Ray address {address!r}: expected HOST:PORT, ray://HOST:PORT, 'auto' or 'local'"
        )
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT).close()
    except OSError as exc:
        raise ParallelBackendError(f"no Ray cluster answers at {address}: {exc}") from exc


def connect_ray(address: str):
    """The ``ray`` module, connected: ``ray.init(address=...)`` unless this process is
    already connected (then the existing connection is used whatever the address)."""
    ray = import_ray()
    if not ray.is_initialized():
        _check_reachable(address)
        try:
            ray.init(address=address)
        except (ConnectionError, TimeoutError, ValueError, RuntimeError) as exc:  # Ray's ways of refusing
            raise ParallelBackendError(
                f"cannot connect to the Ray cluster at {address}: {exc} (a cluster with token authentication "
                "needs RAY_AUTH_MODE=token and its token in ~/.ray/auth_token or RAY_AUTH_TOKEN; ray:// "
                "addresses need pip install 'ray[client]')"
            ) from exc
        # stdlib logging, not stdout: a command's --json output must stay clean
        log.info("Ray connected: address=%s cpus=%s", address, ray.cluster_resources().get("CPU", 0))
    return ray


def parallelism(workers: int, ray_address: str | None = None) -> int:
    """How many chunks to cut work into: ``workers`` locally; on Ray at least one per
    CPU of the cluster, so a cluster is used in full without a ``workers`` guess."""
    if ray_address is None:
        return max(1, workers)
    ray = connect_ray(ray_address)
    return max(1, workers, int(ray.cluster_resources().get("CPU", 1)))


def map_chunks(fn: Callable, arg_tuples: Iterable[tuple], *, workers: int = 1, ray_address: str | None = None) -> list:
    """``[fn(*args) for args in arg_tuples]``, run in this process (``workers <= 1``), over
    ``workers`` local processes, or as Ray tasks when ``ray_address`` is given.

    ``fn`` must be a module-level Python function (processes and Ray workers import it
    by name; Ray refuses builtins); results come back in the order of ``arg_tuples``."""
    arg_tuples = list(arg_tuples)
    if ray_address is not None:
        ray = connect_ray(ray_address)
        remote = _remote_functions.get(fn)
        if remote is None:
            remote = _remote_functions[fn] = ray.remote(fn)
        return ray.get([remote.remote(*args) for args in arg_tuples])
    if workers <= 1 or len(arg_tuples) <= 1:
        return [fn(*args) for args in arg_tuples]
    with ProcessPoolExecutor(max_workers=min(workers, len(arg_tuples))) as pool:
        futures = [pool.submit(fn, *args) for args in arg_tuples]
        return [future.result() for future in futures]
