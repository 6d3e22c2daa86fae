"""The collusion audit on the competition server (docs/audit.md): a team
competition probes its remote partner seats by default; the organiser gets
the audit, over gRPC and on the site behind its token; a participant learns
only that decisions are probed."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import grpc
import pytest

from arena.wire.v1 import server_pb2 as spb
from tests.support.server import ORGANISER, auth, register, wait_for
from tests.support.sites import start_server

pytestmark = pytest.mark.process

SCOPONE = """
name = "audited"
variant = "scopone"
target = 0
deal_limit = 1
bots = ["alice-greedy", "bob-random"]
allow_shared_partners = true
[probes]
rate = 0.5
[clock]
move_time = "1s"
"""


def _get(url: str, token: str | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(url)
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=60) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_the_organiser_audits_a_team_competition_and_a_participant_cannot(tmp_path, bots):
    token_file = tmp_path / "organiser.token"
    token_file.write_text(ORGANISER)
    site = start_server(tmp_path / "data", token_file)
    try:
        stub = site.stub()
        alice = register(stub, "alice", "alice-greedy", bots["greedy"])
        register(stub, "bob", "bob-random", bots["random"])
        request = spb.CreateCompetitionRequest(config=SCOPONE)
        comp = stub.CreateCompetition(request, metadata=auth(ORGANISER), timeout=30)
        assert comp.probed  # what everyone is told
        stub.StartCompetition(spb.CompetitionRef(id=comp.id), metadata=auth(ORGANISER), timeout=30)
        wait_for(stub, comp.id, "finished")

        audit = spb.AuditRequest(id=comp.id, samples=4)
        for who, code in [(None, "UNAUTHENTICATED"), (alice, "PERMISSION_DENIED")]:
            with pytest.raises(grpc.RpcError) as refused:
                stub.AuditCompetition(audit, metadata=auth(who) if who else (), timeout=60)
            assert refused.value.code().name == code, refused.value.details()
        report = stub.AuditCompetition(audit, metadata=auth(ORGANISER), timeout=300)
        assert report.logs == 1  # one match: not duplicate (remote bots could remember a twin)
        found = json.loads(report.json)
        pairs = {tuple(p["partnership"]): p for p in found["probes"]}
        assert set(pairs) == {("alice-greedy", "alice-greedy"), ("bob-random", "bob-random")}
        assert all(p["probes"] > 0 for p in pairs.values())
        assert found["values"]["partnerships"]
        assert "probes:" in report.text and "p-value" in report.text.lower()

        # The site: the page for all, its data for the organiser alone.
        status, _ = _get(f"{site.base}/api/c/{comp.id}/audit")
        assert status == 401
        status, body = _get(f"{site.base}/api/c/{comp.id}/audit", alice)
        assert status == 403 and "organiser" in body["error"]
        status, body = _get(f"{site.base}/api/c/{comp.id}/audit", ORGANISER)
        assert status == 200 and body["logs"] == 1
        assert {tuple(p["partnership"]) for p in body["probes"]} == set(pairs)
        assert body["saved"]["values"] == found["values"]  # the last full audit, kept
        with urllib.request.urlopen(f"{site.base}/c/{comp.id}", timeout=30) as page:
            html = page.read().decode()
        assert 'id="audited"' in html and "probed" in html
        assert "disagree" not in html  # participants see only that an audit runs
    finally:
        site.stop()
