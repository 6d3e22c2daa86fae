"""GetStandings on a large competition: 16 engines x 1,200 recorded matches,
served by a real server's handler from the standings cache, and what a
refresh costs in the background.

    python -m benchmarks.bench_standings [--engines N] [--matches N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from arena.match.outcome import MatchResult, Termination
from arena.results.store import ScheduledMatch, Store, open_store
from arena.tournament.standings import compute_standings
from arena.tournament.standings_cache import RESAMPLES, StandingsCache


def filled_results(path: Path, engines: int, matches: int, seed: int = 0) -> Store:
    """A results store (open as its writer) holding ``matches`` results
    between ``engines`` engines, with a spread of strengths."""
    rng = random.Random(seed)
    names = [f"engine{i:02d}" for i in range(engines)]
    strength = {n: rng.gauss(0, 150) for n in names}
    store = open_store(path, writer=True)
    store.add_engines([(n, "builtin:random") for n in names])
    scheduled = []
    for i in range(matches):
        a, b = rng.sample(names, 2)
        scheduled.append(ScheduledMatch(f"{a}~{b}#{i}/0", i, f"{a}~{b}#{i}", i, i % 2, (a, b)))
    store.schedule(scheduled)
    for m in scheduled:
        record(store, m, rng, strength)
    return store


def record(store: Store, m: ScheduledMatch, rng: random.Random, strength: dict) -> None:
    a, b = m.seats
    p = 1 / (1 + 10 ** ((strength[b] - strength[a]) / 400))
    winner = 0 if rng.random() < p else 1
    scores = (11, 6) if winner == 0 else (6, 11)
    store.record(m, MatchResult(scores, winner, Termination.COMPLETED, "", deals_played=3), None)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engines", type=int, default=16)
    ap.add_argument("--matches", type=int, default=1200)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        (data / "c1").mkdir()
        store = filled_results(data / "c1" / "results.sqlite", args.engines, args.matches)
        start = time.perf_counter()
        compute_standings(store, resamples=RESAMPLES)
        full = time.perf_counter() - start
        cache = StandingsCache(data)
        try:
            start = time.perf_counter()
            cache.get("c1")
            cold = time.perf_counter() - start
            warm = []
            for _ in range(50):
                start = time.perf_counter()
                cache.get("c1")
                warm.append(time.perf_counter() - start)
            # A match is recorded: the next call answers from the cache at once
            # while the refresh runs on the cache's thread.
            store.schedule(
                [
                    ScheduledMatch(
                        "engine00~engine01#x/0", 10**6, "x", 1, 0, ("engine00", "engine01")
                    )
                ]
            )
            extra = store.pending()[0]
            record(store, extra, random.Random(1), {"engine00": 0.0, "engine01": 0.0})
            cache.refresh("c1")
            stale = []
            for _ in range(20):
                start = time.perf_counter()
                cache.get("c1")
                stale.append(time.perf_counter() - start)
        finally:
            cache.close()
            store.close()
    ms = 1000
    print(f"standings, {args.engines} engines x {args.matches} matches, {RESAMPLES} resamples")
    print(f"  full computation (fit + bootstrap)        {full * ms:8.0f} ms  (background only)")
    print(f"  first call, nothing cached yet            {cold * ms:8.0f} ms")
    print(
        f"  call, cached and current (50 calls)       median {statistics.median(warm) * ms:.1f} ms,"
        f" max {max(warm) * ms:.1f} ms"
    )
    print(
        f"  call after a result (waits <= 120 ms)     "
        f"median {statistics.median(stale) * ms:.1f} ms,"
        f" max {max(stale) * ms:.1f} ms"
    )


if __name__ == "__main__":
    main()
