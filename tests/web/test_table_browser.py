"""A person at the table in headless Chromium: whole matches played by
clicking and by keyboard, against bots, with a reload in the middle; a
crafted request refused with its reason; a seat played beside a full house
of spectators from its own address; the logs verified afterwards."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import requests

from arena.logs.replay import replay_log
from arena.match.outcome import Termination
from arena.transport.human import MAX_SEAT_STREAMS
from arena.web.app import STREAMS_PER_CLIENT
from tests.support.tables import host_table

from .test_browser import Watched
from .test_table import Spectators

pytestmark = [pytest.mark.browser, pytest.mark.process]

# Where to keep the screenshots (docs/ when taking the documentation's).
SHOTS = os.environ.get("ARENA_TABLE_SHOTS")


def sit(page, name: str) -> None:
    page.wait_for_selector("form.sit input")
    page.fill("form.sit input", name)
    page.click("form.sit button")


def one_move(page, by_keyboard: bool) -> bool:
    """Make the seat's next move; False once the match is over."""
    waiting = "#table[data-ask]:not([data-ask='']), #table[data-over='1']"
    page.wait_for_selector(waiting, timeout=60_000)
    root = page.locator("#table")
    if root.get_attribute("data-over") == "1":
        return False
    ask = root.get_attribute("data-ask")
    if by_keyboard:
        page.keyboard.press("1")
    else:
        page.locator("#hand button.playable").first.click()
    if page.locator("#choices .choice").count():
        if by_keyboard:
            page.keyboard.press("1")
        else:
            page.locator("#choices .choice").first.click()
    page.wait_for_function(
        "ask => document.getElementById('table').dataset.ask !== ask", arg=ask, timeout=30_000
    )
    return True


def shoot(page, directory: Path, name: str) -> Path:
    path = (Path(SHOTS) if SHOTS else directory) / name
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 10_000
    return path


def test_a_person_plays_a_whole_scopa_match_by_clicking_with_a_reload(browser, tmp_path):
    log = tmp_path / "scopa.log"
    table = host_table(["me=human", "g=builtin:greedy"], "--target", "4", "--seed", "11", log=log)
    watched = Watched(browser, table.base)
    try:
        watched.load(f"/seat#{table.secrets[0]}")
        sit(watched.page, "Ada")
        page = watched.page
        page.wait_for_selector("#hand button.playable", timeout=30_000)
        assert page.locator("#clock").get_attribute("data-running") == "1"
        shoot(page, tmp_path, "table-scopa.png")
        # A request the page never makes: a card not in the hand. Refused, with
        # the rules' reason, and the decision is still the person's.
        refused = page.evaluate(
            """async () => {
                const ask = Number(document.getElementById('table').dataset.ask);
                const mine = [...document.querySelectorAll('#hand [data-card]')]
                  .map((b) => b.dataset.card);
                const suits = {d: 'DENARI', c: 'COPPE', s: 'SPADE', b: 'BASTONI'};
                let card = null;
                for (const s of 'dcsb') for (let r = 1; r <= 10; r++)
                  if (!card && !mine.includes(r + s)) card = {suit: suits[s], rank: r};
                const r = await fetch('/api/seat/move', {method: 'POST',
                  headers: {'Authorization': 'Bearer ' + location.hash.slice(1),
                            'Content-Type': 'application/json'},
                  body: JSON.stringify({ask: ask, move: {card: card}})});
                return [r.status, (await r.json()).error];
            }"""
        )
        assert refused[0] == 422 and "is not in the hand" in refused[1], refused
        # Another browser, without the secret or with a wrong one, is shown nothing.
        stranger = browser.new_context()
        other = stranger.new_page()
        other.goto(table.base + "/seat")
        other.wait_for_selector("#table .message")
        assert other.locator("#hand").count() == 0
        other.goto(table.base + "/seat#" + "A" * 43)
        other.reload()
        other.wait_for_function("() => document.body.innerText.includes('not a seat')")
        assert other.locator("#hand").count() == 0 and other.locator(".card").count() == 0
        stranger.close()
        # The browser reports the refused request itself as a console error: expected here.
        watched.problems = [p for p in watched.problems if "status of 422" not in p]
        moves = 0
        while one_move(page, by_keyboard=False):
            moves += 1
            if moves == 4:
                page.reload()  # the seat resumes where it was, its clock still running
                page.wait_for_selector("#hand button.playable, #table[data-over='1']")
                assert page.locator("form.sit").count() == 0
        shoot(page, tmp_path, "table-scopa-end.png")
        assert "Match over" in page.locator("#result").inner_text()
        assert table.wait() == 0
    finally:
        table.stop()  # first: a page that saw problems raises in close
        watched.close()
    replayed = replay_log(log)
    assert replayed.result.termination is Termination.COMPLETED and not replayed.result.faults
    assert sum(s.seat == 0 for d in replayed.deals for s in d.steps) == moves


def test_a_person_and_a_bot_partner_play_scopone_against_two_bots_by_keyboard(browser, tmp_path):
    log = tmp_path / "scopone.log"
    engines = ["me=human", "g=builtin:greedy", "partner=builtin:greedy", "r=builtin:random"]
    table = host_table(engines, "--variant", "scopone", "--target", "3", "--seed", "4", log=log)
    watched = Watched(browser, table.base)
    phone = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        watched.load(f"/seat#{table.secrets[0]}")
        sit(watched.page, "Bea")
        page = watched.page
        page.wait_for_selector("#hand button.playable", timeout=30_000)
        assert "partner" in page.locator(".others").inner_text()
        # Faces switch, as in the viewer.
        page.click("button.faces")
        assert page.locator("#table").get_attribute("data-faces") == "french"
        # The page in a phone-sized window, from the same secret address.
        small = phone.new_page()
        small.goto(table.seat_url(0))
        small.wait_for_selector("#hand button.card-button")
        width = small.evaluate("document.documentElement.scrollWidth")
        assert width <= 390 + 1, width  # nothing wider than the window
        shoot(small, tmp_path, "table-phone.png")
        small.close()
        moves = 0
        while one_move(page, by_keyboard=True):
            moves += 1
        assert table.wait() == 0
    finally:
        table.stop()  # first: a page that saw problems raises in close
        phone.close()
        watched.close()
    replayed = replay_log(log)
    assert replayed.result.termination is Termination.COMPLETED and not replayed.result.faults
    assert replayed.header.engines[0].engine_name == "human"
    assert sum(s.seat == 0 for d in replayed.deals for s in d.steps) == moves > 0


def test_a_person_declares_a_cirulla_packet_by_the_box_and_sees_the_others(browser, tmp_path):
    log = tmp_path / "cirulla.log"
    table = host_table(
        ["me=human", "g=builtin:greedy"],
        # Seed 1: the first deal gives each seat packets to declare.
        *("--variant", "scopa", "--declarations", "--matta", "--deals", "1", "--seed", "1"),
        log=log,
    )
    watched = Watched(browser, table.base)
    offered = 0
    try:
        watched.load(f"/seat#{table.secrets[0]}")
        sit(watched.page, "Cleo")
        page = watched.page
        while True:
            page.wait_for_selector("#table[data-ask]:not([data-ask='']), #table[data-over='1']")
            if (
                page.locator("#declare").count()
                and page.locator("#table").get_attribute("data-over") != "1"
            ):
                offered += 1
                assert page.locator("#declare input").is_checked()  # ticked unless cleared
                if offered == 1:
                    shoot(page, tmp_path, "table-declare.png")
            if not one_move(page, by_keyboard=False):
                break
        assert table.wait() == 0
    finally:
        table.stop()
        watched.close()
    replayed = replay_log(log)
    assert replayed.result.termination is Termination.COMPLETED and not replayed.result.faults
    mine = [s for d in replayed.deals for s in d.steps if s.seat == 0 and len(s.move) == 3]
    theirs = [s for d in replayed.deals for s in d.steps if s.seat == 1 and len(s.move) == 3]
    assert offered > 0 and len(mine) == offered  # every box ticked went with its play
    assert theirs  # and the other seat's declarations were there to be shown


def test_a_person_plays_scopa_a_tre_against_two_bots_and_sees_three_piles(browser, tmp_path):
    log = tmp_path / "three.log"
    engines = ["me=human", "g=builtin:greedy", "r=builtin:random"]
    table = host_table(engines, "--variant", "scopa3", "--deals", "1", "--seed", "6", log=log)
    watched = Watched(browser, table.base)
    try:
        watched.load(f"/seat#{table.secrets[0]}")
        sit(watched.page, "Ada")
        page = watched.page
        page.wait_for_selector("#hand button.playable", timeout=30_000)
        status = page.locator("#status").inner_text()
        # Each rival is named with its own score: no "their side" with three.
        assert "you 0, greedy (seat 1) 0, random (seat 2) 0;" in status
        assert "partner" not in page.locator(".others").inner_text()
        assert page.locator(".piles .pile").count() == 3
        moves = 0
        while moves < 5 and one_move(page, by_keyboard=True):
            moves += 1
        shoot(page, tmp_path, "table-three.png")
        while one_move(page, by_keyboard=True):
            moves += 1
        assert moves == 12  # four rounds of three cards
        assert page.locator("#deal-end p").count() >= 3
        assert table.wait() == 0
    finally:
        table.stop()
        watched.close()
    replayed = replay_log(log)
    assert replayed.result.termination is Termination.COMPLETED and not replayed.result.faults
    assert len(replayed.result.final_scores) == 3


def test_a_seat_plays_in_chromium_beside_as_many_spectators_as_its_address_may_hold(
    browser, tmp_path
):
    """Every spectator's place of the loopback address taken, as a NAT or a
    proxy would have it: a spectator's page in Chromium is told why it is not
    followed live, and the person's page, from that same address, sits down
    and plays the whole match on its clock."""
    log = tmp_path / "crowded.log"
    engines = ["me=human --bank 90s --increment 5s", "g=builtin:greedy"]
    table = host_table(engines, "--deals", "1", "--seed", "9", log=log)
    spectators = Spectators(table.base)
    watching = Watched(browser, table.base)
    watched = Watched(browser, table.base)
    try:
        spectators.open(STREAMS_PER_CLIENT)
        watching.load("/watch")
        refused = watching.page.wait_for_selector("#live-status[data-refused='503']")
        assert refused is not None
        assert "already open from your address" in refused.inner_text()
        # The browser reports the refused stream itself as a console error: expected here.
        watching.problems = [p for p in watching.problems if "status of 503" not in p]
        watched.load(f"/seat#{table.secrets[0]}")
        sit(watched.page, "Ada")
        moves = 0
        while one_move(watched.page, by_keyboard=False):
            moves += 1
        assert "Match over" in watched.page.locator("#result").inner_text()
        assert table.wait() == 0
        spectators.join()
    finally:
        table.stop()
        watching.close()
        watched.close()
    assert spectators.ended == STREAMS_PER_CLIENT
    replayed = replay_log(log)
    assert replayed.result.termination is Termination.COMPLETED and not replayed.result.faults
    assert sum(s.seat == 0 for d in replayed.deals for s in d.steps) == moves == 18


def test_a_seat_opened_in_more_pages_than_it_keeps_lets_its_oldest_page_go(browser, tmp_path):
    table = host_table(["me=human", "g=builtin:greedy"], "--deals", "1", "--seed", "2")
    watched = Watched(browser, table.base)
    others = []
    try:
        watched.load(f"/seat#{table.secrets[0]}")
        sit(watched.page, "Ada")
        page = watched.page
        page.wait_for_selector("#table[data-ask]:not([data-ask='']), #hand .card-button")
        # As many more streams of the seat as it keeps: the page's, the oldest, ends.
        for _ in range(MAX_SEAT_STREAMS):
            url = table.base + "/api/seat/events"
            others.append(requests.get(url, headers=table.auth(0), stream=True, timeout=30))
        assert [r.status_code for r in others] == [200] * MAX_SEAT_STREAMS
        page.wait_for_function(
            "() => document.body.innerText.includes('this one stopped following it')"
        )
        for reply in others:
            reply.close()
        page.reload()  # taken back: the page follows the seat again
        page.wait_for_selector("#hand .card-button")
        assert "stopped following" not in page.locator("#table").inner_text()
        while one_move(page, by_keyboard=True):
            pass
        assert table.wait() == 0
    finally:
        table.stop()
        for reply in others:
            reply.close()
        watched.close()
