"""The site as a Starlette application: every page, its JSON twin (the same
path with ``?format=json``, or under ``/api``), the live event stream of a
running match (Server-Sent Events) and the site's static files.

Handlers read their data on a worker thread (SQLite, log replays); only the
event stream and the list of running matches are read on the loop.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from arena.web import pages
from arena.web.data import (
    VIEWER_ASSETS,
    LiveFrames,
    MatchFilter,
    Source,
    message_dict,
)

STATIC = Path(__file__).with_name("site_static")
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
        "viewer.js": (VIEWER_ASSETS.get("viewer.js", ""), "text/javascript"),
        "viewer.css": (VIEWER_ASSETS.get("viewer.css", ""), "text/css"),
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


def create_app(source: Source, on_loop: Callable[[], None] | None = None) -> Starlette:
    """The site over ``source``; ``on_loop`` runs on the event loop before each
    request reads (the server copies its running matches there)."""
    static = _static_files()
    streams: dict[str, int] = {}

    def sync() -> None:
        if on_loop is not None:
            on_loop()

    async def in_competition(cid: str, read: Callable[[], Any]) -> tuple[Any, Any] | None:
        """The competition's info and what ``read`` finds in it, read on a
        worker thread; None if either is missing."""

        def both() -> tuple[Any, Any] | None:
            info = source.competition(cid)
            found = None if info is None else read()
            return None if found is None else (info, found)

        return await run_in_threadpool(both)

    async def competitions(request: Request) -> Response:
        sync()
        infos = await run_in_threadpool(source.competitions)
        if _wants_json(request):
            return _json({"competitions": [message_dict(c) for c in infos]})
        return _html(pages.competitions_page(source.title, infos))

    async def competition(request: Request) -> Response:
        sync()
        cid = request.path_params["cid"]

        found = await in_competition(cid, lambda: source.overview(cid))
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
                }
            )
        return _html(pages.competition_page(info, overview))

    async def matches(request: Request) -> Response:
        sync()
        cid = request.path_params["cid"]
        q = request.query_params
        try:
            number = int(q.get("page", "1"))
        except ValueError:
            number = 1
        flt = MatchFilter(q.get("engine", ""), q.get("result", ""), q.get("fault", ""), number)

        found = await in_competition(cid, lambda: source.matches(cid, flt))
        if found is None:
            return _missing(request, f"no competition {cid!r}")
        info, mp = found
        if _wants_json(request):
            return _json(
                {
                    "matches": [message_dict(m) for m in mp.matches],
                    "page": mp.page,
                    "pages": mp.pages,
                    "total": mp.total,
                    "faulty": sorted(m.id for m in mp.matches if m.id in mp.faulty),
                }
            )
        return _html(pages.matches_page(info, flt, mp))

    async def match(request: Request) -> Response:
        sync()
        cid, mid = request.path_params["cid"], request.path_params["mid"]

        def read() -> Any:
            found = source.match(cid, mid)
            if found is None:
                return None
            seats = source.seats(cid, mid) if found[1] is None else None
            followed = seats is not None and source.watchable(cid, mid) is not None
            return found[0], found[1], seats, followed

        found = await in_competition(cid, read)
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
            return _json({"match": message_dict(m), "viewer": data, "events": live})
        return _html(pages.match_page(info, m, data, live))

    def _stream(request: Request, body: AsyncIterator[str], closing: object) -> Response:
        """An event stream, counted against the caps while its body runs."""
        client = request.client.host if request.client is not None else ""

        async def counted() -> AsyncIterator[str]:
            streams[client] = streams.get(client, 0) + 1  # here: a body never started holds none
            try:
                async for chunk in body:
                    yield chunk
            finally:
                streams[client] -= 1
                if not streams[client]:
                    del streams[client]
                await _close(closing)

        headers = {**HEADERS, "Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        return StreamingResponse(counted(), media_type="text/event-stream", headers=headers)

    def _full(request: Request) -> bool:
        client = request.client.host if request.client is not None else ""
        total = sum(streams.values())
        return streams.get(client, 0) >= STREAMS_PER_CLIENT or total >= STREAMS_TOTAL

    async def events(request: Request) -> Response:
        cid, mid = request.path_params["cid"], request.path_params["mid"]
        key = f"{cid}/{mid}"

        def read() -> Any:
            return source.watchable(cid, mid), source.spectator_delay(cid)

        seats, delay = await run_in_threadpool(read)
        if seats is None:
            return _json({"error": f"no live match {key!r}"}, 404)
        if _full(request):
            return _json({"error": "too many open event streams; try again later"}, 503)
        live = source.live(key, seats, delay)

        async def body() -> AsyncIterator[str]:
            async for spectator, frames in live:
                if spectator is not None:
                    yield f"event: spectator\ndata: {json.dumps(spectator)}\n\n"
                for frame in frames:
                    yield f"event: frame\ndata: {json.dumps(frame, ensure_ascii=False)}\n\n"
            yield "event: end\ndata: {}\n\n"

        return _stream(request, body(), live)

    async def results(request: Request) -> Response:
        """One event each time a match of the competition ends: the page then
        reads its standings again."""
        cid = request.path_params["cid"]
        info = await run_in_threadpool(source.competition, cid)
        if info is None:
            return _json({"error": f"no competition {cid!r}"}, 404)
        if _full(request):
            return _json({"error": "too many open event streams; try again later"}, 503)
        ended = source.results(cid)

        async def body() -> AsyncIterator[str]:
            yield ": following\n\n"  # sent at once, so the browser knows the stream is open
            async for count in ended:
                yield f"event: result\ndata: {json.dumps({'ended': count})}\n\n"

        return _stream(request, body(), ended)

    async def engine(request: Request) -> Response:
        cid, name = request.path_params["cid"], request.path_params["name"]

        found = await in_competition(cid, lambda: source.engine(cid, name))
        if found is None:
            return _missing(request, f"no bot {name!r} in competition {cid!r}")
        info, ep = found
        if _wants_json(request):
            return _json(
                {
                    "name": ep.name,
                    "versions": ep.versions,
                    "standings_row": None if ep.row is None else message_dict(ep.row),
                    "faults": [message_dict(f) for f in ep.faults],
                    "bot": None if ep.bot is None else message_dict(ep.bot),
                    "recent": [message_dict(m) for m in ep.recent],
                }
            )
        return _html(pages.engine_page(info, ep))

    async def static_file(request: Request) -> Response:
        found = static.get(request.path_params["name"])
        if found is None:
            return _missing(request, "no such file")
        text, media = found
        return Response(text, media_type=media, headers={**HEADERS, "Cache-Control": "no-cache"})

    async def not_found(request: Request, exc: Exception) -> Response:
        return _missing(request, "no such page")

    routes = [
        Route("/", competitions),
        Route("/api/competitions", competitions),
        Route("/c/{cid}", competition),
        Route("/api/c/{cid}", competition),
        Route("/c/{cid}/matches", matches),
        Route("/api/c/{cid}/matches", matches),
        Route("/api/matches/{cid}/{mid:path}/events", events),
        Route("/api/c/{cid}/results", results),
        Route("/m/{cid}/{mid:path}", match),
        Route("/api/m/{cid}/{mid:path}", match),
        Route("/e/{cid}/{name}", engine),
        Route("/api/e/{cid}/{name}", engine),
        Route("/static/{name}", static_file),
    ]
    return Starlette(routes=routes, exception_handlers={404: not_found})
