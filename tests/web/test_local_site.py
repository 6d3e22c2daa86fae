"""`arena web DIR` over a real tournament: every page type, its JSON twin,
404s, match ids that need encoding, filters, pagination and escaping."""

from __future__ import annotations

import re
import subprocess
from html import escape
from urllib.parse import quote

import pytest

from arena.web.pages import engine_url, match_url
from tests.support.paths import ARENA
from tests.support.sites import start_web
from tests.support.stores import results

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
        "rank", "bot", "elo", "elo_low", "elo_high", "played", "wins", "losses", "draws", "faults",
        "baseline", "sees_every_hand",
    }  # fmt: skip
    # A local tournament's built-in engines are its players; only a server's
    # `builtin:NAME` entries are baselines.
    assert not any(r["baseline"] for r in rows.values())
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


def said(seats: list[str], stored: tuple) -> str:
    """What the pages must say of a two-seat match, from its row in the store:
    the winner by name, the score from the winner's side."""
    _, winner, score0, score1, termination, reason, *_ = stored
    scores = (score0, score1)
    if termination == "forfeit":
        return f"forfeit: {seats[winner]} won ({reason})"
    assert termination == "completed"
    if winner is None:
        return f"drawn {score0}-{score1}"
    return f"{seats[winner]} won {scores[winner]}-{scores[1 - winner]}"


def test_every_result_names_its_winner(local_site, tournament):
    cid = tournament.name
    stored = results(tournament / "results.sqlite")
    listed = local_site.json(f"/api/c/{cid}/matches")["matches"]
    expected = {m["id"]: said(m["seats"], stored[m["id"].partition("/")[2]]) for m in listed}
    assert {m["id"]: m["result"] for m in listed} == expected
    assert {m["id"]: m["winner"] for m in listed} == {
        m["id"]: m["seats"][m["winner_side"]] for m in listed
    }
    assert any(" won 1" in r and not r.startswith("forfeit") for r in expected.values())
    assert any(r.startswith("forfeit: ") for r in expected.values())

    # The matches page: each row's result beside its match.
    _, page, _ = local_site.get(f"/c/{cid}/matches")
    rows = dict(re.findall(r'<tr><td><a href="([^"]+)">.*?</td><td>.*?</td><td>(.*?)</td>', page))
    assert rows == {match_url(k): escape(v) for k, v in expected.items()}

    # The match page: the sides as the viewer numbers them, and the result.
    for m in listed:
        _, page, _ = local_site.get(match_url(m["id"]))
        a, b = m["seats"]
        assert (
            f'side 1: <a href="{engine_url(cid, a)}">{a}</a> (seat 0); '
            f'side 2: <a href="{engine_url(cid, b)}">{b}</a> (seat 1)'
        ) in page
        assert f'id="match-result">{escape(expected[m["id"]])}</span>' in page
        twin = local_site.json(match_url(m["id"]) + "?format=json")
        assert twin["match"]["result"] == expected[m["id"]]
        # The viewer's own words for the same end, its sides named with their seats.
        outcome = twin["viewer"]["result"]["outcome"]
        w = m["winner_side"]
        assert outcome == expected[m["id"]].replace(m["winner"], f"{m['winner']}#{w}", 1)

    # The competition page: the latest results, newest first.
    latest = local_site.json(f"/api/c/{cid}")["latest"]
    assert {m["id"]: m["result"] for m in latest} == expected
    _, page, _ = local_site.get(f"/c/{cid}")
    shown = re.findall(r'<li><a href="([^"]+)">[^<]*</a>: ([^<]*)</li>', page)
    assert shown == [(match_url(m["id"]), escape(m["result"])) for m in latest]

    # A bot's page lists its matches with the same words.
    recent = local_site.json(f"/api/e/{cid}/greedy")["recent"]
    assert recent and all(m["result"] == expected[m["id"]] for m in recent)


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


PARTNERSHIP = """
name = "pairs"
variant = "scopa4"
format = "partnership"
target = 11
output = "{output}"
[[engine]]
name = "alice"
spec = "builtin:greedy"
[[engine]]
name = "bob"
spec = "builtin:greedy"
[[engine]]
name = "carol"
spec = "builtin:random"
[[engine]]
name = "dave"
spec = "builtin:random"
"""


def test_a_team_result_names_both_partners(tmp_path):
    output = tmp_path / "pairs"
    config = tmp_path / "pairs.toml"
    config.write_text(PARTNERSHIP.format(output=output))
    done = subprocess.run(
        [ARENA, "tournament", str(config)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    stored = results(output / "results.sqlite")
    site = start_web(output)
    try:
        listed = site.json("/api/c/pairs/matches")["matches"]
        assert len(listed) == len(stored) == 12
        for m in listed:
            _, winner, score0, score1, termination, *_ = stored[m["id"].partition("/")[2]]
            assert termination == "completed"
            seats = m["seats"]
            if winner is None:
                assert m["result"] == f"drawn {score0}-{score1}" and m["winner"] is None
                continue
            team = "+".join(sorted({seats[winner], seats[winner + 2]}))  # seats 0, 2 | 1, 3
            scores = (score0, score1)
            assert m["winner"] == team
            assert m["result"] == f"{team} won {scores[winner]}-{scores[1 - winner]}"
        assert any(m["winner"] == "alice+bob" for m in listed)
        first = listed[0]
        _, page, _ = site.get(match_url(first["id"]))
        a, b, c, d = first["seats"]
        link = {n: f'<a href="{engine_url("pairs", n)}">{n}</a>' for n in (a, b, c, d)}
        assert (
            f"side 1: {link[a]} (seat 0), {link[c]} (seat 2); "
            f"side 2: {link[b]} (seat 1), {link[d]} (seat 3)"
        ) in page
        assert f'id="match-result">{escape(first["result"])}</span>' in page
    finally:
        site.stop()
