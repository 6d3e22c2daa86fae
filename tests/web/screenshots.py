"""Screenshots of the web site for the docs, run by hand against a running site:

    .venv/bin/arena web DIR --http 127.0.0.1:8765 &
    .venv/bin/python -m tests.web.screenshots http://127.0.0.1:8765 COMPETITION_ID

Writes docs/site-competition.png (a competition's page: progress, standings,
crosstable, the rating plot) and docs/site-match.png (a match in the viewer)."""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

from tests.browser import ARGS, chromium

DOCS = Path(__file__).resolve().parents[2] / "docs"


def main(site: str, competition: str) -> None:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=ARGS)
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.goto(f"{site}/c/{competition}")
        page.screenshot(path=str(DOCS / "site-competition.png"), full_page=True)
        print(f"wrote {DOCS / 'site-competition.png'}")
        page.goto(f"{site}/c/{competition}/matches")
        first = page.locator("a[href^='/m/']").first.get_attribute("href")
        page.goto(f"{site}{first}#deal=1&step=30")
        page.wait_for_selector("#caption")
        page.screenshot(path=str(DOCS / "site-match.png"), full_page=True)
        print(f"wrote {DOCS / 'site-match.png'}")
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
