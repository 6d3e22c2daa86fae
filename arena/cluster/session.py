"""This process's Ray session: one connection shared by the clusters open in
it (the competition server runs several competitions at once), made and
closed in one thread of its own; and how trio waits for Ray.

Ray is an optional dependency (``pip install scopa-arena[cluster]``): it is
imported only when a cluster is used.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import os
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio

from arena.errors import ArenaError, ConfigError

LOCAL = "local"  # --cluster local: a Ray instance of this machine, one worker per core


class ClusterError(ArenaError):
    """The cluster could not play a match (not a bot's fault): it cannot be
    reached, did not start, lost its head or its workers. What it did not play
    stays pending, and running the same command again resumes."""


# Ray errors that mean the cluster lost the match, not that the arena failed.
_LOST = (
    "RayActorError",
    "ActorDiedError",
    "ActorUnavailableError",
    "ActorUnschedulableError",
    "WorkerCrashedError",
    "NodeDiedError",
    "ObjectLostError",
    "OwnerDiedError",
    "ObjectFetchTimedOutError",
    "ReferenceCountingAssertionError",
    "LocalRayletDiedError",
    "RaySystemError",
)


def ray_module() -> Any:
    """Ray, or a ConfigError saying how to install it."""
    # No usage report to Ray's makers. Authentication is left to Ray's own
    # default (a token under ~/.ray for a new local instance; a remote cluster's
    # token when one is there) or to RAY_AUTH_MODE as the user sets it: a
    # local instance's ports listen on every interface, so it must not be off.
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    try:
        import ray
    except ImportError:
        raise ConfigError(
            "running on a cluster needs Ray: pip install 'scopa-arena[cluster]'"
        ) from None
    return ray


def node_id() -> str:
    """The Ray node this process runs on."""
    import ray

    return str(ray.get_runtime_context().get_node_id())


def is_lost(ray: Any, error: BaseException) -> bool:
    """A Ray error that lost the worker or its node (not one the match raised)."""
    if ray is None or not isinstance(error, ray.exceptions.RayError):
        return False
    if isinstance(error, ray.exceptions.RayTaskError) and not isinstance(
        error, ray.exceptions.RayActorError
    ):
        return False
    return any(cls.__name__ in _LOST for cls in type(error).__mro__)


async def await_ref(ref: Any) -> Any:
    """The value of a Ray object reference, waited for without a thread: Ray
    calls back when it is ready."""
    token = trio.lowlevel.current_trio_token()
    done = trio.Event()
    future = ref.future()

    def wake(_: object) -> None:
        with contextlib.suppress(trio.RunFinishedError):
            token.run_sync_soon(done.set)

    future.add_done_callback(wake)
    await done.wait()
    return future.result()


# One Ray connection per process, shared by the clusters open in it.
_lock = threading.Lock()
_users = 0
# ray.init and ray.shutdown run in this one thread, which never exits: a local
# instance's processes (GCS, raylet) are killed by the kernel when the thread
# that started them ends (Ray sets PR_SET_PDEATHSIG in them, and that signal
# follows the starting thread, not the process). Started from one of trio's
# cached threads, they died some seconds later when that thread idled out.
_ray_thread = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="arena-ray")


async def in_ray_thread(call: Callable[[], Any]) -> Any:
    """``call()`` in the Ray thread, waited for without blocking the trio loop."""
    future = _ray_thread.submit(call)
    return await trio.to_thread.run_sync(future.result)


# What ray.init says when its local raylet did not register in time, or its
# GCS server did not publish its port in time (Ray 2.x): both seen in CI.
STARTUP_TIMEOUTS = ("timed out during startup", "Timed out waiting for file")
# Ray waits 30 s for the GCS server's port file unless told otherwise; a loaded
# 2-core machine has taken longer. A longer wait costs nothing when it is quick.
GCS_PORT_WAIT = ("RAY_gcs_server_port_wait_time_s", "120")
# A Ray driver whose head (its GCS server) is gone for 60 s ends its whole
# process ("Failed to connect to GCS within 60 seconds ... The program will
# terminate"), and here that process may be the competition server. The arena
# notices a lost head itself (pool.py), stops what played there, and connects
# afresh later: the driver is told to wait as long as that takes.
HEAD_LOSS_WAIT = ("RAY_gcs_rpc_server_reconnect_timeout_s", str(365 * 24 * 3600))
# How long a TCP connection to a cluster's head may take before it counts as unreachable.
PROBE_TIMEOUT = 5.0

_address: str | None = None
_head: str | None = None  # the GCS server's HOST:PORT, once connected
_owned = False  # this module called ray.init (and so calls ray.shutdown)


def connect(address: str, temp_dir: Path | None, node: str | None = None) -> Any:
    """Ray, connected to ``address`` (or a new local instance) through the
    node of this machine at the IP address ``node`` (Ray's choice if None);
    in the Ray thread. ClusterError when the cluster cannot be reached or
    does not start."""
    global _users, _address, _owned, _head
    ray = ray_module()
    with _lock:
        if _users and address != _address:
            raise ClusterError(
                f"this process already runs matches on the cluster {_address}; "
                f"it cannot use {address} at the same time"
            )
        if not _users:
            if ray.is_initialized():
                _owned = False  # the caller's own connection: theirs to close
            else:
                _init(ray, address, temp_dir, node)
                _owned = True
            _address = address
            _head = str(ray.get_runtime_context().gcs_address)
        _users += 1
    return ray


def head_lost() -> str | None:
    """Why the head of the cluster this process is connected to does not
    answer (its GCS server's port refuses), or None; blocks up to PROBE_TIMEOUT."""
    return None if _head is None else unreachable(_head)


def unreachable(address: str) -> str | None:
    """Why nothing accepts a TCP connection at HOST:PORT, or None."""
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=PROBE_TIMEOUT):
            return None
    except (OSError, ValueError) as e:
        return getattr(e, "strerror", None) or str(e) or type(e).__name__


def disconnect() -> None:
    """One user fewer; the last one shuts down a Ray instance this module started."""
    global _users, _owned, _head
    with _lock:
        _users -= 1
        if _users == 0:
            _head = None
        if _users == 0 and _owned:
            import ray

            ray.shutdown()
            _owned = False


class _NotMainThread(logging.Filter):
    """Ray says it set no SIGTERM handler when started off the main thread: the
    arena keeps its own handlers there, as it should; nothing to report."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "SIGTERM handler is not set" not in record.getMessage()


def _init(ray: Any, address: str, temp_dir: Path | None, node: str | None = None) -> None:
    logging.getLogger("ray._private.worker").addFilter(_NotMainThread())
    options: dict[str, Any] = {"log_to_driver": False, "configure_logging": False}
    if address == LOCAL:
        # Ray starts its workers at nice 15, below the bots they launch and the
        # rest of the machine: a worker then cuts off late bots later (six runs of
        # 64 at once in a worker: medians 1.9-8.6 ms, against 0.9-4.0 ms at 0).
        # "local" starts a new instance: never joins another Ray found on the machine.
        options.update(
            address=LOCAL,
            num_cpus=os.cpu_count() or 1,
            include_dashboard=False,
            _node_ip_address="127.0.0.1",
            _system_config={"worker_niceness": 0},
        )
        if temp_dir is not None:
            options["_temp_dir"] = str(temp_dir)
        os.environ.setdefault(*GCS_PORT_WAIT)  # read by ray.init, in this process
        os.environ.setdefault(*HEAD_LOSS_WAIT)
        try:
            ray.init(**options)
        except Exception as e:
            if not _timed_out(e):
                raise
            # Ray waits a fixed 30 s for its raylet; on a loaded machine it can
            # take longer (seen in CI, failing a whole competition). Once more.
            ray.shutdown()
            try:
                ray.init(**options)
            except Exception as again:
                if not _timed_out(again):
                    raise
                ray.shutdown()
                said = _line(again)
                raise ClusterError(f"the local Ray instance did not start: {said}") from None
        return
    # Ray retries an address that refuses for many minutes before it gives up.
    refused = unreachable(address)
    if refused is not None:
        raise ClusterError(f"cannot reach the Ray cluster at {address}: {refused}")
    os.environ.setdefault(*HEAD_LOSS_WAIT)  # read by ray.init, in this process
    if node is not None:
        # Ray joins through the head when it runs on this machine, and ends
        # this process once that node is gone (its object store's connection
        # fails): another node of the machine outlives a lost head.
        options["_node_ip_address"] = node
    try:
        ray.init(address=address, **options)
    except (ConnectionError, RuntimeError, ValueError) as e:
        ray.shutdown()
        if node is not None and "No node info found" in f"{e} {e.__cause__}":
            raise ClusterError(
                f"the Ray cluster at {address} has no node of this machine at {node}"
            ) from None
        raise ClusterError(f"cannot reach the Ray cluster at {address}: {_line(e)}") from None


def _timed_out(error: BaseException) -> bool:
    """Ray's own start-up took longer than it waits for it (a loaded machine)."""
    return any(said in str(error) for said in STARTUP_TIMEOUTS)


def _line(error: BaseException) -> str:
    """An error's first line that says something (Ray's run over many)."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__
