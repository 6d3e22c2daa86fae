"""The caps on open event streams: over HTTP, a live match from a broker on
the site's own trio loop; in process, the handlers themselves, so that two
requests can be made to pass the caps' check before either stream starts,
which no timing over a socket can force, and a person's seat beside
spectators who fill the caps of its address."""

from __future__ import annotations

import threading
import urllib.error
import urllib.request
from typing import Any

import pytest
import trio
from starlette.requests import Request
from starlette.responses import Response

from arena.broker import Broker
from arena.match.settings import BuiltinEngine, HumanEngine
from arena.rules import Variant
from arena.transport.human import MAX_SEAT_STREAMS, People
from arena.web import app as web_app
from arena.web.app import Site, create_app
from arena.web.serve import serve_site
from arena.web.table import Table
from benchmarks.bench_web import LiveSource, sample_events


def test_streams_are_capped_per_client_and_end_with_their_match(monkeypatch):
    monkeypatch.setattr(web_app, "STREAMS_PER_CLIENT", 1)
    broker = Broker()
    source = LiveSource(broker)
    events = sample_events(20)
    got: list[bytes] = []
    refused: list[tuple[int, str, str | None]] = []

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
                    refused.append((e.code, e.read().decode(), e.headers.get("Retry-After")))

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
    assert len(refused) == 1
    status, body, retry = refused[0]
    assert status == 503 and retry == "10"
    assert "1 live streams are already open from your address" in body
    assert got.count(b"event: spectator") == len(events)
    assert b"event: end" in got
    assert broker.watching() == 0


def request(path: str, client: str = "127.0.0.1", secret: str | None = None, **params) -> Request:
    headers = [(b"authorization", f"Bearer {secret}".encode())] if secret else []
    scope: dict[str, Any] = {
        "type": "http",
        "method": "GET",
        "path": path,
        "query_string": b"",
        "headers": headers,
        "client": (client, 40000),
        "path_params": params,
    }
    return Request(scope)


def status(response: Response) -> int:
    return response.status_code


async def close(response: Response) -> None:
    """Close a granted stream's body without ever starting it, as a client
    that leaves before the first byte does."""
    await response.body_iterator.aclose()  # type: ignore[attr-defined]


def test_requests_arriving_together_cannot_all_pass_the_site_cap(monkeypatch):
    """Two requests granted before either stream's body starts: the second is
    refused, since a stream counts from its grant; closed unstarted, it frees
    its place."""
    monkeypatch.setattr(web_app, "STREAMS_PER_CLIENT", 1)
    source = LiveSource(Broker())
    site = Site(source)
    params = {"cid": source.cid, "mid": source.mid}

    async def main() -> None:
        first = await site.events(request("/events", **params))
        second = await site.events(request("/events", **params))
        assert status(first) == 200 and status(second) == 503
        assert b"from your address" in second.body
        await close(first)
        third = await site.events(request("/events", **params))
        assert status(third) == 200
        await close(third)

    trio.run(main)


def test_the_site_cap_in_all_counts_every_address(monkeypatch):
    monkeypatch.setattr(web_app, "STREAMS_TOTAL", 2)
    source = LiveSource(Broker())
    site = Site(source)
    params = {"cid": source.cid, "mid": source.mid}

    async def main() -> None:
        granted = [
            await site.events(request("/events", client, **params))
            for client in ("127.0.0.1", "127.0.0.2")
        ]
        assert [status(r) for r in granted] == [200, 200]
        refused = await site.events(request("/events", "127.0.0.3", **params))
        assert status(refused) == 503 and b"as many live streams as it can (2)" in refused.body
        for response in granted:
            await close(response)
        again = await site.events(request("/events", "127.0.0.3", **params))
        assert status(again) == 200
        await close(again)

    trio.run(main)


def table_with_a_person() -> tuple[Table, str]:
    people = People([HumanEngine("me"), BuiltinEngine("g", "greedy")])
    table = Table(people, Variant(), ["me", "g"], Broker())
    return table, people.seats[0].secret


def test_a_seat_is_never_counted_against_the_spectators_of_its_address(monkeypatch):
    """The spectators' caps full from the seat's own address: every spectator
    more is refused, and the seat's streams still open."""
    monkeypatch.setattr(web_app, "STREAMS_PER_CLIENT", 2)
    table, secret = table_with_a_person()

    async def main() -> None:
        spectators = [await table.watch_events(request("/api/watch/events")) for _ in range(2)]
        assert [status(r) for r in spectators] == [200, 200]
        more = await table.watch_events(request("/api/watch/events"))
        assert status(more) == 503 and b"from your address" in more.body
        # Nor do the seat's own streams fill the spectators' places.
        seats = [
            await table.seat_events(request("/api/seat/events", secret=secret))
            for _ in range(MAX_SEAT_STREAMS + 2)
        ]
        assert all(status(r) == 200 for r in seats)
        for response in seats:
            await close(response)
        await close(spectators[0])
        # A claim to the seat without its secret is no seat: 401, not a stream.
        stranger = await table.seat_events(request("/api/seat/events", secret="x" * 43))
        assert status(stranger) == 401
        again = await table.watch_events(request("/api/watch/events"))
        assert status(again) == 200
        await close(again)
        await close(spectators[1])

    trio.run(main)


def test_a_seat_opened_once_too_often_ends_its_oldest_stream_not_its_newest():
    table, secret = table_with_a_person()
    seat = table.people.by_secret(secret)
    assert seat is not None

    async def first_lines(stream: Any, count: int) -> list[str]:
        return [await stream.__anext__() for _ in range(count)]

    async def main() -> None:
        streams = [seat.stream() for _ in range(MAX_SEAT_STREAMS + 1)]
        for stream in streams[:-1]:
            assert (await first_lines(stream, 1))[0].startswith("event: seat")
        assert len(seat.streams) == MAX_SEAT_STREAMS
        # The newest opens; the oldest is told why it ends, and ends.
        assert (await first_lines(streams[-1], 1))[0].startswith("event: seat")
        with trio.fail_after(10):
            assert await streams[0].__anext__() == "event: superseded\ndata: {}\n\n"
            with pytest.raises(StopAsyncIteration):
                await streams[0].__anext__()
        assert len(seat.streams) == MAX_SEAT_STREAMS
        for stream in streams[1:]:
            await stream.aclose()
        assert seat.streams == []

    trio.run(main)
