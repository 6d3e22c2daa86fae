"""The head's workers: started one per CPU of the cluster, placed by Ray,
picked by load, and replaced when lost.

A worker or node lost mid-match is the cluster's fault, never a bot's: its
worker is taken out and a replacement started, which joins once Ray has
placed it (at once on a live node, or when a node comes back).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from arena.cluster.jobs import MatchJob, MatchOutcome, WarmSpec
from arena.cluster.session import (
    ClusterError,
    await_ref,
    connect,
    disconnect,
    head_lost,
    in_ray_thread,
    is_lost,
)
from arena.cluster.worker import (
    CONTROL_CALLS,
    IN_PROCESS,
    MATCHES,
    MAX_MATCHES_PER_WORKER,
    MatchWorker,
)
from arena.match.outcome import MatchEvent
from arena.match.settings import ClusterSettings

# How long the start waits for every worker to be placed before it begins
# with those it has (the others join as soon as Ray places them).
STARTUP_WAIT = 30.0
# How long a match waits for a worker when every one was lost (a new one is
# started at once; Ray places it when a node has a free CPU).
REPLACEMENT_WAIT = 120.0
# How often a match waiting for a worker looks whether the cluster's head still answers.
HEAD_CHECK_INTERVAL = 2.0


@dataclass(eq=False)
class Worker:
    """A placed worker: its actor, its node, and how many matches it plays now."""

    actor: Any
    node: str
    load: int = 0


class WorkerPool:
    """The workers of one cluster, as the head sees them."""

    ships = True  # nodes may lack the head's files: engines' directories are shipped

    def __init__(
        self,
        settings: ClusterSettings,
        warm: WarmSpec | None,
        notice: Callable[[str], None],
        temp_dir: Path | None,
    ) -> None:
        self.settings = settings
        self.warm = warm
        self.notice = notice
        self.temp_dir = temp_dir
        self.workers: list[Worker] = []
        self.ray: Any = None  # the Ray module, once connected
        self._actor_class: Any = None
        self._changed = trio.Event()
        self._nursery: trio.Nursery | None = None
        self._spares: list[Any] = []  # replacements not placed yet
        self._failure = ""  # why the last worker could not start

    async def start(self, nursery: trio.Nursery) -> None:
        """Start the workers, one per CPU unless ``workers`` says otherwise; each
        takes a CPU. Wait until all are placed, or STARTUP_WAIT has passed with at
        least one (the others join when Ray places them, e.g. as nodes join)."""
        self._nursery = nursery
        await in_ray_thread(self._init_ray)
        cpus = int(self.ray.cluster_resources().get("CPU", 0))
        count = self.settings.workers or max(1, cpus)
        for _ in range(count):
            nursery.start_soon(self._replace)
        with trio.move_on_after(STARTUP_WAIT):
            while len(self.workers) < count:
                await self._changed.wait()
        if not self.workers and self._spares:
            self.notice(f"waiting for the cluster to place a worker (it has {cpus} CPUs)")
        while not self.workers:
            if not self._spares:
                raise ClusterError(f"no worker could be started on the cluster: {self._failure}")
            await self._changed_or_head_lost()
        nodes = len({w.node for w in self.workers})
        self.notice(
            f"cluster {self.settings.address}: {len(self.workers)} workers on {nodes} "
            f"node{'s' if nodes != 1 else ''}"
            + (f" ({count - len(self.workers)} more join when placed)" if self._spares else "")
        )

    def _init_ray(self) -> None:
        self.ray = connect(self.settings.address, self.temp_dir, self.settings.node)
        options: dict[str, Any] = {
            "num_cpus": 1,
            # Threads: each match waits in one (blocked, not holding the GIL).
            "max_concurrency": CONTROL_CALLS,  # the other calls: ready, events_since, ...
            "scheduling_strategy": "SPREAD",
        }
        groups = {MATCHES: MAX_MATCHES_PER_WORKER, IN_PROCESS: 1}
        actor = self.ray.remote(concurrency_groups=groups)(MatchWorker)
        self._actor_class = actor.options(**options)

    async def stop(self) -> None:
        """Kill every worker, and leave the Ray session: no replacement starts from now on."""
        self._nursery = None
        await in_ray_thread(self._close)

    def _close(self) -> None:
        if self.ray is None:
            return
        for worker in self.workers:
            with contextlib.suppress(Exception):
                self.ray.kill(worker.actor)
        for actor in self._spares:
            with contextlib.suppress(Exception):
                self.ray.kill(actor)
        disconnect()

    def where(self, worker: Worker) -> str:
        """The worker, as a notice names it."""
        return f"on node {worker.node[:12]}"

    def is_lost(self, error: BaseException) -> bool:
        """A Ray error that lost the worker or its node (not one the match raised)."""
        return is_lost(self.ray, error)

    async def pick(self) -> Worker:
        """The least busy worker; with none left, wait a while for a replacement,
        but not for a cluster whose head is gone: nothing would place one."""
        with trio.move_on_after(REPLACEMENT_WAIT):
            while not self.workers:
                await self._changed_or_head_lost()
        if not self.workers:
            raise ClusterError(
                f"the cluster has had no worker for {REPLACEMENT_WAIT:.0f} s; the matches "
                "not played stay pending: run the same command again to resume"
            )
        return min(self.workers, key=lambda w: w.load)

    async def _changed_or_head_lost(self) -> None:
        """Wait until a worker is placed or lost, HEAD_CHECK_INTERVAL at most;
        ClusterError when the cluster's head does not answer (a lost head
        places nothing, however long one waits)."""
        why = await trio.to_thread.run_sync(head_lost)
        if why is not None:
            raise ClusterError(
                f"the cluster {self.settings.address} lost its head ({why}); the matches "
                "not played stay pending: run the same command again to resume"
            )
        with trio.move_on_after(HEAD_CHECK_INTERVAL):
            await self._changed.wait()

    def lose(self, worker: Worker) -> None:
        """Take a lost worker out, and start a replacement: it joins once Ray
        has placed it (at once on a live node, or when a node comes back)."""
        if worker not in self.workers:
            return
        self.workers.remove(worker)
        with contextlib.suppress(Exception):
            self.ray.kill(worker.actor)
        if self._nursery is not None:
            self._nursery.start_soon(self._replace)

    async def _replace(self) -> None:
        """A new worker, in the pool once Ray has placed and started it."""
        actor = self._actor_class.remote(self.warm)
        self._spares.append(actor)
        try:
            node = await await_ref(actor.ready.remote())
        except Exception as e:
            if not self.is_lost(e):
                raise
            self._failure = str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__
            return
        finally:
            self._spares.remove(actor)
            self._changed.set()
            self._changed = trio.Event()
        self.workers.append(Worker(actor, node))

    async def play(self, worker: Worker, job: MatchJob, group: str) -> MatchOutcome:
        """The job played on ``worker`` in its concurrency ``group``."""
        call = worker.actor.play.options(concurrency_group=group)
        outcome: MatchOutcome = await await_ref(call.remote(job))
        return outcome

    async def events_since(
        self, worker: Worker, cursors: dict[str, int]
    ) -> dict[str, list[MatchEvent]]:
        """The new events of the followed matches playing on ``worker``."""
        events: dict[str, list[MatchEvent]] = await await_ref(
            worker.actor.events_since.remote(cursors)
        )
        return events

    async def cpu_seconds(self) -> float:
        """CPU time the workers have used so far (benchmarks)."""
        refs = [w.actor.cpu_seconds.remote() for w in self.workers]
        return float(sum([await await_ref(ref) for ref in refs]))
