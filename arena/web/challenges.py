"""The site's challenge pages (the competition server's alone): a participant
opens a challenge against a bot or a baseline with their token, plays it at
a person's table (arena.web.table), and finds it afterwards on their page.

The site knows the server's challenges only through ``ChallengeHost`` (the
server's arena.server.challenges.Challenges is one), so it imports nothing of
the server. A participant's token reaches the server only in the
``Authorization`` header of the page's request, never in an address.
"""

from __future__ import annotations

from typing import Any, Protocol

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from arena.broker import Broker
from arena.errors import ArenaError
from arena.logs.replay import replay_log
from arena.logs.viewer import script_json, viewer_data
from arena.rules import Variant
from arena.transport.human import People
from arena.web import pages
from arena.web.app import HEADERS, BadRequest, body_field, html_response, json_object, json_response
from arena.web.table import Table, private_json

MAX_BODY_BYTES = 4096


class Seating(Protocol):
    """What a challenge's table is made of (the server's challenges.Seating)."""

    @property
    def people(self) -> People: ...
    @property
    def variant(self) -> Variant: ...
    @property
    def names(self) -> tuple[str, ...]: ...
    @property
    def events(self) -> Broker: ...


class ChallengeHost(Protocol):
    enabled: bool
    spectator_delay: int

    def seating(self, cid: str) -> Seating | None: ...
    def participant(self, token: str) -> str | None: ...
    def opponents(self) -> list[str]: ...
    def open(self, participant: str, opponent: str, game: str = "scopa") -> tuple[str, str]: ...
    def get(self, cid: str) -> dict[str, Any] | None: ...
    def log_path(self, cid: str) -> Any: ...
    def of(self, participant: str) -> list[dict[str, Any]]: ...


def participant_url(name: str) -> str:
    from urllib.parse import quote

    return "/p/" + quote(name, safe="")


def challenge_routes(host: ChallengeHost) -> list[BaseRoute]:
    """The routes of the challenge pages, for arena.web.app.create_app's ``extra``."""
    pages_ = ChallengePages(host)
    return [
        Route("/challenge", pages_.form),
        Route("/api/challenges", pages_.open, methods=["POST"]),
        Route("/challenges/{cid}", pages_.challenge),
        Route("/challenges/{cid}/seat", pages_.seat_page),
        Route("/api/challenges/{cid}/seat/events", pages_.seat_events),
        Route("/api/challenges/{cid}/seat/sit", pages_.seat_sit, methods=["POST"]),
        Route("/api/challenges/{cid}/seat/move", pages_.seat_move, methods=["POST"]),
        Route("/p/{name}", pages_.participant),
    ]


class ChallengePages:
    def __init__(self, host: ChallengeHost) -> None:
        self.host = host
        self._tables: dict[str, Table] = {}

    async def form(self, request: Request) -> Response:
        if not self.host.enabled:
            body = (
                "<h1>Challenges</h1><p>The organiser has turned challenges off on this server.</p>"
            )
            return html_response(pages.page("Challenges", body))
        options = "".join(
            f'<option value="{pages.e(o)}">{pages.e(o)}</option>' for o in self.host.opponents()
        )
        body = (
            "<h1>Play a bot yourself</h1>"
            "<p>A challenge is one Scopa match between you, in this browser, and a "
            "registered bot or a baseline: unrated, and apart from every competition. "
            "Its log is kept and listed on your page.</p>"
            '<form id="challenge-form">'
            '<p><label>Your participant token: <input type="password" name="token" '
            'autocomplete="off" required></label></p>'
            f'<p><label>Opponent: <select name="opponent">{options}</select></label></p>'
            '<p><button type="submit">Sit down</button></p>'
            '<p id="challenge-message" role="status"></p></form>'
        )
        return html_response(pages.page("Challenges", body, scripts=("/static/challenge.js",)))

    async def open(self, request: Request) -> Response:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return private_json(
                {"error": "send your participant token (Authorization: Bearer)"}, 401
            )
        who = await run_in_threadpool(self.host.participant, token.strip())
        if who is None:
            return private_json({"error": "unknown participant token"}, 401)
        shape = '{"opponent": NAME}'
        try:
            body = await json_object(request, MAX_BODY_BYTES)
            opponent = body_field(body, "opponent", str, shape)
            game = body_field(body, "game", str, shape) if "game" in body else "scopa"
        except BadRequest as e:
            return private_json({"error": e.reason}, e.status)
        try:
            cid, secret = self.host.open(who, opponent, game)
        except ArenaError as e:
            return private_json({"error": str(e)}, getattr(e, "status", 400))
        return private_json(
            {"id": cid, "seat": f"/challenges/{cid}/seat#{secret}", "page": f"/challenges/{cid}"},
            201,
        )

    async def challenge(self, request: Request) -> Response:
        cid = request.path_params["cid"]
        record = self.host.get(cid)
        if record is None:
            return _missing(request, f"no challenge {cid!r}")
        log = self.host.log_path(cid)
        data = None
        if log is not None:
            data = await run_in_threadpool(lambda: viewer_data(replay_log(log)))
        if request.query_params.get("format") == "json":
            return json_response({"challenge": record, "viewer": data})
        scores = " - ".join(str(s) for s in record["scores"])
        winner = record["winner"] or "nobody"
        summary = (
            f"{scores}, {winner} won; {record['result']}"
            if record["status"] == "done"
            else record["status"]
        )
        body = (
            f"<h1>challenge {pages.e(cid)}</h1>"
            f'<p><a href="{participant_url(record["participant"])}">'
            f"{pages.e(record['participant'])}</a> against {pages.e(record['opponent'])}, "
            f"{pages.e(record['game'])}, started {pages.e(record['started_at'])}; unrated</p>"
            f'<p>result: <span id="match-result">{pages.e(summary)}</span></p>'
        )
        scripts: tuple[str, ...] = ()
        if data is not None:
            payload = script_json(data)
            body += (
                '<div id="viewer" data-faces="italian"></div>'
                f'<script type="application/json" id="viewer-data">{payload}</script>'
            )
            scripts = ("/static/viewer.js", "/static/site.js")
        return html_response(
            pages.page(f"challenge {cid}", body, scripts=scripts, css=("/static/viewer.css",))
        )

    async def participant(self, request: Request) -> Response:
        name = request.path_params["name"]
        found = await run_in_threadpool(self.host.of, name)
        if request.query_params.get("format") == "json":
            return json_response({"participant": name, "challenges": found})
        rows = "".join(
            f'<tr><td><a href="/challenges/{pages.e(c["id"])}">{pages.e(c["id"])}</a></td>'
            f"<td>{pages.e(c['opponent'])}</td><td>{pages.e(c['status'])}</td>"
            f"<td>{pages.e(' - '.join(str(s) for s in c['scores']))}</td>"
            f"<td>{pages.e(c['winner'] or '')}</td></tr>"
            for c in found
        )
        body = (
            f"<h1>{pages.e(name)}</h1><h2>Challenges (unrated)</h2>"
            '<table id="challenges"><thead><tr><th>challenge</th><th>opponent</th>'
            "<th>status</th><th>score</th><th>winner</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>" + ("" if found else "<p>No challenge yet.</p>")
        )
        return html_response(pages.page(name, body))

    # The seat, delegated to the challenge's table ----------------------------------

    def _table(self, request: Request) -> Table | None:
        """The challenge's table, made the first time a page asks for it."""
        cid = request.path_params["cid"]
        table = self._tables.get(cid)
        if table is None:
            seating = self.host.seating(cid)
            if seating is None:
                return None
            table = self._tables[cid] = Table(
                seating.people,
                seating.variant,
                seating.names,
                seating.events,
                self.host.spectator_delay,
                key=cid,
                api=f"/api/challenges/{cid}/seat",
            )
        return table

    async def seat_page(self, request: Request) -> Response:
        table = self._table(request)
        if table is None:
            return _missing(request, "no such challenge is being played")
        return await table.seat_page(request)

    async def seat_events(self, request: Request) -> Response:
        table = self._table(request)
        return (
            await table.seat_events(request) if table else private_json({"error": "no table"}, 404)
        )

    async def seat_sit(self, request: Request) -> Response:
        table = self._table(request)
        return await table.sit(request) if table else private_json({"error": "no table"}, 404)

    async def seat_move(self, request: Request) -> Response:
        table = self._table(request)
        return await table.move(request) if table else private_json({"error": "no table"}, 404)


def _missing(request: Request, what: str) -> Response:
    if request.query_params.get("format") == "json" or request.url.path.startswith("/api/"):
        return json_response({"error": what}, 404)
    return Response(pages.not_found(what), 404, media_type="text/html", headers=HEADERS)
