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

from arena.errors import ArenaError
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
# Spectators' streams only: a person's seat is never counted here (arena.web.table).
STREAMS_PER_CLIENT = 32
STREAMS_TOTAL = 2000
RETRY_AFTER_SECONDS = 10  # what a refused stream is told to wait
# A request's JSON body: nested no deeper than this (a move is four deep).
MAX_JSON_DEPTH = 10


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


def json_response(value: Any, status: int = 200) -> Response:
    return JSONResponse(value, status_code=status, headers=HEADERS)


def html_response(text: str, status: int = 200) -> Response:
    return HTMLResponse(text, status_code=status, headers=HEADERS)


def _wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/") or request.query_params.get("format") == "json"


def _missing(request: Request, what: str) -> Response:
    if _wants_json(request):
        return json_response({"error": what}, 404)
    return html_response(pages.not_found(what), 404)


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


class StreamCaps:
    """The event streams open per client address and in all, and the caps on
    them. A stream is counted from the moment it is granted (``stream``, with
    no await between the check and the count, so that requests arriving
    together cannot all pass one check) until its body is closed, whether or
    not it ever started."""

    def __init__(self) -> None:
        self._open: dict[str, int] = {}
        self._total = 0

    def refusal(self, request: Request) -> Response | None:
        """The answer to a stream the caps refuse (503, saying which cap and
        when to try again), or None if it may open."""
        client = _client(request)
        if self._open.get(client, 0) >= STREAMS_PER_CLIENT:
            why = (
                f"{STREAMS_PER_CLIENT} live streams are already open from your address, "
                "as many as one address may hold: close a page or try again later"
            )
        elif self._total >= STREAMS_TOTAL:
            why = (
                f"this site is serving as many live streams as it can ({STREAMS_TOTAL}): "
                "try again later"
            )
        else:
            return None
        response = json_response({"error": why}, 503)
        response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response

    def stream(self, request: Request, body: AsyncIterator[str], *closing: object) -> Response:
        """``body`` as an event stream, counted from now until it is closed
        (``closing``: more to close with it). Call it right after ``refusal``."""
        client = _client(request)
        self._open[client] = self._open.get(client, 0) + 1
        self._total += 1
        counted = _Counted(body, closing, lambda: self._release(client))
        return event_stream(counted)

    def _release(self, client: str) -> None:
        self._total -= 1
        self._open[client] -= 1
        if not self._open[client]:
            del self._open[client]


class _Counted:
    """A stream's body that calls ``release`` once when it is closed, even if
    it never started (an async generator's ``finally`` runs only if it did)."""

    def __init__(
        self, body: AsyncIterator[str], closing: Sequence[object], release: Callable[[], None]
    ) -> None:
        self._body = body
        self._closing = closing
        self._release: Callable[[], None] | None = release

    def __aiter__(self) -> _Counted:
        return self

    async def __anext__(self) -> str:
        return await self._body.__anext__()

    async def aclose(self) -> None:
        release, self._release = self._release, None
        if release is None:
            return
        release()
        await _close(self._body)
        for other in self._closing:
            await _close(other)


def event_stream(body: AsyncIterator[str], headers: dict[str, str] | None = None) -> Response:
    """``body`` as Server-Sent Events, never cached or buffered on the way,
    closed however the response ends."""
    headers = {**(headers or HEADERS), "Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    return _ClosingStreamingResponse(body, media_type="text/event-stream", headers=headers)


class BadRequest(ArenaError):
    """A request body that is not what the route takes: answered 400 with
    ``reason``, never with a traceback."""

    status = 400

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


async def json_object(request: Request, max_bytes: int) -> dict[str, Any]:
    """The request's body, a JSON object of at most ``max_bytes`` bytes and
    ``MAX_JSON_DEPTH`` levels, sent as ``application/json``; BadRequest saying
    what is wrong with it otherwise. Read no further than the limit."""
    media = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if media != "application/json":
        raise BadRequest("send the request as JSON (Content-Type: application/json)")
    too_long = f"a request of at most {max_bytes} bytes"
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise BadRequest(too_long)
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > max_bytes:
            raise BadRequest(too_long)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequest("the request is not JSON: it is not UTF-8 text") from None
    if _deeper_than(text, MAX_JSON_DEPTH):
        raise BadRequest(f"the request is nested more than {MAX_JSON_DEPTH} levels deep")
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise BadRequest(f"the request is not JSON: {str(e).splitlines()[0]}") from None
    if not isinstance(value, dict):
        raise BadRequest("the request is a JSON object: {...}")
    return value


def body_field(body: dict[str, Any], name: str, kind: type, shape: str) -> Any:
    """``body[name]``, which must be a ``kind`` (a whole number for int, never
    true or false); BadRequest naming the request's ``shape`` otherwise."""
    value = body.get(name)
    wrong = not isinstance(value, kind) or (kind is int and isinstance(value, bool))
    if wrong:
        what = {int: "a whole number", str: "text", dict: "a JSON object"}.get(kind, kind.__name__)
        missing = "is missing" if name not in body else f"is not {what}"
        raise BadRequest(f"send {shape}: {name!r} {missing}")
    return value


def _deeper_than(text: str, limit: int) -> bool:
    """Whether the arrays and objects of JSON ``text`` nest deeper than
    ``limit`` (strings skipped), found before parsing, which recurses; it
    stops at the first level too deep."""
    depth = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return True
        elif ch in "]}":
            depth -= 1
    return False


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
        self.streams = StreamCaps()  # the live streams open, per client address
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
            return json_response({"competitions": [message_dict(c) for c in infos]})
        return html_response(pages.competitions_page(self.source.title, infos, self.challenges))

    async def competition(self, request: Request) -> Response:
        self._sync()
        cid = request.path_params["cid"]

        found = await self._in_competition(cid, lambda: self.source.overview(cid))
        if found is None:
            return _missing(request, f"no competition {cid!r}")
        info, overview = found
        if _wants_json(request):
            return json_response(
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
        return html_response(pages.competition_page(info, overview))

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
            return json_response(
                {
                    "matches": [match_dict(m) for m in mp.matches],
                    "page": mp.page,
                    "pages": mp.pages,
                    "total": mp.total,
                    "faulty": sorted(m.id for m in mp.matches if m.id in mp.faulty),
                }
            )
        return html_response(pages.matches_page(info, flt, mp))

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
            return json_response({"match": match_dict(m), "viewer": data, "events": live})
        return html_response(pages.match_page(info, m, data, live))

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
            return json_response(
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
        return html_response(pages.engine_page(info, ep))

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
            return json_response({"error": f"no live match {key!r}"}, 404)
        refused = self.streams.refusal(request)
        if refused is not None:
            return refused
        live = self.source.live(key, seats, delay)

        async def body() -> AsyncIterator[str]:
            async for spectator, frames in live:
                if spectator is not None:
                    yield f"event: spectator\ndata: {json.dumps(spectator)}\n\n"
                for frame in frames:
                    yield f"event: frame\ndata: {json.dumps(frame, ensure_ascii=False)}\n\n"
            yield "event: end\ndata: {}\n\n"

        return self.streams.stream(request, body(), live)

    async def results(self, request: Request) -> Response:
        """One event each time a match of the competition ends: the page then
        reads its standings again."""
        cid = request.path_params["cid"]
        info = await run_in_threadpool(self.source.competition, cid)
        if info is None:
            return json_response({"error": f"no competition {cid!r}"}, 404)
        refused = self.streams.refusal(request)
        if refused is not None:
            return refused
        ended = self.source.results(cid)

        async def body() -> AsyncIterator[str]:
            yield ": following\n\n"  # sent at once, so the browser knows the stream is open
            async for count in ended:
                yield f"event: result\ndata: {json.dumps({'ended': count})}\n\n"

        return self.streams.stream(request, body(), ended)


def _client(request: Request) -> str:
    return request.client.host if request.client is not None else ""
