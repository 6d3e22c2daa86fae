"""Matches on a Ray cluster: the head process schedules and writes, the nodes play.

    async with open_cluster(ClusterSettings("local")) as cluster:
        report = await cluster.play(engines, settings, log=path, bot_output=out / "bots")

The head process (the tournament, the SPRT or the competition server) keeps
its one results store and writes every log; it sends each match to a worker
on some node and gets back the match's report, its log's bytes and its bots'
output. A worker is a Ray actor, one per CPU of the cluster, running a trio
loop in a thread: it plays many matches at once through ``run_match`` (the
one way a match is played), launching command engines in its own sandboxes,
so a bot instance never serves two nodes. A launched engine reaches a node
either because the node has the same files (a shared image, or this machine)
or through ``working_dir``, a directory shipped to every node: paths under it
in commands are rewritten to the node's copy. An engine with a directory
of its own (an uploaded bot) is shipped as a content-addressed archive and
unpacked once per node.

A worker or node lost mid-match is the cluster's fault, never a bot's: that
match is played again from scratch on another worker (``attempts`` in all)
and recorded once, by the head, only when a whole match came back.

Live spectators: a match played with ``spectate`` keeps its public events
(the referee's, never a hand) on its worker; the head fetches what is new
from each worker every FOLLOW_INTERVAL, in one call per worker, and the rest
with the match's outcome. A match played again after a lost worker is not
followed again: its spectators see it stop, then its result.

Ray is an optional dependency (``pip install scopa-arena[cluster]``): it is
imported only when a cluster is used.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import hashlib
import logging
import os
import shutil
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from arena.archive import ArchiveError, Limits, pack, unpack
from arena.errors import ArenaError, ConfigError
from arena.files import process_dir
from arena.outcome import MatchEvent, MatchReport
from arena.settings import ClusterSettings, EngineSpec, MatchSettings, SandboxSettings

LOCAL = "local"  # --cluster local: a Ray instance of this machine, one worker per core
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
# What is shipped to the nodes: at most this much, without these directories.
MAX_ARCHIVE_BYTES = 256 << 20
SKIPPED = frozenset({".git", "__pycache__", ".venv", ".mypy_cache", ".ruff_cache", ".pytest_cache"})
# The head's own directories, packed and unpacked by the one archive code
# (arena/archive.py): bounded by size only, and checked by their digest.
SHIPPING = Limits(
    archive_bytes=MAX_ARCHIVE_BYTES,
    files=1 << 30,
    unpacked_bytes=MAX_ARCHIVE_BYTES,
    ratio=1 << 30,
)
# How long the start waits for every worker to be placed before it begins
# with those it has (the others join as soon as Ray places them).
STARTUP_WAIT = 30.0
# How often the head fetches the new events of the matches spectators follow.
FOLLOW_INTERVAL = 0.1
# How long a match waits for a worker when every one was lost (a new one is
# started at once; Ray places it when a node has a free CPU).
REPLACEMENT_WAIT = 120.0


class ClusterError(ArenaError):
    """The cluster could not play a match (not a bot's fault): it stays pending,
    and running the same command again resumes."""


@dataclass(frozen=True)
class WarmSpec:
    """keep_warm on a cluster: each worker keeps its own warm pool."""

    startup_timeout: float
    sandbox: SandboxSettings


@dataclass(frozen=True)
class Archive:
    """An engine's own directory, packed: unpacked once per node under its digest."""

    sha256: str
    data: Any  # a Ray object reference to the tar bytes


@dataclass(frozen=True)
class MatchJob:
    """One match as a worker gets it."""

    engines: tuple[EngineSpec, ...]
    settings: MatchSettings
    log_name: str | None  # the log's file name (bot output files are named after it)
    allow_shared_partners: bool
    working_dir: tuple[str, Archive] | None  # the head's path of it, and its archive
    archives: tuple[tuple[str, Archive], ...] = ()  # (engine name, its directory)
    followed: str = ""  # with spectators: the key its events are fetched by


@dataclass(frozen=True)
class MatchOutcome:
    """What a worker sends back: the report, the log's bytes, the bots' output."""

    report: MatchReport
    log: bytes | None
    bot_output: tuple[tuple[str, bytes], ...]
    node: str
    events: tuple[MatchEvent, ...] = ()  # a followed match's public events, all of them


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


# --- the worker side -------------------------------------------------------


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
        return _node_id()

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
    15; allowed to root (or CAP_SYS_NICE), else left as it is (see _init)."""
    with contextlib.suppress(OSError):
        if os.getpriority(os.PRIO_PROCESS, 0) > 0:
            os.setpriority(os.PRIO_PROCESS, 0, 0)  # on Linux: the calling thread


def _node_id() -> str:
    import ray

    return str(ray.get_runtime_context().get_node_id())


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
        from arena.play import run_match

        # Unpacking an archive (once per node) must not hold up the loop's other matches.
        engines = await trio.to_thread.run_sync(
            lambda: [self._localize(e, job) for e in job.engines]
        )
        events: list[MatchEvent] = []
        if job.followed:
            self._events[job.followed] = events
        try:
            with tempfile.TemporaryDirectory(dir=self._dir) as tmp:
                log = Path(tmp) / job.log_name if job.log_name else None
                bots = Path(tmp) / "bots"
                report = await run_match(
                    list(engines),
                    job.settings,
                    log=log,
                    spectate=events.append if job.followed else None,
                    warm=self._pool,
                    bot_output=bots,
                    allow_shared_partners=job.allow_shared_partners,
                )
                data = log.read_bytes() if log is not None and log.exists() else None
                output = tuple(
                    (p.name, p.read_bytes()) for p in sorted(bots.glob("*")) if p.is_file()
                )
        finally:
            self._events.pop(job.followed, None)
        return MatchOutcome(report, data, output, _node_id(), tuple(events))

    def _localize(self, engine: EngineSpec, job: MatchJob) -> EngineSpec:
        """The engine as this node reaches it: the shipped working directory in
        place of the head's, an archived directory unpacked here."""
        archives = dict(job.archives)
        if engine.name in archives:
            return dataclasses.replace(engine, workdir=self._unpack(archives[engine.name]))
        if job.working_dir is None or engine.kind != "command":
            return engine
        shipped, archive = job.working_dir
        here = str(self._unpack(archive))

        def moved(word: str) -> str:
            if word == shipped or word.startswith(shipped + os.sep):
                return here + word[len(shipped) :]
            return word

        workdir = engine.workdir
        if workdir is not None:
            workdir = Path(moved(str(workdir)))
        return dataclasses.replace(
            engine, command=tuple(moved(w) for w in engine.command), workdir=workdir
        )

    def _unpack(self, archive: Archive) -> Path:
        import ray

        root = Path(tempfile.gettempdir()) / "scopa-arena-archives"
        target = root / archive.sha256
        if target.is_dir():
            return target
        root.mkdir(parents=True, exist_ok=True)
        data = ray.get(archive.data)
        if hashlib.sha256(data).hexdigest() != archive.sha256:
            raise ConfigError(f"archive {archive.sha256[:12]}: damaged on the way to this node")
        part = root / f".part-{os.getpid()}-{threading.get_ident()}-{archive.sha256[:12]}"
        shutil.rmtree(part, ignore_errors=True)  # a worker killed while unpacking
        unpack(data, part, SHIPPING, label=f"archive {archive.sha256[:12]}")
        try:
            part.rename(target)
        except OSError:  # another worker of this node was first
            shutil.rmtree(part, ignore_errors=True)
        return target


def pack_directory(path: Path) -> bytes:
    """A directory as a tar.gz whose bytes depend only on its files (not their
    times or owners); version control, caches and virtual environments left out."""
    return pack(path, SHIPPING, SKIPPED)


# --- the head side ---------------------------------------------------------


@dataclass(eq=False)
class _Worker:
    actor: Any
    node: str
    load: int = 0


@dataclass
class _Followed:
    """A match spectators follow: where it plays, who gets its events, how many they got."""

    worker: _Worker
    spectate: Callable[[MatchEvent], None]
    seen: int = 0

    def deliver(self, start: int, events: Sequence[MatchEvent]) -> None:
        """Events from index ``start`` on: those not yet delivered go to the spectators."""
        for event in events[self.seen - start :]:
            self.spectate(event)
            self.seen += 1


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


class Cluster:
    """The head's side of a Ray cluster: workers, and matches sent to them."""

    def __init__(
        self,
        settings: ClusterSettings,
        *,
        warm: WarmSpec | None = None,
        notice: Callable[[str], None] | None = None,
        temp_dir: Path | None = None,
    ) -> None:
        self.settings = settings
        self.warm = warm
        self.notice = notice or (lambda text: print(f"arena: {text}", file=sys.stderr, flush=True))
        self.temp_dir = temp_dir
        self.workers: list[_Worker] = []
        self.replays = 0  # matches played again after a lost worker
        self._ray: Any = None
        self._actor_class: Any = None
        self._archives: dict[Path, Archive] = {}
        self._changed = trio.Event()
        self._nursery: trio.Nursery | None = None
        self._spares: list[Any] = []  # replacements not placed yet
        self._failure = ""  # why the last worker could not start
        self._followed: dict[str, _Followed] = {}

    # - starting and stopping

    async def _start(self, nursery: trio.Nursery) -> None:
        """Start the workers, one per CPU unless ``workers`` says otherwise; each
        takes a CPU. Wait until all are placed, or STARTUP_WAIT has passed with at
        least one (the others join when Ray places them, e.g. as nodes join)."""
        self._nursery = nursery
        await _in_ray_thread(self._init_ray)
        cpus = int(self._ray.cluster_resources().get("CPU", 0))
        count = self.settings.workers or max(1, cpus)
        for _ in range(count):
            nursery.start_soon(self._replace)
        nursery.start_soon(self._follow)
        with trio.move_on_after(STARTUP_WAIT):
            while len(self.workers) < count:
                await self._changed.wait()
        while not self.workers:
            if not self._spares:
                raise ClusterError(f"no worker could be started on the cluster: {self._failure}")
            self.notice(f"waiting for the cluster to place a worker (it has {cpus} CPUs)")
            await self._changed.wait()
        nodes = len({w.node for w in self.workers})
        self.notice(
            f"cluster {self.settings.address}: {len(self.workers)} workers on {nodes} "
            f"node{'s' if nodes != 1 else ''}"
            + (f" ({count - len(self.workers)} more join when placed)" if self._spares else "")
        )

    def _init_ray(self) -> None:
        self._ray = _connect(self.settings.address, self.temp_dir)
        options: dict[str, Any] = {
            "num_cpus": 1,
            # Threads: each match waits in one (blocked, not holding the GIL).
            "max_concurrency": CONTROL_CALLS,  # the other calls: ready, events_since, ...
            "scheduling_strategy": "SPREAD",
        }
        groups = {MATCHES: MAX_MATCHES_PER_WORKER, IN_PROCESS: 1}
        actor = self._ray.remote(concurrency_groups=groups)(MatchWorker)
        self._actor_class = actor.options(**options)

    def _new_actor(self) -> Any:
        return self._actor_class.remote(self.warm)

    def _close(self) -> None:
        if self._ray is None:
            return
        for worker in self.workers:
            with contextlib.suppress(Exception):
                self._ray.kill(worker.actor)
        for actor in self._spares:
            with contextlib.suppress(Exception):
                self._ray.kill(actor)
        _disconnect()

    # - waiting for Ray from trio without a thread per match

    async def _await_ref(self, ref: Any) -> Any:
        """The value of a Ray object reference: Ray calls back when it is ready."""
        token = trio.lowlevel.current_trio_token()
        done = trio.Event()
        future = ref.future()

        def wake(_: object) -> None:
            with contextlib.suppress(trio.RunFinishedError):
                token.run_sync_soon(done.set)

        future.add_done_callback(wake)
        await done.wait()
        return future.result()

    async def _await_ref_list(self, refs: Sequence[Any]) -> list[Any]:
        return [await self._await_ref(ref) for ref in refs]

    # - playing

    def is_lost(self, error: BaseException) -> bool:
        """A Ray error that lost the worker or its node (not one the match raised)."""
        if self._ray is None or not isinstance(error, self._ray.exceptions.RayError):
            return False
        if isinstance(error, self._ray.exceptions.RayTaskError) and not isinstance(
            error, self._ray.exceptions.RayActorError
        ):
            return False
        return any(cls.__name__ in _LOST for cls in type(error).__mro__)

    async def _pick(self) -> _Worker:
        """The least busy worker; with none left, wait a while for a replacement."""
        with trio.move_on_after(REPLACEMENT_WAIT):
            while not self.workers:
                await self._changed.wait()
        if not self.workers:
            raise ClusterError(
                f"the cluster has had no worker for {REPLACEMENT_WAIT:.0f} s; the matches "
                "not played stay pending: run the same command again to resume"
            )
        return min(self.workers, key=lambda w: w.load)

    def _lose(self, worker: _Worker) -> None:
        """Take a lost worker out, and start a replacement: it joins once Ray
        has placed it (at once on a live node, or when a node comes back)."""
        if worker not in self.workers:
            return
        self.workers.remove(worker)
        with contextlib.suppress(Exception):
            self._ray.kill(worker.actor)
        if self._nursery is not None:
            self._nursery.start_soon(self._replace)

    async def _replace(self) -> None:
        """A new worker, in the pool once Ray has placed and started it."""
        actor = self._new_actor()
        self._spares.append(actor)
        try:
            node = await self._await_ref(actor.ready.remote())
        except Exception as e:
            if not self.is_lost(e):
                raise
            self._failure = str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__
            return
        finally:
            self._spares.remove(actor)
            self._changed.set()
            self._changed = trio.Event()
        self.workers.append(_Worker(actor, node))

    async def _follow(self) -> None:
        """Fetch the new events of followed matches, one call per worker, every
        FOLLOW_INTERVAL. Best effort: a failed fetch only delays events (the
        match's own call sees a lost worker), and never stops a match."""
        while True:
            await trio.sleep(FOLLOW_INTERVAL)
            by_worker: dict[int, tuple[_Worker, dict[str, int]]] = {}
            for key, followed in self._followed.items():
                worker = followed.worker
                by_worker.setdefault(id(worker), (worker, {}))[1][key] = followed.seen
            for worker, cursors in by_worker.values():
                try:
                    fresh = await self._await_ref(worker.actor.events_since.remote(cursors))
                except Exception:
                    continue
                for key, events in fresh.items():
                    still = self._followed.get(key)
                    if still is None or still.worker is not worker:  # ended, or played again
                        continue
                    try:
                        still.deliver(cursors[key], events)
                    except Exception as e:  # the arena's own fault: that match goes unwatched
                        del self._followed[key]
                        self.notice(f"live events of a match stopped: {type(e).__name__}: {e}")

    async def cpu_seconds(self) -> float:
        """CPU time the workers have used so far (benchmarks)."""
        return float(
            sum(await self._await_ref_list([w.actor.cpu_seconds.remote() for w in self.workers]))
        )

    def _archives_of(self, engines: Sequence[EngineSpec]) -> tuple[tuple[str, Archive], ...]:
        """Engines with a directory of their own outside the shipped working directory."""
        shipped = self.settings.working_dir
        out = []
        for e in engines:
            if e.kind != "command" or e.workdir is None:
                continue
            if shipped is not None and e.workdir.is_relative_to(shipped):
                continue
            out.append((e.name, self._archive(e.workdir)))
        return tuple(out)

    def _archive(self, directory: Path) -> Archive:
        """A directory packed once, into Ray's object store, for every node."""
        if directory not in self._archives:
            try:
                data = pack_directory(directory)
            except ArchiveError as e:
                raise ConfigError(
                    f"{e}: too much to ship to every node; ship less (a directory of the bots only)"
                ) from None
            self._archives[directory] = Archive(
                hashlib.sha256(data).hexdigest(), self._ray.put(data)
            )
        return self._archives[directory]

    def _working_dir(self) -> tuple[str, Archive] | None:
        shipped = self.settings.working_dir
        return None if shipped is None else (str(shipped), self._archive(shipped))

    async def play(
        self,
        engines: Sequence[EngineSpec],
        settings: MatchSettings,
        *,
        log: Path | None = None,
        bot_output: Path | None = None,
        allow_shared_partners: bool = False,
        spectate: Callable[[MatchEvent], None] | None = None,
    ) -> MatchReport:
        """``run_match`` on some worker of the cluster; the log and the bots' output
        are written here, where a local run writes them; ``spectate`` gets the
        match's public events as they come back. A lost worker or node: the match
        is played again from scratch, up to ``attempts`` times."""
        job = MatchJob(
            tuple(engines),
            settings,
            log.name if log is not None else None,
            allow_shared_partners,
            self._working_dir(),
            self._archives_of(engines),
            uuid.uuid4().hex if spectate is not None else "",
        )
        if log is not None:
            _check_writable(log.parent, "the match log")
        group = IN_PROCESS if all(e.kind == "builtin" for e in engines) else MATCHES
        attempts = max(1, self.settings.attempts)
        for attempt in range(1, attempts + 1):
            worker = await self._pick()
            worker.load += 1
            if spectate is not None and attempt == 1:  # a match played again is not shown twice
                self._followed[job.followed] = _Followed(worker, spectate)
            try:
                call = worker.actor.play.options(concurrency_group=group)
                outcome: MatchOutcome = await self._await_ref(call.remote(job))
            except Exception as e:
                if not self.is_lost(e):
                    cause = getattr(e, "cause", None)
                    if isinstance(cause, ArenaError):
                        raise cause from None
                    raise
                self._lose(worker)
                what = f"match {settings.schedule_id or settings.match_id}"
                if attempt == attempts:
                    raise ClusterError(
                        f"{what}: its worker was lost {attempts} times ({type(e).__name__}); "
                        "it stays pending: run the same command again to resume"
                    ) from None
                self.replays += 1
                self.notice(
                    f"{what}: its worker on node {worker.node[:12]} was lost "
                    f"({type(e).__name__}); playing it again from the start "
                    f"(attempt {attempt + 1} of {attempts}; no bot is charged)"
                )
                continue
            finally:
                worker.load -= 1
                followed = self._followed.pop(job.followed, None)
            if followed is not None:
                followed.deliver(0, outcome.events)
            if log is not None and outcome.log is not None:
                _write_atomically(log, outcome.log)
            if bot_output is not None and outcome.bot_output:
                bot_output.mkdir(parents=True, exist_ok=True)
                for name, data in outcome.bot_output:
                    (bot_output / name).write_bytes(data)
            return outcome.report
        raise AssertionError("unreachable")


# One Ray connection per process, shared by the clusters open in it (the
# competition server runs several competitions at once).
_lock = threading.Lock()
_users = 0
# ray.init and ray.shutdown run in this one thread, which never exits: a local
# instance's processes (GCS, raylet) are killed by the kernel when the thread
# that started them ends (Ray sets PR_SET_PDEATHSIG in them, and that signal
# follows the starting thread, not the process). Started from one of trio's
# cached threads, they died some seconds later when that thread idled out.
_ray_thread = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="arena-ray")


async def _in_ray_thread(call: Callable[[], Any]) -> Any:
    """``call()`` in the Ray thread, waited for without blocking the trio loop."""
    future = _ray_thread.submit(call)
    return await trio.to_thread.run_sync(future.result)


_address: str | None = None
_owned = False  # this module called ray.init (and so calls ray.shutdown)


def _connect(address: str, temp_dir: Path | None) -> Any:
    global _users, _address, _owned
    ray = ray_module()
    with _lock:
        if _users and address != _address:
            raise ConfigError(
                f"this process already runs matches on the cluster {_address}; "
                f"it cannot use {address} at the same time"
            )
        if not _users:
            if ray.is_initialized():
                _owned = False  # the caller's own connection: theirs to close
            else:
                _init(ray, address, temp_dir)
                _owned = True
            _address = address
        _users += 1
    return ray


class _NotMainThread(logging.Filter):
    """Ray says it set no SIGTERM handler when started off the main thread: the
    arena keeps its own handlers there, as it should; nothing to report."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "SIGTERM handler is not set" not in record.getMessage()


def _init(ray: Any, address: str, temp_dir: Path | None) -> None:
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
        ray.init(**options)
        return
    try:
        ray.init(address=address, **options)
    except (ConnectionError, RuntimeError, ValueError) as e:
        raise ConfigError(f"cannot reach the Ray cluster at {address}: {e}") from None


def _disconnect() -> None:
    global _users, _owned
    with _lock:
        _users -= 1
        if _users == 0 and _owned:
            import ray

            ray.shutdown()
            _owned = False


def _check_writable(directory: Path, what: str) -> None:
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ConfigError(f"{directory}: cannot write {what}: {e.strerror}") from None


def _write_atomically(path: Path, data: bytes) -> None:
    part = path.with_name(path.name + ".part")
    part.write_bytes(data)
    part.replace(path)


@contextlib.asynccontextmanager
async def open_cluster(
    settings: ClusterSettings,
    *,
    warm: WarmSpec | None = None,
    notice: Callable[[str], None] | None = None,
    temp_dir: Path | None = None,
) -> AsyncIterator[Cluster]:
    """Connect to the cluster (or start a local one), start its workers, and
    stop them (and a Ray instance this call started) when the block ends."""
    cluster = Cluster(settings, warm=warm, notice=notice, temp_dir=temp_dir)
    try:
        async with trio.open_nursery() as nursery:
            await cluster._start(nursery)
            yield cluster
            nursery.cancel_scope.cancel()
    finally:
        cluster._nursery = None
        with trio.CancelScope(shield=True):
            await _in_ray_thread(cluster._close)
