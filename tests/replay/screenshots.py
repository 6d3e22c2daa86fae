"""Screenshots of the viewer for the docs, run by hand:

    .venv/bin/python -m tests.replay.screenshots

Writes docs/viewer.png (a Scopa step that captures), docs/viewer-scopone.png
(a Scopone replay mid-deal) and docs/viewer-scoring.png (a deal's scoring)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

from arena.logs.replay import replay_log
from arena.logs.viewer import frames, render_html
from arena.rules import Game
from tests.browser import ARGS, chromium
from tests.support.logs import write_log

DOCS = Path(__file__).resolve().parents[2] / "docs"


def address(shown: list[dict[str, Any]], index: int) -> str:
    """The viewer's fragment for frame ``index``: its deal, and its step within the deal."""
    start = max(i for i in range(index + 1) if shown[i]["kind"] == "deal")
    return f"#deal={shown[index]['deal']}&step={index - start}"


def shoot(browser: Any, html: Path, fragment: str, out: Path) -> None:
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    page.goto(html.as_uri() + fragment)
    page.wait_for_selector("#caption")
    page.screenshot(path=str(out), full_page=True)
    page.close()
    print(f"wrote {out}")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        write_log(work / "scopa.log", Game.SCOPA, 9)
        write_log(work / "scopone.log", Game.SCOPONE, 4)
        scopa, scopone = replay_log(work / "scopa.log"), replay_log(work / "scopone.log")
        pages = {}
        for name, replay in (("scopa", scopa), ("scopone", scopone)):
            pages[name] = work / f"{name}.html"
            pages[name].write_text(render_html(replay), encoding="utf-8")
        scopa_frames, scopone_frames = frames(scopa), frames(scopone)
        capture = next(
            i for i, f in enumerate(scopa_frames) if f["kind"] == "play" and f["captured"]
        )
        mid = next(
            i
            for i, f in enumerate(scopone_frames)
            if f["kind"] == "play" and f["captured"] and i > 12
        )
        scored = next(
            i for i, f in enumerate(scopa_frames) if f["kind"] == "scored" and f["leftover"]
        )
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium(), args=ARGS)
            shoot(browser, pages["scopa"], address(scopa_frames, capture), DOCS / "viewer.png")
            scopone_at = address(scopone_frames, mid)
            shoot(browser, pages["scopone"], scopone_at, DOCS / "viewer-scopone.png")
            scored_at = address(scopa_frames, scored)
            shoot(browser, pages["scopa"], scored_at, DOCS / "viewer-scoring.png")
            browser.close()


if __name__ == "__main__":
    main()
