"""Standings served from a cache: a bootstrap over a large competition takes
seconds, so it is computed in the background when a match is recorded,
never on a request's path. A request gets the latest standings computed;
while newer results are being folded in it says how far behind they are.

The computation runs in a worker process: pure Python in a thread of the
server would hold the GIL for a second or more and delay every call and
every spectator event meanwhile (measured: 185 ms for a cached answer).
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import multiprocessing
import os
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from arena.results.layout import competition_layout
from arena.results.ratings import Covariance
from arena.results.store import Store, reading_store
from arena.tournament.standings import Row, compute_standings, elo_k_of

PR_SET_PDEATHSIG = 1  # linux/prctl.h
# Bootstrap resamples behind each interval.
RESAMPLES = 100
# Least seconds between two computations of one competition's standings: while
# matches finish every second, back-to-back refreshes would keep a core busy.
MIN_REFRESH_SECONDS = 5.0
# How long a request waits for standings that are behind before it takes the
# previous ones: within the 200 ms a client may expect an answer in.
FRESH_WAIT_SECONDS = 0.12


@dataclass(frozen=True)
class CachedStandings:
    text: str
    rows: list[Row]
    matches_done: int  # results in the store when these were computed
    # A ladder's fit for its matchmaking: each player's rating and their covariance.
    covariance: Covariance | None = None

    @property
    def ratings(self) -> dict[str, float]:
        return {r.engine: r.elo for r in self.rows if r.played}


class StandingsCache:
    """Per competition, the last standings and how many results they cover. Thread-safe."""

    def __init__(
        self, data: Path, resamples: int = RESAMPLES, min_interval: float = MIN_REFRESH_SECONDS
    ) -> None:
        self._data = data
        self._resamples = resamples
        self._min_interval = min_interval
        self._computed_at: dict[str, float] = {}
        self._urgent: set[str] = set()  # asked for by a request: not held back
        self._cond = threading.Condition()
        self._cached: dict[str, CachedStandings] = {}
        self._dirty: list[str] = []
        self._closed = False
        self._pool: ProcessPoolExecutor | None = None
        self._thread = threading.Thread(target=self._work, name="arena-standings", daemon=True)
        self._thread.start()

    def refresh(self, comp_id: str) -> None:
        """Recompute competition ``comp_id``'s standings soon (a match was recorded)."""
        with self._cond:
            if comp_id not in self._dirty:
                self._dirty.append(comp_id)
            self._cond.notify_all()

    def get(
        self, comp_id: str, first_wait: float = 60.0, fresh_wait: float = FRESH_WAIT_SECONDS
    ) -> CachedStandings | None:
        """The latest standings of ``comp_id``; None before its first result.

        When results were recorded since the last computation, asks for one at
        once (whatever the interval between refreshes) and waits up to
        ``fresh_wait`` seconds for it: a small competition's comes back in
        time, a large one's answer is the previous table, saying so. Waits up
        to ``first_wait`` only when nothing was ever computed for it."""
        with _results(self._data, comp_id) as store:
            done = 0 if store is None else store.counts()[0]
        if done == 0:
            return None
        with self._cond:
            cached = self._cached.get(comp_id)
            if cached is not None and cached.matches_done >= done:
                return cached
            if comp_id not in self._dirty:
                self._dirty.append(comp_id)
            self._urgent.add(comp_id)
            self._cond.notify_all()

            def current() -> bool:
                now = self._cached.get(comp_id)
                return now is not None and now.matches_done >= done

            if cached is None:
                self._cond.wait_for(lambda: comp_id in self._cached, timeout=first_wait)
            else:
                self._cond.wait_for(current, timeout=fresh_wait)
            cached = self._cached.get(comp_id)
        if cached is None or cached.matches_done >= done:
            return cached
        behind = done - cached.matches_done
        note = (
            f"\n\nas of {cached.matches_done} results; {behind} more recorded since, "
            "being folded in"
        )
        return CachedStandings(
            cached.text + note, cached.rows, cached.matches_done, cached.covariance
        )

    def latest(self, comp_id: str) -> CachedStandings | None:
        """The last standings computed for ``comp_id``, at once, however old."""
        with self._cond:
            return self._cached.get(comp_id)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._thread.join(timeout=5)
        if self._pool is not None:
            # Waited for: a pool left to shut down on its own races the
            # interpreter's exit ("Exception ignored ... Bad file descriptor"
            # on stderr, Python 3.11) and its worker outlives the process.
            self._pool.shutdown(wait=True, cancel_futures=True)

    def _work(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._dirty or self._closed)
                if self._closed:
                    return
                comp_id = self._dirty[0]
                since = time.monotonic() - self._computed_at.get(comp_id, -math.inf)
                if since < self._min_interval and comp_id not in self._urgent:
                    self._cond.wait(self._min_interval - since)
                    continue
                self._dirty.pop(0)
                self._urgent.discard(comp_id)
                self._computed_at[comp_id] = time.monotonic()
            try:
                computed = self._compute(comp_id)
            except Exception as e:  # a store being written or gone: the next result retries
                print(f"standings of competition {comp_id}: {e}", flush=True)
                computed = None
            if computed is not None:
                with self._cond:
                    self._cached[comp_id] = computed
                    self._cond.notify_all()

    def _compute(self, comp_id: str) -> CachedStandings | None:
        if self._pool is None:
            # spawn, not fork: the server's process holds gRPC channels and threads.
            self._pool = ProcessPoolExecutor(
                1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=die_with_server,
                initargs=(os.getpid(),),
            )
        return self._pool.submit(compute_cached, self._data, comp_id, self._resamples).result()


def die_with_server(server: int) -> None:
    """In the worker: end with the server, however it ends. A server killed
    with SIGKILL never shuts its pool down, and the worker would wait for work
    forever. The parent-death signal is tied to the thread that started the
    worker, the cache's own thread, which lives as long as the cache; if the
    server died before the signal was armed, the parent is already another."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != server:
        os._exit(0)


def compute_cached(data: Path, comp_id: str, resamples: int) -> CachedStandings | None:
    """The standings of competition ``comp_id`` now (run in the worker process)."""
    with _results(data, comp_id) as store:
        if store is None:
            return None
        done = store.counts()[0]
        standings = compute_standings(store, resamples=resamples, k=elo_k_of(store))
    return CachedStandings(standings.table(), standings.rows, done, standings.covariance)


def _results(data: Path, comp_id: str) -> contextlib.AbstractContextManager[Store | None]:
    return reading_store(competition_layout(data, comp_id).store)
