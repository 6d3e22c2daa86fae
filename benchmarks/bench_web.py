"""The web site's speed: a competition page over 10,000 matches, a page of
the matches table, and how long a live event takes from the referee's
publish to the browser's side of the event stream.

    python -m benchmarks.bench_web

The competition is a synthetic results store (the store's own schema, its
results written in one transaction) served by a real `arena web` process; the live
figure runs the site in this process on trio with a broker, as the
competition server does, and reads the stream over real HTTP on loopback.
"""

from __future__ import annotations

import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from urllib.parse import quote

from arena.broker import Broker
from arena.match.outcome import MatchEvent, MatchResult
from arena.match.settings import MatchSettings
from arena.play import run_match_sync
from arena.results.store import ScheduledMatch, open_store
from arena.rules import Variant
from arena.web.data import LiveItem, StoreSource
from arena.web.remote import broker_live

ARENA = str(Path(sys.executable).parent / "arena")
MATCHES = 10_000
Reader = Callable[[str, list[float], threading.Event], list[float]]
ENGINES = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot")


def build_store(directory: Path, matches: int = MATCHES, seed: int = 1) -> Path:
    """A tournament output directory with ``matches`` finished matches (no logs)."""
    directory.mkdir(parents=True, exist_ok=True)
    store = open_store(directory / "results.sqlite", writer=True)
    rng = random.Random(seed)
    try:
        store.bind({"variant": "scopa", "target": 11, "engines": list(ENGINES)}, {"seed": "x"})
        store.add_engines((name, "builtin:random") for name in ENGINES)
        scheduled = []
        for i in range(matches // 2):
            a, b = rng.sample(ENGINES, 2)
            for j, seats in enumerate(((a, b), (b, a))):
                scheduled.append(
                    ScheduledMatch(f"{a}~{b}#{i}/{j}", 2 * i + j, f"s{i}", i, j, seats)
                )
        store.schedule(scheduled)
        strength = {name: k for k, name in enumerate(ENGINES)}
        rows = []
        for order, m in enumerate(scheduled, 1):
            edge = strength[m.seats[0]] - strength[m.seats[1]]
            winner = 0 if rng.random() < 0.5 + edge * 0.05 else 1
            scores = (11, rng.randint(0, 10)) if winner == 0 else (rng.randint(0, 10), 11)
            stamp = (
                f"2026-01-01T{order // 3600 % 24:02d}:{order // 60 % 60:02d}:{order % 60:02d}+00:00"
            )
            rows.append((winner, *scores, stamp, order, m.id))
        # One transaction for all (the store's record() commits one match at a time).
        with store.transaction():
            store.db.executemany(
                "UPDATE matches SET status = 'done', winner_side = ?, score0 = ?, score1 = ?, "
                "termination = 'completed', reason = 'played to the end', deals = 3, "
                "finished_at = ?, finish_order = ? WHERE id = ?",
                rows,
            )
    finally:
        store.close()
    return directory


def sample_events(count: int) -> list[MatchEvent]:
    """Public events of real matches between builtin engines, ``count`` of them."""
    events: list[MatchEvent] = []
    seed = 1
    while len(events) < count:
        run_match_sync(
            ["a=builtin:greedy", "b=builtin:random"],
            MatchSettings(seed=seed),
            spectate=events.append,
        )
        seed += 1
    return [e for e in events[:count] if not isinstance(e.what, MatchResult)]


class NoStandings:
    """The event stream needs no standings."""

    def get(self, comp_id: str) -> None:
        return None


class LiveSource(StoreSource):
    """One live match fed straight from a broker, as the server's source
    serves it: only what the event stream needs."""

    cid, mid = "bench", "a~b#0/0"

    def __init__(self, broker: Broker) -> None:
        super().__init__(NoStandings())
        self.broker = broker
        self.key = f"{self.cid}/{self.mid}"
        self.mid_quoted = quote(self.mid, safe="")

    def competitions(self) -> list[object]:
        return []

    def watchable(self, cid: str, mid: str) -> tuple[Variant, list[str]] | None:
        return (Variant(), ["a", "b"]) if f"{cid}/{mid}" == self.key else None

    def spectator_delay(self, cid: str) -> int:
        return 0

    def live(
        self, key: str, seats: tuple[Variant, list[str]], delay: int
    ) -> AsyncIterator[LiveItem]:
        return broker_live(self.broker, key, seats, delay)


def fetch_ms(url: str) -> float:
    start = time.perf_counter()
    with urllib.request.urlopen(url, timeout=60) as reply:
        reply.read()
    return (time.perf_counter() - start) * 1000


def page_figures(directory: Path) -> dict[str, float]:
    proc = subprocess.Popen(
        [ARENA, "web", str(directory), "--http", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert proc.stdout is not None
        base = ""
        for line in proc.stdout:
            if line.startswith("LISTENING "):
                base = line.split()[1]
                break
        cid = directory.name
        out = {}
        # `arena web` computes the standings (a bootstrap, seconds at this
        # size), crosstable and rating series before it listens.
        out["competition page, first request"] = fetch_ms(f"{base}/c/{cid}")
        for label, path in (
            ("competition page", f"/c/{cid}"),
            ("competition JSON", f"/api/c/{cid}"),
            ("matches table, page 1", f"/c/{cid}/matches"),
            ("matches table, page 40 of one engine", f"/c/{cid}/matches?engine=alpha&page=40"),
        ):
            times = sorted(fetch_ms(base + path) for _ in range(15))
            out[label] = times[len(times) // 2]
            out[label + " (p90)"] = times[int(len(times) * 0.9)]
        with urllib.request.urlopen(f"{base}/api/c/{cid}/matches", timeout=60) as reply:
            listed = json.loads(reply.read())
        out["matches per table page"] = len(listed["matches"])
        return out
    finally:
        proc.terminate()
        proc.wait(20)


def http_reader(url: str, published: list[float], ready: threading.Event) -> list[float]:
    """Milliseconds from each publish to its event's arrival at an HTTP client."""
    latencies = []
    with urllib.request.urlopen(url, timeout=60) as reply:
        ready.set()
        seen = 0
        for raw in reply:
            if raw.startswith(b"event: spectator"):
                now = time.time()
                while len(published) <= seen:
                    time.sleep(0.0005)
                latencies.append((now - published[seen]) * 1000)
                seen += 1
            elif raw.startswith(b"event: end"):
                break
    return latencies


def browser_reader(url: str, published: list[float], ready: threading.Event) -> list[float]:
    """The same, to the page's EventSource in headless Chromium."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=shutil.which("chromium"), args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            page = browser.new_page()
            page.goto(url.split("/api/")[0] + "/static/site.js")
            page.evaluate(
                """url => new Promise(opened => {
                    window.arrivals = [];
                    const source = new EventSource(url);
                    source.onopen = opened;
                    source.addEventListener("spectator", () =>
                        window.arrivals.push(performance.timeOrigin + performance.now()));
                    source.addEventListener("end", () => { window.ended = true; source.close(); });
                })""",
                url,
            )
            ready.set()
            deadline = time.monotonic() + 60
            while not page.evaluate("window.ended === true"):  # (the site forbids eval)
                assert time.monotonic() < deadline, "the stream never ended"
                time.sleep(0.05)
            arrivals = page.evaluate("window.arrivals")
        finally:
            browser.close()
    return [a - p * 1000 for a, p in zip(arrivals, published, strict=True)]


def live_latency(reader: Reader, events: int = 200) -> list[float]:
    """Milliseconds from Broker.publish (the referee's side) to ``reader``."""
    import trio

    from arena.web.app import create_app
    from arena.web.serve import serve_site

    broker = Broker()
    source = LiveSource(broker)
    sample = sample_events(events)
    out: list[list[float]] = []

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            base = await nursery.start(serve_site, create_app(source), "127.0.0.1:0")
            url = f"{base}/api/matches/{source.cid}/{source.mid_quoted}/events"
            published: list[float] = []
            ready = threading.Event()
            thread = threading.Thread(target=lambda: out.append(reader(url, published, ready)))
            thread.start()
            await trio.to_thread.run_sync(ready.wait, 60)
            await trio.sleep(0.2)
            for event in sample:
                published.append(time.time())
                broker.publish(source.key, event)
                await trio.sleep(0.01)
            broker.close(source.key)
            await trio.to_thread.run_sync(thread.join)
            nursery.cancel_scope.cancel()

    trio.run(main)
    return out[0]


def print_latencies(label: str, latencies: list[float]) -> None:
    latencies = sorted(latencies)
    print(
        f"  live event, publish to {label} ({len(latencies)} events): "
        f"median {statistics.median(latencies):.1f} ms, "
        f"p99 {latencies[int(len(latencies) * 0.99) - 1]:.1f} ms, "
        f"max {latencies[-1]:.1f} ms"
    )


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        directory = build_store(Path(tmp) / "bench", MATCHES)
        built = time.perf_counter() - start
        print(f"web site: a competition of {MATCHES} matches (store built in {built:.1f}s)")
        for label, value in page_figures(directory).items():
            unit = "" if label.startswith("matches per") else " ms"
            print(f"  {label:<42} {value:8.1f}{unit}")
    print_latencies("an HTTP client", live_latency(http_reader))
    if shutil.which("chromium"):
        print_latencies("Chromium's EventSource", live_latency(browser_reader))
    else:
        print("  live event to a browser: not measured (no chromium here)")


if __name__ == "__main__":
    main()
