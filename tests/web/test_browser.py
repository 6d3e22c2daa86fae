"""The site in headless Chromium against real servers with real matches:
every page type loads, a live match is followed to its end, and nothing
logs a console error or asks for anything outside the site."""

from __future__ import annotations

import re
import time

import pytest

from arena.web.pages import engine_url, match_url
from arena.wire.v1 import server_pb2 as spb
from tests.support.server import ORGANISER, auth, wait_for
from tests.support.sites import AFTER_CHECK
from tests.support.waiting import until

from .test_server_ladder import BASELINES, JUDGED, open_ladder
from .test_server_site import open_cup

pytestmark = [pytest.mark.browser, pytest.mark.process]


class Watched:
    """A page whose console errors, script errors and outside requests are kept."""

    def __init__(self, browser, base: str) -> None:
        self.base = base
        self.context = browser.new_context()
        self.page = self.context.new_page()
        self.problems: list[str] = []
        self.page.on(
            "console",
            lambda m: (
                self.problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None
            ),
        )
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))

        def guard(route) -> None:
            url = route.request.url
            if url.startswith(self.base + "/") or url.startswith("data:"):
                route.continue_()
            else:
                self.problems.append(f"request leaving the site: {url}")
                route.abort()

        self.context.route("**/*", guard)

    def load(self, path: str) -> None:
        reply = self.page.goto(self.base + path)
        assert reply is not None and reply.status == 200, path
        self.page.wait_for_load_state("load")

    def close(self) -> None:
        self.context.close()
        assert not self.problems, self.problems


def test_every_page_of_a_tournament_loads_cleanly(browser, local_site, tournament):
    cid = tournament.name
    watched = Watched(browser, local_site.base)
    try:
        watched.load("/")
        watched.page.click(f'a[href="/c/{cid}"]')
        watched.page.wait_for_selector("#standings tbody tr")
        assert watched.page.locator("#standings tbody tr").count() == 3
        assert watched.page.locator("svg.plot polyline").count() == 3
        watched.load(f"/c/{cid}/matches")
        assert watched.page.locator("#matches tbody tr").count() == 6
        watched.page.select_option('select[name="engine"]', "hostile")
        watched.page.click("form.filters button")
        watched.page.wait_for_url("**engine=hostile**")
        assert watched.page.locator("#matches tbody tr").count() == 4
        first = watched.page.locator("#matches tbody tr a").first
        first.click()
        watched.page.wait_for_selector("#viewer *")
        assert "/m/" in watched.page.url
        listed = local_site.json(f"/api/c/{cid}/matches")["matches"]
        for m in listed:
            watched.load(match_url(m["id"]))
            assert watched.page.locator("#viewer *").count() > 0
        for name in ("greedy", "hostile"):
            watched.load(engine_url(cid, name))
        # Markup from the bot is on the page as text, and ran nowhere.
        assert "<b onmouseover" in watched.page.inner_text("#faults")
        assert watched.page.evaluate("document.querySelectorAll('#faults b').length") == 0
    finally:
        watched.close()


def test_a_site_match_page_opens_at_its_fragment_and_plays_on(browser, local_site, tournament):
    """The site serves the same viewer as the offline file: a linked position
    opens there, and autoplay runs there (on a clock the test moves)."""
    cid = tournament.name
    key = next(
        m["id"]
        for m in local_site.json(f"/api/c/{cid}/matches")["matches"]
        if m["termination"] == "completed"
    )
    frames = local_site.json(match_url(key) + "?format=json")["viewer"]["frames"]
    second = next(i for i, f in enumerate(frames) if f["kind"] == "deal" and f["deal"] == 2)
    watched = Watched(browser, local_site.base)
    try:
        watched.page.clock.install(time=0)
        watched.load(match_url(key) + "#deal=2&step=5")
        page = watched.page
        page.clock.pause_at(3_600_000)
        assert page.evaluate("document.body.dataset.step") == str(second + 5)
        assert page.inner_text("#position").startswith("deal 2, step 5 of ")
        page.keyboard.press(" ")
        page.clock.run_for(2000)  # two steps at the normal speed
        assert page.evaluate("location.hash") == "#deal=2&step=7"
        page.click("#play")  # pause
        page.clock.run_for(10_000)
        assert page.evaluate("location.hash") == "#deal=2&step=7"
    finally:
        watched.close()


def test_a_live_match_is_followed_to_its_end_in_the_browser(
    browser, server_site, bots, hostile_bot
):
    stub = server_site.stub()
    comp = open_cup(stub, bots["greedy"], hostile_bot(think=0.05))
    key = f"{comp}/alice-greedy~carol-hostile#0/1"
    watched = Watched(browser, server_site.base)
    try:
        watched.load("/")
        stub.StartCompetition(spb.CompetitionRef(id=comp), metadata=auth(ORGANISER), timeout=10)
        deadline = time.monotonic() + 30
        while server_site.get(match_url(key))[0] != 200:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        watched.load(match_url(key))
        assert watched.page.get_attribute("#viewer", "data-live")
        watched.page.wait_for_selector("body[data-live-ended='1']", timeout=120_000)
        assert watched.page.inner_text("#live-status") == "the match has ended"
        # The result, once recorded, as the match's twin writes it: the winner by name.
        watched.page.wait_for_selector("body[data-result-read='1']", timeout=30_000)
        ended = server_site.json(match_url(key) + "?format=json")["match"]
        assert ended["winner"] in ("alice-greedy", "carol-hostile")
        assert watched.page.inner_text("#match-result") == ended["result"]
        assert watched.page.locator("#viewer *").count() > 0
        wait_for(stub, comp, "finished")
        watched.load(f"/c/{comp}")
        assert watched.page.locator("#standings tbody tr").count() == 2
        watched.load(f"/c/{comp}/matches")
        watched.load(match_url(key))
        assert watched.page.get_attribute("#viewer", "data-live") is None
        watched.load(engine_url(comp, "carol-hostile"))
        assert "owner carol" in watched.page.inner_text("#liveness")
    finally:
        watched.close()


def test_standings_refresh_when_a_match_ends(browser, server_site, bots, hostile_bot):
    stub = server_site.stub()
    comp = open_cup(stub, bots["greedy"], hostile_bot(think=0.05))
    watched = Watched(browser, server_site.base)
    try:
        stub.StartCompetition(spb.CompetitionRef(id=comp), metadata=auth(ORGANISER), timeout=10)
        watched.load(f"/c/{comp}")
        assert watched.page.get_attribute("#competition", "data-status") == "running"
        before = watched.page.locator("#standings tbody tr").count()
        # No reload: the page's script fills the table as each result is pushed.
        # (Polled from here: the site's policy lets no string be run as script.)
        page = watched.page
        until(lambda: page.inner_text("#progress-text").startswith("2 of 2"), 60)
        until(lambda: page.locator("#standings tbody tr").count() == 2, 30)
        assert before == 0 or watched.page.locator("#standings tbody tr").count() == 2
        names = watched.page.locator("#standings tbody tr td a").all_inner_texts()
        # The latest results too, each naming its winner, newest first.
        latest = server_site.json(f"/api/c/{comp}")["latest"]
        until(lambda: page.locator("#latest li").count() == 2, 30)
        assert page.locator("#latest li").all_inner_texts() == [
            f"{m['id'].partition('/')[2]}: {m['result']}" for m in latest
        ]
        assert all(" won " in m["result"] for m in latest)
        assert sorted(names) == ["alice-greedy", "carol-hostile"]
        # Pushed: the page read its standings again once per match's end, told
        # by the results stream (it has no timer).
        assert int(page.get_attribute("#competition", "data-refreshed") or 0) >= 1
    finally:
        watched.close()


def test_a_ladders_versions_and_baseline_tags_refresh_when_a_match_ends(
    browser, server_site, bots, hostile_bot
):
    """The page's script fills the versions table and tags baselines as the
    server's page does, each time a match of the ladder ends."""
    stub = server_site.stub()
    comp = open_ladder(stub, bots, hostile_bot(think=0, fail_at=AFTER_CHECK))
    watched = Watched(browser, server_site.base)
    try:
        watched.load(f"/c/{comp}")
        page = watched.page
        until(lambda: int(page.get_attribute("#competition", "data-refreshed") or 0) >= 1, 60)
        cells = page.eval_on_selector_all(
            "#versions tbody tr",
            "rows => rows.map(r => Array.from(r.querySelectorAll('td'), td => td.innerText))",
        )
        assert {c[0]: c[2] for c in cells} == JUDGED
        for player, owner, _state, reason, rating, sets, entered in cells:
            assert owner == player.partition("-")[0] and entered.startswith("20")
            assert re.fullmatch(r"[+-]\d+ ± \d+", rating) and int(sets) >= 0, rating
            assert bool(reason) == (player in ("alice-bot@1", "carol-bot@1"))
        # Read in one go: the script refills the table whenever a match ends, and
        # reading it row by row could take a name before a refill and a tag after.
        tags = dict(
            page.eval_on_selector_all(
                "#standings tbody tr",
                "rows => rows.map(r => [r.querySelector('a').textContent,"
                " r.querySelectorAll('.tag').length])",
            )
        )
        assert tags and all(count == (name in BASELINES) for name, count in tags.items())
    finally:
        stub.CloseCompetition(spb.CompetitionRef(id=comp), metadata=auth(ORGANISER), timeout=10)
        watched.close()


# What makes the viewer look as it does, read from every one of its elements.
LOOK = """root => Array.from(root.querySelectorAll("*")).map(el => {
  const s = getComputedStyle(el), r = el.getBoundingClientRect();
  return [el.tagName, String(el.className.baseVal ?? el.className), Math.round(r.width),
          Math.round(r.height), s.fontFamily, s.fontSize, s.fontWeight, s.color,
          s.backgroundColor, s.borderTopWidth, s.display, s.padding, s.margin];
})"""


def test_the_viewer_looks_the_same_in_a_site_page_as_offline(
    browser, local_site, tournament, tmp_path
):
    """The site's own style must not reach into the viewer (a clash once
    broke its layout there): element by element, the same sizes and style
    as the offline file, at the same frame of the same match."""
    from arena.logs.replay import replay_log
    from arena.logs.viewer import render_html

    cid = tournament.name
    match = local_site.json(f"/api/c/{cid}/matches")["matches"][0]
    log = tournament / "logs" / f"{match['id'].partition('/')[2].replace('/', '_')}.log"
    offline = tmp_path / "viewer.html"
    offline.write_text(render_html(replay_log(log)), encoding="utf-8")
    looks = []
    target = None  # the viewer's width in the site page: the offline one is given the same
    for url in (local_site.base + match_url(match["id"]), offline.as_uri()):
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        try:
            page.goto(url)
            page.wait_for_selector("#viewer .card")
            for _ in range(12):  # a few plays into the first deal
                page.keyboard.press("ArrowRight")
            width = page.eval_on_selector("#viewer", "el => el.getBoundingClientRect().width")
            if target is not None and width != target:
                # The offline file's viewer fills its window (up to 1228 px).
                page.set_viewport_size({"width": round(target), "height": 900})
                width = page.eval_on_selector("#viewer", "el => el.getBoundingClientRect().width")
            target = width
            looks.append((width, page.eval_on_selector("#viewer", LOOK)))
        finally:
            page.close()
    (site_width, site_look), (file_width, file_look) = looks
    assert site_width == file_width
    assert len(site_look) == len(file_look) > 50
    differing = [(a, b) for a, b in zip(site_look, file_look, strict=True) if a != b]
    assert not differing, (site_width, file_width, differing[:5])
