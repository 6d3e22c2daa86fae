"""The site's event streams, in process: a live match from a broker on the
site's own trio loop, and the cap on open streams per client."""

from __future__ import annotations

import threading
import urllib.error
import urllib.request

import trio

from arena.broker import Broker
from arena.web import app as web_app
from arena.web.app import create_app
from arena.web.serve import serve_site
from benchmarks.bench_web import LiveSource, sample_events


def test_streams_are_capped_per_client_and_end_with_their_match(monkeypatch):
    monkeypatch.setattr(web_app, "STREAMS_PER_CLIENT", 1)
    broker = Broker()
    source = LiveSource(broker)
    events = sample_events(20)
    got: list[bytes] = []
    refused: list[int] = []

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            base = await nursery.start(serve_site, create_app(source), "127.0.0.1:0")
            url = f"{base}/api/matches/{source.cid}/{source.mid_quoted}/events"
            opened = threading.Event()

            def follow() -> None:
                with urllib.request.urlopen(url, timeout=30) as reply:
                    opened.set()
                    got.extend(reply.read().splitlines())

            def second() -> None:
                try:
                    urllib.request.urlopen(url, timeout=30)
                except urllib.error.HTTPError as e:
                    refused.append(e.code)

            first = threading.Thread(target=follow)
            first.start()
            await trio.to_thread.run_sync(opened.wait, 30)
            broker.publish(source.key, events[0])
            await trio.sleep(0.2)
            await trio.to_thread.run_sync(second)
            for event in events[1:]:
                broker.publish(source.key, event)
            broker.close(source.key)
            await trio.to_thread.run_sync(first.join, 30)
            # The first stream has ended: a new one is allowed (and ends at once).
            await trio.to_thread.run_sync(second)
            nursery.cancel_scope.cancel()

    trio.run(main)
    assert refused == [503]
    assert got.count(b"event: spectator") == len(events)
    assert b"event: end" in got
    assert broker.watching() == 0
