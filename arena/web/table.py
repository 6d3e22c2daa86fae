"""The table of one match played from the command line with people at it
(`arena match --http`): a page per human seat, a spectator's page, and the
requests a person's page makes. Starlette, served by Hypercorn's trio worker
on the match's own trio loop (arena.web.serve).

A seat's page is the same for every seat and holds no secret: the secret is
in the fragment of the address the command prints (``/seat#SECRET``), which a
browser never sends, so it is in no request line, access log or referrer.
The page sends it in an ``Authorization: Bearer`` header with each request of
its own (its stream, sitting down, a move). Without it, or with another, a
request gets nothing (401). A seat's stream is arena.transport.human's: only
what a bot of that seat is sent.

The spectator's page shows the public view (no hand), a number of plays
behind the table when a spectator delay is set. Spectators' streams are
capped per client address and in all (arena.web.app.StreamCaps); a seat's
own stream and moves are never counted there, since many spectators may share
the person's address (a NAT, a proxy): only the secret claims the seat, and
its streams are bounded by the seat itself (arena.transport.human).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

import trio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from arena.broker import Broker
from arena.logs.viewer import script_json
from arena.match.outcome import MatchReport
from arena.match.report import report_text
from arena.match.settings import EngineSpec, MatchSettings
from arena.play import run_match, seat_engines
from arena.rules import Variant
from arena.transport.human import HumanSeat, People, Refused
from arena.web import pages
from arena.web.app import (
    HEADERS,
    BadRequest,
    StreamCaps,
    body_field,
    event_stream,
    html_response,
    json_object,
    json_response,
)
from arena.web.data import VIEWER_ASSETS
from arena.web.live import LiveFrames
from arena.web.serve import serve_site

STATIC = Path(__file__).with_name("static")
SITE_SCRIPT = Path(__file__).with_name("site_static") / "site.js"  # follows the live viewer
MAX_BODY_BYTES = 8192  # a seat's request: a name or a move
MATCH_KEY = "table/match"  # the match's key in the broker
# The seat's own requests are never cached or kept.
PRIVATE = {**HEADERS, "Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}


def _files() -> dict[str, tuple[str, str]]:
    def read(name: str) -> str:
        return (STATIC / name).read_text(encoding="utf-8")

    return {
        "viewer.js": (VIEWER_ASSETS.get("viewer.js", ""), "text/javascript"),
        "viewer.css": (VIEWER_ASSETS.get("viewer.css", ""), "text/css"),
        "table.js": (read("table.js"), "text/javascript"),
        "table.css": (read("table.css"), "text/css"),
        "site.js": (SITE_SCRIPT.read_text(encoding="utf-8"), "text/javascript"),
    }


class Table:
    """The handlers of one match's table, and what they share."""

    def __init__(
        self,
        people: People,
        variant: Variant,
        names: Sequence[str],
        broker: Broker,
        spectator_delay: int = 0,
        *,
        key: str = MATCH_KEY,
        api: str = "/api/seat",
    ) -> None:
        """``key``: the match's key in ``broker``; ``api``: where the seat's
        requests go (``api``/events, /sit, /move), as its page is told."""
        self.key = key
        self.api = api
        self.people = people
        self.variant = variant
        self.names = list(names)
        self.broker = broker
        self.delay = spectator_delay
        self.result: str | None = None  # the result in words, once the match is over
        self._files = _files()
        self.spectators = StreamCaps()  # the spectators' streams (never a seat's)

    def app(self) -> Starlette:
        routes = [
            Route("/", self.index),
            Route("/seat", self.seat_page),
            Route("/watch", self.watch_page),
            Route("/api/watch/events", self.watch_events),
            Route("/api/seat/events", self.seat_events),
            Route("/api/seat/sit", self.sit, methods=["POST"]),
            Route("/api/seat/move", self.move, methods=["POST"]),
            Route("/static/{name}", self.static_file),
        ]
        return Starlette(routes=routes, exception_handlers={404: self.not_found})

    # Pages ----------------------------------------------------------------------

    async def index(self, request: Request) -> Response:
        body = (
            f"<h1>{pages.e(self.variant.describe())}</h1>"
            "<p>A match is being played at this table. Each person at it opens the "
            "address their seat was given; everyone else can "
            '<a href="/watch">watch it</a>.</p>'
        )
        return html_response(pages.page("Scopa Arena table", body))

    async def seat_page(self, request: Request) -> Response:
        body = (
            f'<div id="table" class="scopa-table" data-api="{pages.e(self.api)}">'
            '<p class="needs-script">This table needs JavaScript.</p></div>'
        )
        page = pages.page(
            "Scopa Arena: your seat",
            body,
            scripts=("/static/viewer.js", "/static/table.js"),
            css=("/static/viewer.css", "/static/table.css"),
        )
        return Response(page, media_type="text/html", headers=PRIVATE)

    async def watch_page(self, request: Request) -> Response:
        if request.query_params.get("format") == "json":
            status = "done" if self.result is not None else "live"
            return json_response({"match": {"status": status, "result": self.result or ""}})
        data = LiveFrames(self.variant, self.names).data()
        payload = script_json(data)
        seats = ", ".join(f"{pages.e(n)} (seat {i})" for i, n in enumerate(self.names))
        delay = f"; shown {self.delay} plays behind the table" if self.delay else ""
        body = (
            f"<h1>{pages.e(self.variant.describe())}</h1><p>{seats}{delay}</p>"
            '<p>result: <span id="match-result">not yet</span></p><p id="live-status">live</p>'
            '<div id="viewer" data-live="/api/watch/events" data-faces="italian"></div>'
            f'<script type="application/json" id="viewer-data">{payload}</script>'
        )
        return html_response(
            pages.page(
                "Scopa Arena: watching",
                body,
                scripts=("/static/viewer.js", "/static/site.js"),
                css=("/static/viewer.css",),
            )
        )

    async def static_file(self, request: Request) -> Response:
        found = self._files.get(request.path_params["name"])
        if found is None:
            return json_response({"error": "no such file"}, 404)
        text, media = found
        return Response(text, media_type=media, headers={**HEADERS, "Cache-Control": "no-cache"})

    async def not_found(self, request: Request, exc: Exception) -> Response:
        if request.url.path.startswith("/api/"):
            return json_response({"error": "no such page"}, 404)
        return html_response(pages.not_found("no such page"), 404)

    # Streams --------------------------------------------------------------------

    async def watch_events(self, request: Request) -> Response:
        """The public view, as the viewer's frames, ``delay`` plays behind."""
        refused = self.spectators.refusal(request)
        if refused is not None:
            return refused
        frames = LiveFrames(self.variant, self.names)
        watched = self.broker.watch_trio(self.key, self.delay)

        async def body() -> AsyncIterator[str]:
            async for item in watched:
                for frame in frames.feed(item.event):
                    yield f"event: frame\ndata: {json.dumps(frame, ensure_ascii=False)}\n\n"
            yield "event: end\ndata: {}\n\n"

        return self.spectators.stream(request, body(), watched)

    async def seat_events(self, request: Request) -> Response:
        """The seat's stream, for its secret alone: never counted against the
        spectators' caps, whoever shares the seat's address."""
        seat = self._seat(request)
        if seat is None:
            return self._unauthorised()
        return event_stream(seat.stream(), PRIVATE)

    # A seat's requests -------------------------------------------------------------

    def _seat(self, request: Request) -> HumanSeat | None:
        scheme, _, secret = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not secret:
            return None
        return self.people.by_secret(secret.strip())

    def _unauthorised(self) -> Response:
        reason = "this is a seat's request: open the address the seat was given"
        response = private_json({"error": reason}, 401)
        response.headers["WWW-Authenticate"] = "Bearer"
        return response

    async def sit(self, request: Request) -> Response:
        seat = self._seat(request)
        if seat is None:
            return self._unauthorised()
        try:
            body = await json_object(request, MAX_BODY_BYTES)
            person = seat.sit(body_field(body, "name", str, '{"name": NAME}'))
        except (BadRequest, Refused) as e:
            return private_json({"error": e.reason}, e.status)
        return private_json({"person": person})

    async def move(self, request: Request) -> Response:
        seat = self._seat(request)
        if seat is None:
            return self._unauthorised()
        shape = '{"ask": N, "move": MOVE}'
        try:
            body = await json_object(request, MAX_BODY_BYTES)
            ask = body_field(body, "ask", int, shape)
            seat.answer(ask, body_field(body, "move", dict, shape))
        except (BadRequest, Refused) as e:
            return private_json({"error": e.reason}, e.status)
        return private_json({"ok": True})


def private_json(value: Any, status: int = 200) -> Response:
    """A seat's answer: JSON, never cached, never sent on as a referrer."""
    return Response(json.dumps(value), status, media_type="application/json", headers=PRIVATE)


async def host_match(
    engines: Sequence[EngineSpec],
    settings: MatchSettings,
    listen: str,
    *,
    log: Path | None = None,
    bot_output: Path | None = None,
    allow_shared_partners: bool = False,
    spectator_delay: int = 0,
    linger: float = 30.0,
    announce: Callable[[str], None] = print,
) -> MatchReport:
    """Referee one match with its table served at ``listen``: announce the
    address of each human seat's page and of the spectators' page, play the
    match (it waits for each person to sit down), and keep the table up
    ``linger`` seconds after the end so that every page shows the result."""
    seated = seat_engines(engines, settings.variant.seats)
    people = People(seated)
    broker = Broker()
    names = [e.name if isinstance(e, EngineSpec) else e[0] for e in seated]
    table = Table(people, settings.variant, names, broker, spectator_delay)
    async with trio.open_nursery() as nursery:
        base = await nursery.start(serve_site, table.app(), listen)
        for seat, human in sorted(people.seats.items()):
            announce(f"seat {seat} ({human.spec.name}): {base}/seat#{human.secret}")
        announce(f"spectators: {base}/watch")
        try:
            report = await run_match(
                seated,
                settings,
                log=log,
                spectate=lambda event: broker.publish(MATCH_KEY, event),
                bot_output=bot_output or (log.parent if log else None),
                allow_shared_partners=allow_shared_partners,
                people=people,
            )
        finally:
            broker.close(MATCH_KEY)
            for human in people.seats.values():
                human.close()
        table.result = report.result.reason
        announce(report_text(report))
        if log:
            announce(f"log: {log}")
        if linger > 0:
            announce(f"the table stays open {linger:g}s more (Ctrl-C to leave now)")
            await trio.sleep(linger)
        nursery.cancel_scope.cancel()
    return report
