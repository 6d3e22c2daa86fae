"""The worker side: a Ray actor per CPU of the cluster (MatchWorker), whose
trio loop in a thread (MatchLoop) plays many matches at once through
``run_match``, the one way a match is played. It launches command engines
in its own sandboxes, so a bot instance never serves two nodes."""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import trio

from arena.cluster.jobs import MatchJob, MatchOutcome, WarmSpec
from arena.cluster.session import node_id
from arena.cluster.shipping import localize
from arena.files import process_dir
from arena.match.outcome import MatchEvent

GIL_SWITCH_SECONDS = 0.001
# Matches one worker plays at once at most (more wait in Ray's queue).
MAX_MATCHES_PER_WORKER = 1024
# A worker's concurrency groups (Ray queues the calls beyond each limit): matches
# with a bot outside the worker's process overlap their bots' thinking; matches
# of builtin strategies only, which think in the worker's own process and core,
# go one at a time (with 32 at once in one worker the GIL's contention cost
# about a third more CPU per match).
MATCHES = "matches"
IN_PROCESS = "in_process"
CONTROL_CALLS = 16
WORKER_DIR_PREFIX = "arena-worker-"


class MatchWorker:
    """A Ray actor: one trio loop in a thread (a MatchLoop) plays every match
    sent here.

    Each ``play`` call hands its match to the trio loop's nursery and waits in
    one of the actor's threads (blocked, without the GIL), so one process
    plays many matches at once on one loop, as the single process does, and
    the cluster has one such process per CPU. Why threads and not an asyncio
    actor: with Ray's asyncio loop in the process, a bot that never answers
    was cut off 10 ms late (median, 64 matches at once on 2 workers) against
    3 ms with threads, and 2-4 ms in one process.

    This class must have no coroutine method: Ray makes any class with one an
    asyncio actor, whose plain methods then run one at a time on Ray's loop.
    The trio side lives in MatchLoop for that reason (when it lived here, a
    worker played one match at a time: three at once took three times one)."""

    def __init__(self, warm: WarmSpec | None) -> None:
        self._loop = MatchLoop(warm)

    def ready(self) -> str:
        """This worker's node (once the actor is placed and started)."""
        return node_id()

    def cpu_seconds(self) -> float:
        """CPU time this worker's process has used (benchmarks)."""
        return time.process_time()

    def events_since(self, cursors: dict[str, int]) -> dict[str, list[MatchEvent]]:
        """For each followed match still playing here, its events from the given index on."""
        return self._loop.events_since(cursors)

    def play(self, job: MatchJob) -> MatchOutcome:
        """Play the match on this process's trio loop; called in one of the actor's threads."""
        return self._loop.play(job)


def _normal_priority() -> None:
    """This thread (the trio loop: the referee's clocks) and the bots it launches
    at nice 0, where Ray's workers of a cluster not started by the arena run at
    15; allowed to root (or CAP_SYS_NICE), else left as it is (see session._init)."""
    with contextlib.suppress(OSError):
        if os.getpriority(os.PRIO_PROCESS, 0) > 0:
            os.setpriority(os.PRIO_PROCESS, 0, 0)  # on Linux: the calling thread


class MatchLoop:
    """A worker's trio loop, in a thread of its own, and the matches it plays."""

    def __init__(self, warm: WarmSpec | None) -> None:
        # The trio loop shares this process with Ray's threads: with Python's
        # default 5 ms switch interval a deadline's wake-up waits for the GIL
        # that long (the competition server sets 1 ms for the same reason).
        sys.setswitchinterval(GIL_SWITCH_SECONDS)
        root = Path(tempfile.gettempdir())
        self._dir = process_dir(WORKER_DIR_PREFIX, root)
        self._warm = warm
        self._pool: Any = None
        self._events: dict[str, list[MatchEvent]] = {}  # of the followed matches playing
        self._token: trio.lowlevel.TrioToken | None = None
        self._nursery: trio.Nursery | None = None
        started = threading.Event()
        self._thread = threading.Thread(
            target=trio.run, args=(self._serve, started), name="arena-trio", daemon=True
        )
        self._thread.start()
        started.wait()

    async def _serve(self, started: threading.Event) -> None:
        from arena.transport.seats import open_warm_pool

        self._token = trio.lowlevel.current_trio_token()
        _normal_priority()
        async with contextlib.AsyncExitStack() as stack:
            if self._warm is not None:
                self._pool = await stack.enter_async_context(
                    open_warm_pool(
                        self._dir / "warm", self._warm.startup_timeout, self._warm.sandbox
                    )
                )
            self._nursery = await stack.enter_async_context(trio.open_nursery())
            started.set()
            await trio.sleep_forever()

    def events_since(self, cursors: dict[str, int]) -> dict[str, list[MatchEvent]]:
        fresh = {}
        for key, start in cursors.items():
            events = self._events.get(key)
            if events is not None:
                fresh[key] = events[start:]
        return fresh

    def play(self, job: MatchJob) -> MatchOutcome:
        future: concurrent.futures.Future[MatchOutcome] = concurrent.futures.Future()
        assert self._token is not None and self._nursery is not None
        self._token.run_sync_soon(self._nursery.start_soon, self._play_into, job, future)
        return future.result()

    async def _play_into(
        self, job: MatchJob, future: concurrent.futures.Future[MatchOutcome]
    ) -> None:
        try:
            future.set_result(await self._play(job))
        except Exception as e:  # the match's own error goes back to the head
            future.set_exception(e)

    async def _play(self, job: MatchJob) -> MatchOutcome:
        return await play_job(job, self._dir, self._pool, self._events, node_id())


async def play_job(
    job: MatchJob,
    directory: Path,
    warm: Any,
    events_by_key: dict[str, list[MatchEvent]],
    node: str,
) -> MatchOutcome:
    """Play one job with ``run_match`` in a temporary directory under ``directory``,
    and gather what goes back to the head: the report, the log's bytes, the
    bots' output. A followed match's events are kept in ``events_by_key``
    while it plays (the head fetches them), under the job's key."""
    from arena.play import run_match

    # Unpacking an archive (once per node) must not hold up the loop's other matches.
    engines = await trio.to_thread.run_sync(
        lambda: [localize(e, job.working_dir, job.archives) for e in job.engines]
    )
    events: list[MatchEvent] = []
    if job.followed:
        events_by_key[job.followed] = events
    try:
        with tempfile.TemporaryDirectory(dir=directory) as tmp:
            log = Path(tmp) / job.log_name if job.log_name else None
            bots = Path(tmp) / "bots"
            report = await run_match(
                list(engines),
                job.settings,
                log=log,
                spectate=events.append if job.followed else None,
                warm=warm,
                bot_output=bots,
                bot_output_shown=job.bot_output_shown,
                allow_shared_partners=job.allow_shared_partners,
            )
            data = log.read_bytes() if log is not None and log.exists() else None
            output = tuple((p.name, p.read_bytes()) for p in sorted(bots.glob("*")) if p.is_file())
    finally:
        events_by_key.pop(job.followed, None)
    return MatchOutcome(report, data, output, node, tuple(events))
