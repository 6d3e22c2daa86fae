"""The screenshot of the viewer with a move analysis for the docs, run by hand:

    .venv/bin/python -m tests.analysis.screenshots

Writes docs/viewer-analysis.png: the settebello thrower's blunder
(tests/analysis/test_analysis.py's match), with every move's value."""

from __future__ import annotations

import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from arena.audit.analysis import analyse_replay, to_json
from arena.logs.replay import replay_log
from arena.logs.viewer import frames, render_html
from arena.play import run_match_sync
from arena.players.strategies import greedy_strategy
from arena.transport.in_process import InProcessConnection
from tests.analysis.test_analysis import THROWN_SEED, settings, thrower_module
from tests.browser import ARGS, chromium
from tests.replay.screenshots import DOCS, address, shoot


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        log, html = Path(tmp) / "thrown.log", Path(tmp) / "thrown.html"
        engines = [
            ("thrower", InProcessConnection(thrower_module().strategy, name="thrower")),
            ("greedy", InProcessConnection(greedy_strategy(), name="greedy")),
        ]
        run_match_sync(engines, settings(THROWN_SEED), log=log)
        replay = replay_log(log)
        analysis = to_json(analyse_replay(replay))
        html.write_text(render_html(replay, faces="italian", analysis=analysis), encoding="utf-8")
        shown = frames(replay, analysis=analysis)
        at = next(
            i
            for i, f in enumerate(shown)
            if f["analysis"] and f["analysis"]["class"] == "blunder" and f["seat"] == 0
        )
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium(), args=ARGS)
            shoot(browser, html, address(shown, at), DOCS / "viewer-analysis.png")
            browser.close()


if __name__ == "__main__":
    main()
