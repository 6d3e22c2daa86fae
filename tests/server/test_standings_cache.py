"""Standings come from a per-competition cache refreshed in the background
when a match is recorded; a request never waits for a bootstrap once there is one."""

from __future__ import annotations

import random
import time

import pytest

from arena.results.store import ScheduledMatch
from arena.tournament.standings_cache import StandingsCache
from benchmarks.bench_standings import filled_results, record
from tests.support.processes import ended

pytestmark = pytest.mark.process  # the computation runs in a worker process


def test_a_recorded_match_is_folded_in_off_the_request_path(tmp_path):
    (tmp_path / "c1").mkdir()
    store = filled_results(tmp_path / "c1" / "results.sqlite", engines=6, matches=200)
    # Refreshes held back for as long as the test runs, unless a request asks.
    cache = StandingsCache(tmp_path, resamples=10, min_interval=1000)
    try:
        assert cache.get("c0") is None  # no such competition's results: nothing to wait for
        first = cache.get("c1")
        assert first is not None and first.matches_done == 200
        assert cache.get("c1") == first  # current: served as it is
        assert len(first.rows) == 6 and "engine00" in first.text
        extra = ScheduledMatch("engine00~engine01#x/0", 999, "x", 1, 0, ("engine00", "engine01"))
        store.schedule([extra])
        record(store, store.pending()[0], random.Random(1), {"engine00": 0.0, "engine01": 0.0})
        cache.refresh("c1")  # as a recorded match does: held back
        # A request asks for a refresh at once and, not waiting, gets what there is.
        stale = cache.get("c1", fresh_wait=0)
        assert stale is not None and stale.matches_done == 200
        assert "as of 200 results; 1 more recorded since" in stale.text
        deadline = time.monotonic() + 60
        while (now := cache.get("c1")) is not None and now.matches_done < 201:
            assert time.monotonic() < deadline, "the refresh never came"
            time.sleep(0.05)
        assert now is not None and "recorded since" not in now.text
    finally:
        cache.close()
        store.close()


OWNER = """
import sys
from pathlib import Path
from arena.tournament.standings_cache import StandingsCache
cache = StandingsCache(Path(sys.argv[1]), resamples=10)
cache.get("c1")  # starts the worker process and waits for its answer
print(*[p.pid for p in cache._pool._processes.values()], flush=True)
sys.stdin.read()  # until killed
"""


def test_the_worker_process_dies_with_a_server_killed_outright(tmp_path):
    """A server killed with SIGKILL never shuts its pool down: its worker
    must not stay behind, waiting for work forever."""
    import os
    import signal
    import subprocess
    import sys

    (tmp_path / "c1").mkdir()
    filled_results(tmp_path / "c1" / "results.sqlite", engines=3, matches=20).close()
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER, str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert owner.stdout is not None
    workers = [int(p) for p in owner.stdout.readline().split()]
    assert workers and all(os.path.exists(f"/proc/{p}") for p in workers)
    owner.send_signal(signal.SIGKILL)
    ended(owner, 10)
    deadline = time.monotonic() + 10
    while any(os.path.exists(f"/proc/{p}") for p in workers):
        assert time.monotonic() < deadline, f"worker(s) {workers} outlived the server"
        time.sleep(0.05)
