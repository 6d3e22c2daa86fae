"""The head's side: matches sent to the least busy worker, played again when
their worker is lost, their logs and bots' output written here, and the
events of followed matches fetched while they play.

Live spectators: a match played with ``spectate`` keeps its public events
(the referee's, never a hand) on its worker; the head fetches what is new
from each worker every FOLLOW_INTERVAL, in one call per worker, and the rest
with the match's outcome. A match played again after a lost worker is not
followed again: its spectators see it stop, then its result.
"""

from __future__ import annotations

import contextlib
import sys
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import trio

from arena.cluster.jobs import MatchJob, MatchOutcome, WarmSpec
from arena.cluster.pool import Worker, WorkerPool
from arena.cluster.processes import PROCESSES, ProcessPool
from arena.cluster.session import ClusterError
from arena.cluster.shipping import Shipping
from arena.cluster.worker import IN_PROCESS, MATCHES
from arena.errors import ArenaError, ConfigError
from arena.match.outcome import MatchEvent, MatchReport
from arena.match.settings import BuiltinEngine, ClusterSettings, EngineSpec, MatchSettings

# How often the head fetches the new events of the matches spectators follow.
FOLLOW_INTERVAL = 0.1


@dataclass
class _Followed:
    """A match spectators follow: where it plays, who gets its events, how many they got."""

    worker: Worker
    spectate: Callable[[MatchEvent], None]
    seen: int = 0

    def deliver(self, start: int, events: Sequence[MatchEvent]) -> None:
        """Events from index ``start`` on: those not yet delivered go to the spectators."""
        for event in events[self.seen - start :]:
            self.spectate(event)
            self.seen += 1


class Cluster:
    """The head's side of a cluster (Ray's, or worker processes of this machine):
    workers, and matches sent to them."""

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
        self.replays = 0  # matches played again after a lost worker
        self._pool: WorkerPool | ProcessPool = (
            ProcessPool(settings, warm, self.notice, temp_dir)
            if settings.address == PROCESSES
            else WorkerPool(settings, warm, self.notice, temp_dir)
        )
        self._shipping = Shipping(settings.working_dir if self._pool.ships else None)
        self._followed: dict[str, _Followed] = {}

    @property
    def workers(self) -> list[Worker]:
        """The workers placed now."""
        return self._pool.workers

    async def cpu_seconds(self) -> float:
        """CPU time the workers have used so far (benchmarks)."""
        return await self._pool.cpu_seconds()

    async def play(
        self,
        engines: Sequence[EngineSpec],
        settings: MatchSettings,
        *,
        log: Path | None = None,
        bot_output: Path | None = None,
        bot_output_shown: str = "",
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
            self._shipping.working_dir() if self._pool.ships else None,
            self._shipping.archives_of(engines) if self._pool.ships else (),
            uuid.uuid4().hex if spectate is not None else "",
            # Faults name the output where the head writes it, not the worker's scratch.
            bot_output_shown or (str(bot_output) if bot_output is not None else ""),
        )
        if log is not None:
            _check_writable(log.parent, "the match log")
        group = IN_PROCESS if all(isinstance(e, BuiltinEngine) for e in engines) else MATCHES
        attempts = max(1, self.settings.attempts)
        for attempt in range(1, attempts + 1):
            worker = await self._pool.pick()
            worker.load += 1
            if spectate is not None and attempt == 1:  # a match played again is not shown twice
                self._followed[job.followed] = _Followed(worker, spectate)
            try:
                outcome: MatchOutcome = await self._pool.play(worker, job, group)
            except Exception as e:
                if not self._pool.is_lost(e):
                    cause = getattr(e, "cause", None)
                    if isinstance(cause, ArenaError):
                        raise cause from None
                    raise
                self._pool.lose(worker)
                what = f"match {settings.schedule_id or settings.match_id}"
                if attempt == attempts:
                    raise ClusterError(
                        f"{what}: its worker was lost {attempts} times ({type(e).__name__}); "
                        "it stays pending: run the same command again to resume"
                    ) from None
                self.replays += 1
                self.notice(
                    f"{what}: its worker ({self._pool.where(worker)}) was lost "
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

    async def _follow(self) -> None:
        """Fetch the new events of followed matches, one call per worker, every
        FOLLOW_INTERVAL. Best effort: a failed fetch only delays events (the
        match's own call sees a lost worker), and never stops a match."""
        while True:
            await trio.sleep(FOLLOW_INTERVAL)
            by_worker: dict[int, tuple[Worker, dict[str, int]]] = {}
            for key, followed in self._followed.items():
                worker = followed.worker
                by_worker.setdefault(id(worker), (worker, {}))[1][key] = followed.seen
            for worker, cursors in by_worker.values():
                try:
                    fresh = await self._pool.events_since(worker, cursors)
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
            nursery.start_soon(cluster._follow)
            await cluster._pool.start(nursery)
            yield cluster
            nursery.cancel_scope.cancel()
    finally:
        with trio.CancelScope(shield=True):
            await cluster._pool.stop()
