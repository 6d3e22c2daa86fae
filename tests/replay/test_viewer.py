"""The HTML viewer: self-contained, and driven for real in headless Chromium."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from arena.replay import replay_log
from arena.rules import Game
from arena.viewer import frames, render_html

from .conftest import write_log

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"


def test_the_page_is_self_contained(tmp_path):
    path = tmp_path / "m.log"
    write_log(path, Game.SCOPA, 3)
    page = render_html(replay_log(path))
    assert "<script src" not in page and "<link" not in page and "@import" not in page
    assert not re.search(r"https?://", page)
    assert 'id="frames"' in page and "ArrowRight" in page


def chromium() -> str:
    found = shutil.which("chromium")
    if found:
        return found
    # CI (.ci/run) has already tried to install it; elsewhere, try once as root.
    if os.environ.get("CI") != "true" and os.geteuid() == 0 and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        try:
            subprocess.run(["apt-get", "update", "-qq"], env=env, capture_output=True, timeout=180)
            subprocess.run(
                ["apt-get", "install", "-y", "-qq", "chromium"],
                env=env,
                capture_output=True,
                timeout=600,
            )
        except subprocess.TimeoutExpired:
            pass
        found = shutil.which("chromium")
        if found:
            return found
    pytest.skip(
        "Chromium is not installed and could not be installed here "
        "(as root: apt-get install chromium)"
    )


@pytest.fixture(scope="module")
def browser():
    playwright = pytest.importorskip(
        "playwright.sync_api", reason="playwright (a dev dependency) is missing"
    )
    executable = chromium()
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=executable,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield b
        b.close()


def seat_cards(page, seat: int) -> list[str]:
    return page.locator(f'.seat[data-seat="{seat}"] .card').all_inner_texts()


@pytest.mark.browser
@pytest.mark.process
def test_stepping_through_a_match_in_chromium(browser, tmp_path):
    path = tmp_path / "m.log"
    write_log(path, Game.SCOPA, 9)
    replay = replay_log(path)
    expected = frames(replay)
    html = tmp_path / "viewer.html"
    html.write_text(render_html(replay), encoding="utf-8")
    page = browser.new_page(viewport={"width": 1100, "height": 760})
    page.goto(html.as_uri())

    def check(index: int) -> None:
        frame = expected[index]
        assert page.inner_text("#caption") == frame["caption"]
        assert page.locator("#table .card").all_inner_texts() == frame["table"]
        for seat, hand in enumerate(frame["hands"]):
            assert seat_cards(page, seat) == hand
        assert f"step {index + 1} of {len(expected)}" in page.inner_text("#position")

    check(0)
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    check(3)
    page.click("#prev")
    check(2)
    page.click("#next")
    page.click("#next")
    check(4)
    page.keyboard.press("End")
    check(len(expected) - 1)
    assert page.locator("table.scoring tr").count() == 3  # the deal's scoring, two sides
    final = replay.result.final_scores
    assert f"{final[0]}" in page.inner_text("#score") and f"{final[1]}" in page.inner_text("#score")
    page.keyboard.press("Home")
    check(0)
    page.keyboard.press("ArrowRight")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "viewer.png"))
    assert (ARTIFACTS / "viewer.png").stat().st_size > 10_000


@pytest.mark.browser
@pytest.mark.process
def test_one_seats_view_hides_the_other_hands(browser, tmp_path):
    path = tmp_path / "m.log"
    write_log(path, Game.SCOPONE, 4)
    html = tmp_path / "seat.html"
    html.write_text(render_html(replay_log(path), seat=2), encoding="utf-8")
    page = browser.new_page()
    page.goto(html.as_uri())
    assert len(seat_cards(page, 2)) == 9
    for other in (0, 1, 3):
        assert seat_cards(page, other) == []
        assert page.locator(f'.seat[data-seat="{other}"] .back').count() == 9
