"""The organiser's audit page of a competition (docs/audit.md), on the
competition server's site: behind the organiser's token, sent in the
Authorization header of the page's one request (never in an address).

It shows, per partnership, the probes' test computed from the finished
matches' logs as they stand, and the last full report `arena remote audit`
saved (the log audit's p-values, which take playouts to compute). Anyone
else is refused; a participant sees on the competition's page only that its
partner seats are probed.

The site knows the server only through ``AuditHost``: it imports nothing of it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Protocol

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from arena.errors import ArenaError
from arena.web import pages
from arena.web.app import html_response
from arena.web.table import private_json


class AuditHost(Protocol):
    def is_organiser(self, token: str) -> bool: ...
    def finished_logs(self, cid: str) -> list[Path] | None: ...  # None: no such competition
    def saved_audit(self, cid: str) -> Path: ...  # where `arena remote audit` saves its report


def audit_routes(host: AuditHost) -> list[BaseRoute]:
    pages_ = AuditPages(host)
    return [
        Route("/c/{cid}/audit", pages_.page),
        Route("/api/c/{cid}/audit", pages_.report),
    ]


class AuditPages:
    def __init__(self, host: AuditHost) -> None:
        self.host = host

    async def page(self, request: Request) -> Response:
        cid = request.path_params["cid"]
        body = (
            f"<h1>Collusion audit of {pages.e(cid)}</h1>"
            "<p>For the organiser: per partnership, whether its seats' real answers stand "
            "apart from the probes' (the same request under other match ids), and the log "
            "audit's p-value from the last <code>arena remote audit</code>. Evidence to "
            "weigh, never a verdict (docs/audit.md says how each is computed).</p>"
            '<form id="audit-form">'
            '<p><label>Organiser token: <input type="password" name="token" '
            'autocomplete="off" required></label></p>'
            '<p><button type="submit">Show the audit</button></p>'
            '<p id="audit-message" role="status"></p></form>'
            f'<div id="audit" data-competition="{pages.e(cid)}"></div>'
        )
        return html_response(pages.page(f"Audit: {cid}", body, scripts=("/static/audit.js",)))

    async def report(self, request: Request) -> Response:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return private_json({"error": "send the organiser token (Authorization: Bearer)"}, 401)
        if not await run_in_threadpool(self.host.is_organiser, token.strip()):
            return private_json({"error": "only the organiser may see the audit"}, 403)
        cid = request.path_params["cid"]
        try:
            found = await run_in_threadpool(self._report, cid)
        except ArenaError as e:  # a damaged log: say which
            return private_json({"error": str(e)}, 409)
        if found is None:
            return private_json({"error": f"no competition {cid!r}"}, 404)
        return private_json(found)

    def _report(self, cid: str) -> dict[str, Any] | None:
        from arena.audit.report import audit, to_json

        logs = self.host.finished_logs(cid)
        if logs is None:
            return None
        probes = to_json(audit(logs, values=False))["probes"] if logs else []
        saved: Any = None
        try:
            saved = json.loads(self.host.saved_audit(cid).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            saved = None
        return {"competition": cid, "logs": len(logs), "probes": probes, "saved": saved}
