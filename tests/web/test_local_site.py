"""`arena web DIR` over a real tournament: every page type, its JSON twin,
404s, match ids that need encoding, filters, pagination and escaping."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest

from arena.web.pages import match_url
from tests.support.sites import start_web

from .hostile_bot import FAULT, NAME

pytestmark = pytest.mark.process


def test_every_page_type_answers_with_its_json_twin(local_site, tournament):
    cid = tournament.name
    comps = local_site.json("/api/competitions")["competitions"]
    assert [c["id"] for c in comps] == [cid]
    assert comps[0]["status"] == "finished" and len(comps[0]["seed_commitment"]) == 64
    assert local_site.json("/?format=json") == local_site.json("/api/competitions")

    status, page, headers = local_site.get("/")
    assert status == 200 and cid in page and comps[0]["seed_commitment"] in page
    assert "default-src 'self'" in headers["content-security-policy"]

    twin = local_site.json(f"/api/c/{cid}")
    assert twin == local_site.json(f"/c/{cid}?format=json")
    info = twin["competition"]
    assert (info["matches_done"], info["matches_total"]) == (6, 6)
    rows = {r["bot"]: r for r in twin["standings"]["rows"]}
    assert set(rows) == {"random", "greedy", "hostile"}
    # The StandingsRow fields of the gRPC service, as `arena ratings` computes them.
    assert set(rows["greedy"]) == {
        "rank", "bot", "elo", "elo_low", "elo_high", "played", "wins", "losses", "draws", "faults"
    }  # fmt: skip
    assert rows["hostile"]["faults"] == 4 and rows["hostile"]["losses"] == 4
    assert twin["crosstable"]["greedy"]["hostile"] == [2, 0, 0]
    status, page, _ = local_site.get(f"/c/{cid}")
    assert status == 200
    assert 'id="standings"' in page and 'id="crosstable"' in page and "<svg" in page
    assert "95% interval" in page

    listed = local_site.json(f"/api/c/{cid}/matches")
    assert listed["total"] == 6 and len(listed["matches"]) == 6
    for m in listed["matches"]:
        assert set(m) >= {"id", "seats", "status", "final_scores", "termination", "log_chain"}
        url = match_url(m["id"])
        assert "#" not in url and url.count("/") == 3  # / # ~ are encoded in the match id
        status, page, _ = local_site.get(url)
        assert status == 200, url
        assert 'id="viewer"' in page and 'id="viewer-data"' in page
        twin = local_site.json(url + "?format=json")
        assert twin["match"] == m and twin["viewer"]["frames"]
        assert local_site.json("/api" + url) == twin

    engine = local_site.json(f"/api/e/{cid}/greedy")
    assert engine["standings_row"]["bot"] == "greedy" and engine["faults"] == []
    assert local_site.get(f"/e/{cid}/greedy")[0] == 200


def test_unknown_ids_are_404_in_html_and_json(local_site, tournament):
    cid = tournament.name
    for path in (
        "/c/nope",
        "/c/nope/matches",
        f"/m/{cid}/{quote('no~such#0/0', safe='')}",
        f"/m/nope/{quote('random~greedy#0/0', safe='')}",
        f"/e/{cid}/nobody",
        "/static/nothing.js",
        "/no/such/page",
    ):
        status, body, _ = local_site.get(path)
        assert status == 404, path
        assert "<script>" not in body
        status, body, headers = local_site.get(path + "?format=json")
        assert status == 404 and headers["content-type"].startswith("application/json")
    assert local_site.get("/api/c/nope")[0] == 404
    assert (
        local_site.get(f"/api/matches/{cid}/{quote('random~greedy#0/0', safe='')}/events")[0] == 404
    )


def test_filters_select_matches(local_site, tournament):
    cid = tournament.name
    api = f"/api/c/{cid}/matches"
    hostile = local_site.json(f"{api}?engine=hostile")
    assert hostile["total"] == 4
    assert all("hostile" in m["seats"] for m in hostile["matches"])
    faulty = local_site.json(f"{api}?fault=yes")
    assert {m["id"] for m in faulty["matches"]} == {m["id"] for m in hostile["matches"]}
    assert local_site.json(f"{api}?fault=no")["total"] == 2
    every = local_site.json(api)["matches"]
    greedy_won = [
        m
        for m in every
        if "winner_side" in m and m["seats"][m["winner_side"]] == "greedy"  # two seats
    ]
    assert local_site.json(f"{api}?engine=greedy&result=win")["total"] == len(greedy_won) >= 2
    assert local_site.json(f"{api}?engine=greedy&result=loss")["total"] == 4 - len(greedy_won)
    assert local_site.json(f"{api}?engine=hostile&result=loss")["total"] == 4
    assert local_site.json(f"{api}?result=pending")["total"] == 0
    status, page, _ = local_site.get(f"/c/{cid}/matches?engine=hostile&fault=yes")
    assert status == 200 and "4 match(es)" in page


def test_the_matches_table_pages_rather_than_loading_everything(tmp_path):
    from benchmarks.bench_web import build_store

    directory = build_store(tmp_path / "big", 130)
    site = start_web(directory)
    try:
        first = site.json("/api/c/big/matches")
        assert (first["total"], first["pages"], len(first["matches"])) == (130, 3, 50)
        last = site.json("/api/c/big/matches?page=3")
        assert last["page"] == 3 and len(last["matches"]) == 30
        ids = {
            m["id"] for p in (1, 2, 3) for m in site.json(f"/api/c/big/matches?page={p}")["matches"]
        }
        assert len(ids) == 130
        assert site.json("/api/c/big/matches?page=99")["page"] == 3  # clamped
        status, page, _ = site.get("/c/big/matches?page=2")
        assert status == 200 and "page 2 of 3" in page and page.count("<tr>") == 51
        assert 'href="/c/big/matches?page=3"' in page and 'href="/c/big/matches?page=1"' in page
    finally:
        site.stop()


def test_strings_from_bots_reach_the_page_as_text(local_site, tournament):
    cid = tournament.name
    engine = local_site.json(f"/api/e/{cid}/hostile")
    assert engine["versions"][0]["engine_name"] == NAME
    assert all(FAULT in f["message"] for f in engine["faults"])
    status, page, _ = local_site.get(f"/e/{cid}/hostile")
    assert status == 200
    for raw in (NAME, FAULT, "<i>1</i>"):
        assert raw not in page
    assert "&lt;b onmouseover=alert(&#x27;fault&#x27;)&gt;boom&lt;/b&gt;" in page
    assert "&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt;" in page
    # Comments travel inside the viewer's JSON, never as markup.
    hostile_match = local_site.json(f"/api/c/{cid}/matches?engine=hostile")["matches"][0]
    status, page, _ = local_site.get(match_url(hostile_match["id"]))
    assert "<img" not in _outside_json(page) and "<script>alert" not in page


def _outside_json(page: str) -> str:
    """The page without its embedded viewer data."""
    return re.sub(r'<script type="application/json"[^>]*>.*?</script>', "", page, flags=re.S)
