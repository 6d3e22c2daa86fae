"""The HTML viewer: self-contained, and driven for real in headless Chromium."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest

from arena.logs.replay import replay_log
from arena.logs.viewer import VIEWER_ASSETS, frames, render_html, viewer_data
from arena.match.engine import Answer
from arena.match.settings import ClockSettings, FaultPolicy, MatchSettings, OnFault, parse_engine
from arena.play import run_match_sync
from arena.players.strategies import greedy_strategy
from arena.rules import Game, Move, Variant, card_name
from arena.transport.in_process import InProcessConnection
from tests.support.logs import write_log

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"

HOSTILE_NAMES = [
    '<img src=x onerror="window.__pwned=1">',
    "</script><script>window.__pwned=2</script>",
]
HOSTILE_COMMENT = '<b>bold</b><script>window.__pwned=3</script><!-- "quoted" & done'


def test_the_page_is_self_contained(tmp_path):
    path = tmp_path / "m.log"
    write_log(path, Game.SCOPA, 3)
    replay = replay_log(path)
    page = render_html(replay)
    assert "<script src" not in page and "<link" not in page and "@import" not in page
    assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", page)
    assert 'id="viewer-data"' in page and "ArrowRight" in page
    assert VIEWER_ASSETS["viewer.js"].strip()[:2] == "/*" and ".scopa-viewer" in page
    french = render_html(replay, faces="french")
    assert french != page
    assert len({page, french, render_html(replay, faces="short")}) == 3


def test_the_data_is_json_and_complete(tmp_path):
    path = tmp_path / "m.log"
    write_log(path, Game.SCOPA, 9)
    replay = replay_log(path)
    data = json.loads(json.dumps(viewer_data(replay)))
    assert data["seats"] == 2 and data["partners"] == [[0], [1]] and data["view_seat"] is None
    assert data["names"] == replay.names and data["status"] == replay.status()
    kinds = [f["kind"] for f in data["frames"]]
    assert kinds[0] == "deal" and kinds[-1] == "over" and kinds.count("scored") == len(replay.deals)
    assert data["result"]["final_scores"] == list(replay.result.final_scores)
    plays = [f for f in data["frames"] if f["kind"] == "play"]
    assert all(f["think_ms"] is not None and f["played"]["suit"] in "dcsb" for f in plays)
    assert any(f["captured"] for f in plays)
    scored = [f for f in data["frames"] if f["kind"] == "scored"]
    for f in scored:
        rows = f["scoring"]["rows"]
        assert sum(r["cards"] for r in rows) == 40
        assert sum(len(p) for p in f["piles"]) == 40


class Watched:
    """A page that records console errors, page errors and every request
    that is not to a file:// or data: address."""

    def __init__(self, browser: Any, **kwargs: Any) -> None:
        self.page = browser.new_page(**kwargs)
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on(
            "request",
            lambda r: (
                None if r.url.startswith(("file://", "data:")) else self.requests.append(r.url)
            ),
        )

    def open(self, html: Path) -> Any:
        self.page.goto(html.as_uri())
        self.page.wait_for_selector("#caption")
        return self.page

    def open_plain(self, html: Path) -> Any:
        self.page.goto(html.as_uri())
        return self.page

    def check_clean(self) -> None:
        assert self.errors == []
        assert self.requests == []
        self.page.close()


def open_viewer(browser, tmp_path, replay, name="viewer.html", **kwargs):
    html = tmp_path / name
    html.write_text(render_html(replay, **kwargs), encoding="utf-8")
    watched = Watched(browser, viewport={"width": 1200, "height": 900})
    return watched, watched.open(html)


def shorts(cards: list[dict[str, Any]]) -> list[str]:
    return ["A234567FCR"[c["rank"] - 1] + c["suit"] for c in cards]


def step(page) -> int:
    return int(page.evaluate("document.body.dataset.step"))


def places(expected: list[dict[str, Any]]) -> list[tuple[int, int, int]]:
    """Per frame: its deal, its step within the deal (0: as dealt) and the
    deal's last step, counted here from the frames' kinds, apart from the page."""
    out: list[tuple[int, int, int]] = []
    start = 0
    for i, f in enumerate(expected):
        if f["kind"] == "deal":
            start = i
        out.append((f["deal"], i - start, 0))
    last: dict[int, int] = {}
    for deal, n, _ in out:
        last[deal] = max(last.get(deal, 0), n)
    return [(deal, n, last[deal]) for deal, n, _ in out]


def seat_cards(page, seat: int) -> list[str]:
    return page.eval_on_selector_all(
        f'.seat[data-seat="{seat}"] .card', "els => els.map(e => e.dataset.card)"
    )


def table_cards(page) -> list[str]:
    return page.eval_on_selector_all("#table .card", "els => els.map(e => e.dataset.card)")


@pytest.mark.browser
@pytest.mark.process
def test_stepping_through_a_match_in_chromium(browser, tmp_path):
    path = tmp_path / "m.log"
    write_log(path, Game.SCOPA, 9)
    replay = replay_log(path)
    expected = frames(replay)
    where = places(expected)
    watched, page = open_viewer(browser, tmp_path, replay)

    def check(index: int) -> None:
        frame = expected[index]
        assert step(page) == index
        assert table_cards(page) == shorts(frame["table"])
        for seat, hand in enumerate(frame["hands"]):
            assert seat_cards(page, seat) == shorts(hand)
        deal, n, last = where[index]
        assert page.inner_text("#position") == (
            f"deal {deal}, step {n} of {last} ({index + 1} of {len(expected)} in the match)"
        )
        assert f"stock: {frame['stock']} card(s)" in page.inner_text("#stock")

    check(0)
    assert "deals" in page.inner_text("#caption")
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    check(3)
    page.keyboard.press("ArrowLeft")
    check(2)
    page.click("#next")
    page.click("#next")
    check(4)
    page.keyboard.press("End")
    check(len(expected) - 1)
    result = replay.result
    winner, loser = result.winner, 1 - result.winner
    scores = result.final_scores
    heading = f"{replay.names[winner]}#{winner} won {scores[winner]}-{scores[loser]}"
    assert page.inner_text("#result h2") == heading
    assert page.inner_text("#result p") == (
        f"{len(replay.deals)} deal(s) played; completed: {result.reason}."
    )
    page.keyboard.press("Home")
    check(0)

    # A deal by its number: typed, or chosen in the selector.
    starts = {f["deal"]: i for i, f in enumerate(expected) if f["kind"] == "deal"}
    assert len(starts) < 10
    page.keyboard.press("3")
    check(starts[3])
    page.select_option("#deal-select", "2")
    check(starts[2])

    # A step that captures: the played card and the captured cards highlighted.
    capture = next(i for i, f in enumerate(expected) if f["kind"] == "play" and f["captured"])
    page.keyboard.press("Home")
    for _ in range(capture):
        page.keyboard.press("ArrowRight")
    check(capture)
    frame = expected[capture]
    played = page.eval_on_selector_all("#move .card.played", "els => els.map(e => e.dataset.card)")
    taken = page.eval_on_selector_all("#move .card.captured", "els => els.map(e => e.dataset.card)")
    assert played == shorts([frame["played"]]) and taken == shorts(frame["captured"])
    assert "takes" in page.inner_text("#caption") and "thought" in page.inner_text("#caption")
    assert "last decision:" in page.inner_text(f'.seat[data-seat="{frame["seat"]}"]')

    # The scoring frame: primiera totals and who took the leftovers.
    scored = next(i for i, f in enumerate(expected) if f["kind"] == "scored" and f["leftover"])
    page.keyboard.press("Home")
    for _ in range(scored):
        page.keyboard.press("ArrowRight")
    check(scored)
    frame = expected[scored]
    assert page.locator("table.scoring tr").count() == 3
    text = page.inner_text("#scoring")
    for row in frame["scoring"]["rows"]:
        if row["primiera_total"] is not None:
            assert f"primiera {row['primiera_total']}" in text
    taker = replay.names[frame["leftover"]["side"]]
    assert f"go to {taker}#{frame['leftover']['side']}" in page.inner_text("#leftover")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "viewer.png"))
    assert (ARTIFACTS / "viewer.png").stat().st_size > 10_000
    watched.check_clean()


def open_at(browser, tmp_path, replay, fragment: str, clock: bool = False):
    """The offline viewer opened at ``fragment``; with ``clock``, on a clock
    that moves only when the test moves it (Playwright's fake timers)."""
    html = tmp_path / "viewer.html"
    html.write_text(render_html(replay), encoding="utf-8")
    watched = Watched(browser, viewport={"width": 1200, "height": 900})
    if clock:
        watched.page.clock.install(time=0)
    watched.page.goto(html.as_uri() + fragment)
    watched.page.wait_for_selector("#caption")
    if clock:
        watched.page.clock.pause_at(3_600_000)  # from here it moves only by run_for
    return watched, watched.page


def fragment(page) -> str:
    return page.evaluate("location.hash")


@pytest.mark.browser
@pytest.mark.process
def test_a_fragment_opens_a_position_and_follows_the_steps(browser, tmp_path):
    path = tmp_path / "m.log"
    write_log(path, Game.SCOPA, 9)
    replay = replay_log(path)
    expected = frames(replay)
    starts = {f["deal"]: i for i, f in enumerate(expected) if f["kind"] == "deal"}
    at = starts[2] + 14
    frame = expected[at]
    assert frame["kind"] == "play" and frame["deal"] == 2
    watched, page = open_at(browser, tmp_path, replay, "#deal=2&step=14")
    assert step(page) == at
    assert table_cards(page) == shorts(frame["table"])
    for seat, hand in enumerate(frame["hands"]):
        assert seat_cards(page, seat) == shorts(hand)
    assert page.inner_text("#position").startswith("deal 2, step 14 of ")
    assert page.input_value("#deal-select") == "2"
    # Step 14 is the position after the deal's 14th play.
    plays = [f for f in expected[starts[2] : at + 1] if f["kind"] == "play"]
    assert len(plays) == 14 and plays[-1] is frame
    page.keyboard.press("ArrowRight")
    assert fragment(page) == "#deal=2&step=15"
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert fragment(page) == "#deal=2&step=13"
    page.select_option("#deal-select", "3")
    assert fragment(page) == "#deal=3&step=0" and step(page) == starts[3]
    page.keyboard.press("ArrowLeft")  # back into deal 2: its scoring, the step after its last play
    scored = starts[3] - 1
    assert expected[scored]["kind"] == "scored"
    assert fragment(page) == f"#deal=2&step={scored - starts[2]}"
    # An address typed into the page's bar while it is open moves it too.
    page.evaluate("location.hash = '#deal=1&step=3'")
    page.wait_for_function("() => document.body.dataset.step === '3'")
    watched.check_clean()


@pytest.mark.browser
@pytest.mark.process
def test_a_fragment_that_names_no_position_opens_the_start(browser, tmp_path):
    path = tmp_path / "m.log"
    write_log(path, Game.SCOPA, 9)
    replay = replay_log(path)
    expected = frames(replay)
    deals = len(replay.deals)
    beyond = sum(1 for f in expected if f["deal"] == 2)  # one past deal 2's last step
    for bad in (
        f"#deal={deals + 1}&step=0",
        f"#deal=2&step={beyond}",
        "#deal=0&step=0",
        "#deal=2&step=-1",
        "#deal=two&step=1",
        "#deal=2&step=1e1",
        "#step=14",
        "#deal=99999999999999999999&step=0",
        "#%zz",
    ):
        watched, page = open_at(browser, tmp_path, replay, bad)
        assert step(page) == 0, bad
        assert page.inner_text("#position").startswith("deal 1, step 0 of "), bad
        watched.check_clean()
    watched, page = open_at(browser, tmp_path, replay, "#deal=2")  # no step: the deal as dealt
    assert expected[step(page)]["kind"] == "deal" and expected[step(page)]["deal"] == 2
    watched.check_clean()


@pytest.mark.browser
@pytest.mark.process
def test_autoplay_steps_on_its_own_pauses_and_stops_at_the_end(browser, tmp_path):
    path = tmp_path / "m.log"
    write_log(path, Game.SCOPA, 9)
    replay = replay_log(path)
    expected = frames(replay)
    watched, page = open_at(browser, tmp_path, replay, "", clock=True)
    assert page.inner_text("#play") == "▷ play"
    assert page.input_value("#speed") == "1000"  # normal: a step a second
    page.keyboard.press(" ")
    assert page.get_attribute("#viewer", "data-playing") == "1"
    assert page.inner_text("#play") == "❚❚ pause"
    page.clock.run_for(999)
    assert step(page) == 0
    page.clock.run_for(1)
    assert step(page) == 1
    page.clock.run_for(3000)
    assert step(page) == 4 and fragment(page) == "#deal=1&step=4"
    page.keyboard.press(" ")  # pause
    assert page.get_attribute("#viewer", "data-playing") == "0"
    page.clock.run_for(60_000)
    assert step(page) == 4
    # The button, at the fastest speed, from near the end: it stops on the last step.
    page.select_option("#speed", "120")
    page.keyboard.press("End")
    for _ in range(3):
        page.keyboard.press("ArrowLeft")
    page.click("#play")
    page.clock.run_for(120 * 3)
    assert step(page) == len(expected) - 1
    assert page.get_attribute("#viewer", "data-playing") == "0"
    assert page.inner_text("#play") == "▷ play"
    page.clock.run_for(10_000)
    assert step(page) == len(expected) - 1
    assert "won" in page.inner_text("#result h2")
    # Played again at the end, it starts over.
    page.keyboard.press(" ")
    assert step(page) == 0 and page.get_attribute("#viewer", "data-playing") == "1"
    page.clock.run_for(120 * 2)
    assert step(page) == 2
    watched.check_clean()


@pytest.mark.browser
@pytest.mark.process
def test_italian_and_french_faces_and_the_switch(browser, tmp_path):
    path = tmp_path / "m.log"
    write_log(path, Game.SCOPA, 5)
    replay = replay_log(path)
    watched, page = open_viewer(browser, tmp_path, replay)
    first = page.locator("#table .card").first
    italian = first.get_attribute("aria-label")
    assert re.fullmatch(r"(Asso|[2-7]|Fante|Cavallo|Re) di (denari|coppe|spade|bastoni)", italian)
    page.click("#faces")
    french = first.get_attribute("aria-label")
    assert re.fullmatch(
        r"[A2-7JQK][♦♥♠♣]", page.locator("#table .card").first.get_attribute("aria-label")
    )
    assert french != italian
    watched.check_clean()
    watched, page = open_viewer(browser, tmp_path, replay, "french.html", faces="french")
    assert re.fullmatch(
        r"[A2-7JQK][♦♥♠♣]", page.locator("#table .card").first.get_attribute("aria-label")
    )
    watched.check_clean()
    watched, page = open_viewer(browser, tmp_path, replay, "short.html", faces="short")
    label = page.locator("#table .card").first.get_attribute("aria-label")
    assert re.fullmatch(r"[A2-7FCR][dcsb]", label)
    watched.check_clean()


@pytest.mark.browser
@pytest.mark.process
def test_scopone_shows_four_seats_with_partners(browser, tmp_path):
    path = tmp_path / "m.log"
    write_log(path, Game.SCOPONE, 4)
    replay = replay_log(path)
    watched, page = open_viewer(browser, tmp_path, replay)
    assert page.locator(".seat").count() == 4
    for seat, partner in ((0, 2), (1, 3), (2, 0), (3, 1)):
        box = page.locator(f'.seat[data-seat="{seat}"]')
        assert f"partner of seat {partner}" in box.inner_text()
        assert len(seat_cards(page, seat)) == 9
    places = [page.get_attribute(f'.seat[data-seat="{s}"]', "data-place") for s in range(4)]
    assert places == ["bottom", "right", "top", "left"]
    assert "to move" in page.inner_text(".seat.to-move")
    assert "dealer" in page.inner_text(f'.seat[data-seat="{replay.deals[0].dealer}"]')
    watched.check_clean()


@pytest.mark.browser
@pytest.mark.process
def test_one_seats_view_hides_the_other_hands(browser, tmp_path):
    path = tmp_path / "m.log"
    write_log(path, Game.SCOPONE, 4)
    replay = replay_log(path)
    watched, page = open_viewer(browser, tmp_path, replay, seat=2)
    assert len(seat_cards(page, 2)) == 9
    for other in (0, 1, 3):
        assert seat_cards(page, other) == []
        assert page.locator(f'.seat[data-seat="{other}"] .back').count() == 9
    watched.check_clean()


@pytest.mark.browser
@pytest.mark.process
def test_a_seat_view_has_no_card_of_another_hand_anywhere(browser, tmp_path):
    path = tmp_path / "m.log"
    write_log(path, Game.SCOPA, 2)
    replay = replay_log(path)
    deal = replay.deals[0]
    hidden = {card_name(c) for c in _cards(deal.start.hands[1])}
    page_text = render_html(replay, seat=0)
    data = json.loads(
        re.search(r'id="viewer-data" type="application/json">(.*?)</script>', page_text, re.S)
        .group(1)
        .replace("<\\/", "</")
    )
    assert all(isinstance(f["hands"][1], int) for f in data["frames"])
    watched, page = open_viewer(browser, tmp_path, replay, seat=0)
    shown = set(page.eval_on_selector_all(".card", "els => els.map(e => e.dataset.card)"))
    # The first frame: nothing of seat 1's hand is on the table or in a pile yet.
    assert not shown & hidden
    assert page.locator('.seat[data-seat="1"] .card').count() == 0
    watched.check_clean()


def _cards(mask: int) -> list[int]:
    return [c for c in range(40) if mask >> c & 1]


class Chatty(InProcessConnection):
    """An in-process bot whose every decision carries a hostile comment."""

    def _decide(self, decision):  # type: ignore[no-untyped-def]
        answer, elapsed = super()._decide(decision)
        return dataclasses.replace(answer, comment=HOSTILE_COMMENT), elapsed


@pytest.mark.browser
@pytest.mark.process
def test_hostile_names_and_comments_are_shown_as_text(browser, tmp_path):
    path = tmp_path / "hostile.log"
    engines = [(name, Chatty(greedy_strategy(), name="chatty")) for name in HOSTILE_NAMES]
    settings = MatchSettings(
        Variant(Game.SCOPA), seed=3, match_id="hostile", clock=ClockSettings(move_time=5)
    )
    run_match_sync(engines, settings, log=path)
    replay = replay_log(path)
    assert replay.names == HOSTILE_NAMES
    watched, page = open_viewer(browser, tmp_path, replay)
    page.keyboard.press("ArrowRight")
    assert page.evaluate("typeof window.__pwned") == "undefined"
    for name in HOSTILE_NAMES:
        assert page.get_by_text(name).count() > 0
    assert page.get_by_text(HOSTILE_COMMENT).count() == 1
    assert page.locator("#viewer img, #viewer b, #viewer script").count() == 0
    page.keyboard.press("End")
    assert page.get_by_text(HOSTILE_NAMES[1] + "#1").count() > 0
    assert page.evaluate("typeof window.__pwned") == "undefined"
    watched.check_clean()


@pytest.mark.browser
@pytest.mark.process
def test_a_live_page_appends_frames_and_follows_the_newest(browser, tmp_path):
    from arena.web.live import LiveFrames

    events: list[Any] = []
    specs = [parse_engine("a=builtin:greedy"), parse_engine("b=builtin:random")]
    settings = MatchSettings(
        Variant(Game.SCOPA), seed=5, match_id="live", clock=ClockSettings(move_time=5)
    )
    run_match_sync(specs, settings, spectate=events.append)
    live = LiveFrames(settings.variant, ["a", "b"])
    for event in events[:5]:
        live.feed(event)
    rest = [frame for event in events[5:] for frame in live.feed(event)]
    html = tmp_path / "live.html"
    html.write_text(
        "<!DOCTYPE html><html><head><meta charset='utf-8'><style>"
        + VIEWER_ASSETS["viewer.css"]
        + "</style></head><body><div id='viewer'></div><script>"
        + VIEWER_ASSETS["viewer.js"]
        + "</script></body></html>",
        encoding="utf-8",
    )
    watched = Watched(browser)
    page = watched.open_plain(html)
    data = live.data()
    data["frames"] = data["frames"][:5]
    data["result"] = None
    page.evaluate(
        "d => { window.v = ScopaViewer.mount("
        "document.getElementById('viewer'), d, {faces: 'french'}); }",
        data,
    )
    assert step(page) == 0
    page.keyboard.press("End")
    assert step(page) == 4
    page.evaluate("f => window.v.append(f)", rest[0])
    assert step(page) == 5  # at the end: it follows
    page.keyboard.press("Home")
    page.evaluate("fs => fs.forEach(f => window.v.append(f))", rest[1:])
    assert step(page) == 0  # looking back: it stays
    page.evaluate("window.v.show(1e9)")
    assert step(page) == 5 + len(rest) - 1
    outcome = rest[-1]["result"]["outcome"]
    assert re.fullmatch(r"(a#0|b#1) won \d+-\d+|drawn \d+-\d+", outcome)
    assert page.inner_text("#result h2") == outcome
    assert page.locator(".seat .card").count() == 0  # a spectator sees no hand
    watched.check_clean()


class Cheat(InProcessConnection):
    """An in-process bot that answers its first decision with a card it does not hold."""

    def _decide(self, decision):  # type: ignore[no-untyped-def]
        answer, elapsed = super()._decide(decision)
        if decision.number == 0:
            observation = decision.observation
            foreign = next(
                c for c in range(40) if not (observation.hand | observation.table) >> c & 1
            )
            answer = Answer(Move(foreign, 0), comment="<i>oops</i>")
        return answer, elapsed


@pytest.mark.browser
@pytest.mark.process
def test_faults_are_shown_as_text(browser, tmp_path):
    path = tmp_path / "fault.log"
    engines = [("<u>cheat</u>", Cheat(greedy_strategy(), name="cheat"))]
    engines.append(("fair", InProcessConnection(greedy_strategy(), name="fair")))
    policy = FaultPolicy(on_fault=OnFault.SUBSTITUTE, strikes=2)
    settings = MatchSettings(
        Variant(Game.SCOPA),
        seed=2,
        match_id="fault",
        clock=ClockSettings(move_time=5),
        policy=policy,
    )
    run_match_sync(engines, settings, log=path)
    replay = replay_log(path)
    expected = frames(replay)
    faulted = [i for i, f in enumerate(expected) if f["fault"]]
    assert faulted
    watched, page = open_viewer(browser, tmp_path, replay)
    for _ in range(faulted[0]):
        page.keyboard.press("ArrowRight")
    assert step(page) == faulted[0]
    fault = expected[faulted[0]]["fault"]
    assert page.inner_text("#note .fault") == f"Fault ({fault['kind']}): {fault['message']}"
    assert page.get_by_text("<i>oops</i>").count() == 1
    assert page.locator("#viewer i, #viewer u").count() == 0
    page.keyboard.press("End")
    assert page.inner_text("#result h2") == expected[-1]["result"]["outcome"]
    assert page.inner_text("#result h2").startswith("forfeit: fair#1 won (seat 0 illegal")
    watched.check_clean()
