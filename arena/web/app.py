"""The site as a Starlette application: every page, its JSON twin (the same
path with ``?format=json``, or under ``/api``), the live event stream of a
running match (Server-Sent Events) and the site's static files.

The handlers are the methods of one ``Site``, which holds what they share
(the source, the static files, the open streams); ``create_app`` routes to
them. They read their data on a worker thread (SQLite, log replays); only the
event stream and the list of running matches are read on the loop.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Route
from starlette.types import Send

from arena.web import pages
from arena.web.data import (
    VIEWER_ASSETS,
    LiveFrames,
    MatchFilter,
    Source,
    match_dict,
    message_dict,
)

STATIC = Path(__file__).with_name("site_static")
TABLE = Path(__file__).with_name("static")
HEADERS = {
    # Nothing is loaded from elsewhere, and nothing inline runs.
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
        "frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}
Handler = Callable[[Request], Awaitable[Response]]
# Open event streams allowed per client address and in all, as the gRPC
# service limits its WatchMatch streams (arena.server.grpc_service.WatchLimits).
STREAMS_PER_CLIENT = 32
STREAMS_TOTAL = 2000


def _static_files() -> dict[str, tuple[str, str]]:
    files = {
        "site.js": ((STATIC / "site.js").read_text(encoding="utf-8"), "text/javascript"),
        "challenge.js": ((STATIC / "challenge.js").read_text(encoding="utf-8"), "text/javascript"),
        "audit.js": ((STATIC / "audit.js").read_text(encoding="utf-8"), "text/javascript"),
        "viewer.js": (VIEWER_ASSETS.get("viewer.js", ""), "text/javascript"),
        "viewer.css": (VIEWER_ASSETS.get("viewer.css", ""), "text/css"),
        # A person's seat at a challenge (arena.web.challenges).
        "table.js": ((TABLE / "table.js").read_text(encoding="utf-8"), "text/javascript"),
        "table.css": ((TABLE / "table.css").read_text(encoding="utf-8"), "text/css"),
    }
    return files


def _json(value: Any, status: int = 200) -> Response:
    return JSONResponse(value, status_code=status, headers=HEADERS)


def _html(text: str, status: int = 200) -> Response:
    return HTMLResponse(text, status_code=status, headers=HEADERS)


def _wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/") or request.query_params.get("format") == "json"


def _missing(request: Request, what: str) -> Response:
    if _wants_json(request):
        return _json({"error": what}, 404)
    return _html(pages.not_found(what), 404)


async def _close(stream: object) -> None:
    close = getattr(stream, "aclose", None)
    if close is not None:
        await close()


class _ClosingStreamingResponse(StreamingResponse):
    """Closes its body however the response ends: Starlette stops iterating the
    body of a client that left without closing it, which left the body's clean-up
    (the stream caps' counts, the live feed) to the garbage collector."""

    async def stream_response(self, send: Send) -> None:
        try:
            await super().stream_response(send)
        finally:
            with anyio.CancelScope(shield=True):
                await _close(self.body_iterator)


def create_app(
    source: Source,
    on_loop: Callable[[], None] | None = None,
    extra: Sequence[BaseRoute] = (),
    challenge_link: bool = False,
) -> Starlette:
    """The site over ``source``; ``on_loop`` runs on the event loop before each
    request reads (the server copies its running matches there); ``extra``:
    more routes (the server's challenges), linked from the home page with
    ``challenge_link``."""
    site = Site(source, on_loop)
    site.challenges = challenge_link
    routes = [
        *extra,
        Route("/", site.competitions),
        Route("/api/competitions", site.competitions),
        Route("/c/{cid}", site.competition),
        Route("/api/c/{cid}", site.competition),
        Route("/c/{cid}/matches", site.matches),
        Route("/api/c/{cid}/matches", site.matches),
        Route("/api/matches/{cid}/{mid:path}/events", site.events),
        Route("/api/c/{cid}/results", site.results),
        Route("/m/{cid}/{mid:path}", site.match),
        Route("/api/m/{cid}/{mid:path}", site.match),
        Route("/e/{cid}/{name}", site.engine),
        Route("/api/e/{cid}/{name}", site.engine),
        Route("/static/{name}", site.static_file),
    ]
    return Starlette(routes=routes, exception_handlers={404: site.not_found})


class Site:
    """The site's handlers and what they share: the data source, the static
    files, and the event streams open per client."""

    def __init__(self, source: Source, on_loop: Callable[[], None] | None = None) -> None:
        self.source = source
        self._on_loop = on_loop
        self._static = _static_files()
        self._streams: dict[str, int] = {}  # open event streams per client address
        self.challenges = False  # the home page links to the server's challenges

    def _sync(self) -> None:
        if self._on_loop is not None:
            self._on_loop()

    async def _in_competition(self, cid: str, read: Callable[[], Any]) -> tuple[Any, Any] | None:
        """The competition's info and what ``read`` finds in it, read on a
        worker thread; None if either is missing."""

        def both() -> tuple[Any, Any] | None:
            info = self.source.competition(cid)
            found = None if info is None else read()
            return None if found is None else (info, found)

        return await run_in_threadpool(both)

    # Pages and their JSON twins -----------------------------------------------------

    async def competitions(self, request: Request) -> Response:
        self._sync()
        infos = await run_in_threadpool(self.source.competitions)
        if _wants_json(request):
            return _json({"competitions": [message_dict(c) for c in infos]})
        return _html(pages.competitions_page(self.source.title, infos, self.challenges))

    async def competition(self, request: Request) -> Response:
        self._sync()
        cid = request.path_params["cid"]

        found = await self._in_competition(cid, lambda: self.source.overview(cid))
        if found is None:
            return _missing(request, f"no competition {cid!r}")
        info, overview = found
        if _wants_json(request):
            return _json(
                {
                    "competition": message_dict(info),
                    "standings": message_dict(overview.standings),
                    "progress": asdict(overview.progress),
                    "crosstable": overview.crosstable,
                    "rating_series": {k: list(v) for k, v in overview.rating_series.items()},
                    "sprt": None if overview.sprt is None else asdict(overview.sprt),
                    "running": overview.running,
                    "latest": [match_dict(m) for m in overview.latest],
                    "ladder": None
                    if overview.ladder is None
                    else {
                        "anchor": overview.ladder.anchor,
                        "versions": None
                        if overview.ladder.versions is None
                        else [message_dict(v) for v in overview.ladder.versions],
                    },
                }
            )
        return _html(pages.competition_page(info, overview))

    async def matches(self, request: Request) -> Response:
        self._sync()
        cid = request.path_params["cid"]
        q = request.query_params
        try:
            number = int(q.get("page", "1"))
        except ValueError:
            number = 1
        flt = MatchFilter(q.get("engine", ""), q.get("result", ""), q.get("fault", ""), number)

        found = await self._in_competition(cid, lambda: self.source.matches(cid, flt))
        if found is None:
            return _missing(request, f"no competition {cid!r}")
        info, mp = found
        if _wants_json(request):
            return _json(
                {
                    "matches": [match_dict(m) for m in mp.matches],
                    "page": mp.page,
                    "pages": mp.pages,
                    "total": mp.total,
                    "faulty": sorted(m.id for m in mp.matches if m.id in mp.faulty),
                }
            )
        return _html(pages.matches_page(info, flt, mp))

    async def match(self, request: Request) -> Response:
        self._sync()
        cid, mid = request.path_params["cid"], request.path_params["mid"]
        source = self.source

        def read() -> Any:
            found = source.match(cid, mid)
            if found is None:
                return None
            seats = source.seats(cid, mid) if found[1] is None else None
            followed = seats is not None and source.watchable(cid, mid) is not None
            return found[0], found[1], seats, followed

        found = await self._in_competition(cid, read)
        if found is None:
            return _missing(request, f"no match {cid}/{mid!r}")
        info, (m, data, seats, followed) = found
        live = None
        if data is None and seats is not None:
            data = LiveFrames(seats[0], seats[1]).data()
            if followed:
                live = "/api/matches/" + pages.match_url(m.id)[len("/m/") :] + "/events"
            else:
                data["status"] = "not played yet"
        elif data is None:
            data = {"frames": [], "status": "not played yet"}
        if _wants_json(request):
            return _json({"match": match_dict(m), "viewer": data, "events": live})
        return _html(pages.match_page(info, m, data, live))

    async def engine(self, request: Request) -> Response:
        self._sync()
        cid, name = request.path_params["cid"], request.path_params["name"]
        chosen = request.query_params.get("version", "")
        version = int(chosen) if chosen.isdigit() and 0 < int(chosen) < 1 << 32 else None

        found = await self._in_competition(cid, lambda: self.source.engine(cid, name, version))
        if found is None:
            of = f" version {version}" if version is not None else ""
            return _missing(request, f"no bot {name!r}{of} in competition {cid!r}")
        info, ep = found
        if _wants_json(request):
            return _json(
                {
                    "name": ep.name,
                    "versions": ep.versions,
                    "standings_row": None if ep.row is None else message_dict(ep.row),
                    "faults": [message_dict(f) for f in ep.faults],
                    "bot": None if ep.bot is None else message_dict(ep.bot),
                    "recent": [match_dict(m) for m in ep.recent],
                    "matches": [message_dict(m) for m in ep.matches],
                    "matches_total": ep.total,
                    "belongs_to": ep.of,
                    "players": [{"player": p, "version": n} for p, n in ep.players],
                    "version": ep.version,
                }
            )
        return _html(pages.engine_page(info, ep))

    async def static_file(self, request: Request) -> Response:
        found = self._static.get(request.path_params["name"])
        if found is None:
            return _missing(request, "no such file")
        text, media = found
        return Response(text, media_type=media, headers={**HEADERS, "Cache-Control": "no-cache"})

    async def not_found(self, request: Request, exc: Exception) -> Response:
        return _missing(request, "no such page")

    # Event streams ----------------------------------------------------------------

    async def events(self, request: Request) -> Response:
        """A running match's spectator events and viewer frames, as they come."""
        cid, mid = request.path_params["cid"], request.path_params["mid"]
        key = f"{cid}/{mid}"

        def read() -> Any:
            return self.source.watchable(cid, mid), self.source.spectator_delay(cid)

        seats, delay = await run_in_threadpool(read)
        if seats is None:
            return _json({"error": f"no live match {key!r}"}, 404)
        if self._full(request):
            return _json({"error": "too many open event streams; try again later"}, 503)
        live = self.source.live(key, seats, delay)

        async def body() -> AsyncIterator[str]:
            async for spectator, frames in live:
                if spectator is not None:
                    yield f"event: spectator\ndata: {json.dumps(spectator)}\n\n"
                for frame in frames:
                    yield f"event: frame\ndata: {json.dumps(frame, ensure_ascii=False)}\n\n"
            yield "event: end\ndata: {}\n\n"

        return self._stream(request, body(), live)

    async def results(self, request: Request) -> Response:
        """One event each time a match of the competition ends: the page then
        reads its standings again."""
        cid = request.path_params["cid"]
        info = await run_in_threadpool(self.source.competition, cid)
        if info is None:
            return _json({"error": f"no competition {cid!r}"}, 404)
        if self._full(request):
            return _json({"error": "too many open event streams; try again later"}, 503)
        ended = self.source.results(cid)

        async def body() -> AsyncIterator[str]:
            yield ": following\n\n"  # sent at once, so the browser knows the stream is open
            async for count in ended:
                yield f"event: result\ndata: {json.dumps({'ended': count})}\n\n"

        return self._stream(request, body(), ended)

    def _stream(self, request: Request, body: AsyncIterator[str], closing: object) -> Response:
        """An event stream, counted against the caps while its body runs."""
        client = _client(request)
        streams = self._streams

        async def counted() -> AsyncIterator[str]:
            streams[client] = streams.get(client, 0) + 1  # here: a body never started holds none
            try:
                async for chunk in body:
                    yield chunk
            finally:
                streams[client] -= 1
                if not streams[client]:
                    del streams[client]
                await _close(body)
                await _close(closing)

        headers = {**HEADERS, "Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        return _ClosingStreamingResponse(counted(), media_type="text/event-stream", headers=headers)

    def _full(self, request: Request) -> bool:
        """Whether the caller, or the site, has as many streams open as allowed."""
        here = self._streams.get(_client(request), 0)
        return here >= STREAMS_PER_CLIENT or sum(self._streams.values()) >= STREAMS_TOTAL


def _client(request: Request) -> str:
    return request.client.host if request.client is not None else ""
